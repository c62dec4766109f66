// Caller code leaves nothing running: every timer, interval, animation frame, idle callback,
// scheduled task, microtask queued with queueMicrotask, message port, animation and file read a
// render starts is cancelled when the render ends, and outside a render nothing can be scheduled
// at all. Without
// it a callback could start a loop and return: the render answered in milliseconds while the
// page's main thread stayed busy for whoever came next. What cannot be cancelled from here (a
// promise chain, a loop in an image's onload) is the Node side's to stop: the page must answer
// a trivial evaluation right after each render that ran caller code, or its script is
// terminated and, if that does not free it, its renderer replaced (src/render/pool.ts).
//
// Runs before anything else in every document (harness*.html right after lockdown.js, and the
// pool registers it for iframes). While the page loads its own scripts, scheduling works as
// usual; once the harness took the control (ChartshotTaskGuard.take()):
//   begin()  at the start of every render: what is scheduled now belongs to this render
//   end()    at its end: all of it cancelled; returns how many were still pending
//   pending()  how many are pending now (0 between renders)
// An iframe's realm (caller code can make one) schedules nothing at all.
(function () {
  'use strict';
  if (Object.getOwnPropertyDescriptor(window, 'ChartshotTaskGuard')) return;

  var apply = Reflect.apply;
  var construct = Reflect.construct;
  var defineProperty = Object.defineProperty;
  var getDescriptor = Object.getOwnPropertyDescriptor;
  var arraySlice = Array.prototype.slice;
  var PromiseCtor = Promise;
  var noop = function () {};

  /** More than this many scheduled in one render are refused (end() stays quick). */
  var MAX_PER_RENDER = 10000;

  // 'loading': before the harness took the control (the page's own scripts); then 'idle' or
  // 'active'. An iframe never leaves 'idle'.
  var phase = window.top === window ? 'loading' : 'idle';
  // the render now: its callbacks run only while it is live (a new one for each render, so
  // that a callback of one never runs in the next; between renders the page's state is as at load)
  var current = { live: false };
  // what this render scheduled: a cancel function (applied to window) and its argument, in pairs
  var cancels = [];
  var ports = [];
  var count = 0;

  function active() {
    return phase === 'active';
  }

  /** May something be scheduled now, and remembered for end()? */
  function admit() {
    if (phase !== 'active') return false;
    if (count >= MAX_PER_RENDER) return false;
    count++;
    return true;
  }

  function guarded(fn) {
    var render = current;
    return function () {
      if (!render.live) return undefined;
      return apply(fn, this, arguments);
    };
  }

  function ownFunction(name) {
    var d = getDescriptor(window, name);
    return d && typeof d.value === 'function' ? d.value : null;
  }

  function replace(target, name, fn) {
    var d = getDescriptor(target, name);
    if (!d || typeof d.value !== 'function') return;
    try {
      defineProperty(target, name, { value: fn, writable: false, configurable: false, enumerable: d.enumerable });
    } catch (e) {
      /* not configurable in this build: leave it */
    }
  }

  /** setTimeout and its kin: the callback guarded, the id remembered to cancel at the end. A
   *  string of code is refused: a chart needs none. */
  function wrapScheduler(name, cancelName) {
    var native = ownFunction(name);
    var cancel = ownFunction(cancelName);
    if (!native || !cancel) return;
    replace(window, name, {
      [name]: function (handler) {
        if (phase === 'loading') return apply(native, window, arguments);
        if (typeof handler !== 'function' || !admit()) return 0;
        var args = apply(arraySlice, arguments, []);
        args[0] = guarded(handler);
        var id = apply(native, window, args);
        cancels[cancels.length] = cancel;
        cancels[cancels.length] = id;
        return id;
      },
    }[name]);
  }
  wrapScheduler('setTimeout', 'clearTimeout');
  wrapScheduler('setInterval', 'clearInterval');
  wrapScheduler('requestAnimationFrame', 'cancelAnimationFrame');
  wrapScheduler('requestIdleCallback', 'cancelIdleCallback');

  // a microtask queued by a render runs only while the render lasts (a sync render's run after
  // its answer was built: none of them runs)
  var nativeMicrotask = ownFunction('queueMicrotask');
  if (nativeMicrotask) {
    replace(window, 'queueMicrotask', function queueMicrotask(cb) {
      if (phase === 'loading') return apply(nativeMicrotask, window, arguments);
      if (typeof cb !== 'function' || !admit()) return undefined;
      return apply(nativeMicrotask, window, [guarded(cb)]);
    });
  }

  // scheduler.postTask: the callback guarded; a task posted outside a render never settles
  var sched = window.scheduler;
  if (sched && typeof sched === 'object') {
    var Scheduler = Object.getPrototypeOf(sched);
    var postTask = Scheduler && getDescriptor(Scheduler, 'postTask');
    if (postTask && typeof postTask.value === 'function') {
      var nativePost = postTask.value;
      replace(Scheduler, 'postTask', function postTask(cb, opts) {
        if (phase === 'loading') return apply(nativePost, this, arguments);
        if (typeof cb !== 'function' || !admit()) return new PromiseCtor(noop);
        return apply(nativePost, this, [guarded(cb), opts]);
      });
    }
    var yieldD = Scheduler && getDescriptor(Scheduler, 'yield');
    if (yieldD && typeof yieldD.value === 'function') {
      var nativeYield = yieldD.value;
      replace(Scheduler, 'yield', {
        yield: function () {
          if (phase === 'active' || phase === 'loading') return apply(nativeYield, this, arguments);
          return new PromiseCtor(noop);
        },
      }.yield);
    }
  }

  // AbortSignal.timeout's timer is the browser's own: made from a guarded setTimeout instead
  var AbortSignalCtor = window.AbortSignal;
  var AbortControllerCtor = window.AbortController;
  var DOMExceptionCtor = window.DOMException;
  var abortTimeout = AbortSignalCtor && getDescriptor(AbortSignalCtor, 'timeout');
  if (abortTimeout && typeof abortTimeout.value === 'function' && AbortControllerCtor) {
    var nativeAbortTimeout = abortTimeout.value;
    var timeoutFn = window.setTimeout;
    var abortFn = AbortControllerCtor.prototype.abort;
    var signalOf = getDescriptor(AbortControllerCtor.prototype, 'signal').get;
    replace(AbortSignalCtor, 'timeout', {
      timeout: function (ms) {
        if (phase === 'loading') return apply(nativeAbortTimeout, AbortSignalCtor, arguments);
        var c = new AbortControllerCtor();
        apply(timeoutFn, window, [
          function () {
            apply(abortFn, c, [new DOMExceptionCtor('signal timed out', 'TimeoutError')]);
          },
          ms,
        ]);
        return apply(signalOf, c, []);
      },
    }.timeout);
  }

  // Message ports: both ports of a render's channels are closed at its end (a closed port
  // delivers nothing more); outside a render a channel is born closed and nothing is posted.
  var NativeChannel = window.MessageChannel;
  var PortProto = window.MessagePort && window.MessagePort.prototype;
  if (NativeChannel && PortProto) {
    var port1 = getDescriptor(NativeChannel.prototype, 'port1').get;
    var port2 = getDescriptor(NativeChannel.prototype, 'port2').get;
    var closePort = PortProto.close;
    var postPort = PortProto.postMessage;
    var Channel = function MessageChannel() {
      if (new.target === undefined) throw new TypeError("Failed to construct 'MessageChannel': Please use the 'new' operator");
      var c = construct(NativeChannel, []);
      var a = apply(port1, c, []);
      var b = apply(port2, c, []);
      if (phase === 'loading') return c;
      if (admit()) {
        ports[ports.length] = a;
        ports[ports.length] = b;
      } else {
        apply(closePort, a, []);
        apply(closePort, b, []);
      }
      return c;
    };
    Channel.prototype = NativeChannel.prototype;
    defineProperty(NativeChannel.prototype, 'constructor', { value: Channel, writable: false, configurable: false, enumerable: false });
    defineProperty(window, 'MessageChannel', { value: Channel, writable: false, configurable: false, enumerable: false });
    replace(PortProto, 'postMessage', function postMessage() {
      if (phase !== 'loading' && phase !== 'active') return undefined;
      return apply(postPort, this, arguments);
    });
  }
  // window.postMessage: nothing posted outside a render, and a message event that arrives
  // outside one (posted during a render that ended) reaches no listener
  var nativePostMessage = ownFunction('postMessage');
  if (nativePostMessage) {
    replace(window, 'postMessage', function postMessage() {
      if (phase !== 'loading' && phase !== 'active') return undefined;
      return apply(nativePostMessage, window, arguments);
    });
  }
  window.addEventListener(
    'message',
    function (e) {
      if (phase !== 'loading' && phase !== 'active') e.stopImmediatePropagation();
    },
    true,
  );

  // Events that come later without a timer: an animation's finish, a file read's load, a
  // canvas's blob. The animations and reads a render started are cancelled at its end (and
  // the animations of the document's elements, CSS ones included); none starts outside a render.
  var others = [];
  function remember(x, cancel) {
    others[others.length] = cancel;
    others[others.length] = x;
  }
  var ElementProto = window.Element && window.Element.prototype;
  var AnimationProto = window.Animation && window.Animation.prototype;
  var cancelAnimation = AnimationProto && AnimationProto.cancel;
  if (ElementProto && typeof ElementProto.animate === 'function' && cancelAnimation) {
    var nativeAnimate = ElementProto.animate;
    replace(ElementProto, 'animate', function animate() {
      var a = apply(nativeAnimate, this, arguments);
      if (phase === 'loading') return a;
      if (admit()) remember(a, cancelAnimation);
      else apply(cancelAnimation, a, []);
      return a;
    });
  }
  if (AnimationProto && typeof AnimationProto.play === 'function' && cancelAnimation) {
    var nativePlay = AnimationProto.play;
    replace(AnimationProto, 'play', function play() {
      if (phase === 'loading') return apply(nativePlay, this, arguments);
      if (!admit()) return undefined;
      remember(this, cancelAnimation);
      return apply(nativePlay, this, arguments);
    });
  }
  var documentAnimations = window.Document && window.Document.prototype.getAnimations;
  var ReaderProto = window.FileReader && window.FileReader.prototype;
  if (ReaderProto && typeof ReaderProto.abort === 'function') {
    var abortRead = ReaderProto.abort;
    var reads = ['readAsArrayBuffer', 'readAsBinaryString', 'readAsDataURL', 'readAsText'];
    for (var r = 0; r < reads.length; r++) {
      (function (name) {
        var native = ReaderProto[name];
        if (typeof native !== 'function') return;
        replace(ReaderProto, name, {
          [name]: function () {
            if (phase === 'loading') return apply(native, this, arguments);
            if (!admit()) return undefined;
            remember(this, abortRead);
            return apply(native, this, arguments);
          },
        }[name]);
      })(reads[r]);
    }
  }
  var CanvasProto = window.HTMLCanvasElement && window.HTMLCanvasElement.prototype;
  if (CanvasProto && typeof CanvasProto.toBlob === 'function') {
    var nativeToBlob = CanvasProto.toBlob;
    replace(CanvasProto, 'toBlob', function toBlob(cb) {
      if (phase === 'loading') return apply(nativeToBlob, this, arguments);
      if (typeof cb !== 'function' || !admit()) return undefined;
      var args = apply(arraySlice, arguments, []);
      args[0] = guarded(cb);
      return apply(nativeToBlob, this, args);
    });
  }

  // ---- the harness's handle -------------------------------------------------------------------
  function end() {
    var n = cancels.length / 2 + ports.length / 2 + others.length / 2;
    phase = 'idle';
    current.live = false;
    var list = cancels;
    var open = ports;
    var rest = others;
    cancels = [];
    ports = [];
    others = [];
    count = 0;
    // an aborted read fires its abort events now, inside the render that started it
    for (var k = 0; k < rest.length; k += 2) {
      try {
        apply(rest[k], rest[k + 1], []);
      } catch (e3) {
        /* over already */
      }
    }
    if (documentAnimations) {
      try {
        var running = apply(documentAnimations, document, []);
        for (var a = 0; a < running.length; a++) {
          apply(cancelAnimation, running[a], []);
          n++;
        }
      } catch (e4) {
        /* no document to ask */
      }
    }
    for (var i = 0; i < list.length; i += 2) {
      try {
        apply(list[i], window, [list[i + 1]]);
      } catch (e) {
        /* its callback is guarded all the same */
      }
    }
    for (var j = 0; j < open.length; j++) {
      try {
        apply(closePort, open[j], []);
      } catch (e2) {
        /* nothing more to deliver */
      }
    }
    return n;
  }
  var control = Object.freeze({
    begin: function () {
      if (phase === 'active') end();
      current = { live: true };
      phase = 'active';
    },
    end: end,
    pending: function () {
      return cancels.length / 2 + ports.length / 2 + others.length / 2;
    },
    active: active,
  });
  var given = false;
  defineProperty(window, 'ChartshotTaskGuard', {
    value: Object.freeze({
      take: function () {
        if (given) return null;
        given = true;
        if (phase === 'loading') phase = 'idle';
        return control;
      },
    }),
    writable: false,
    configurable: false,
    enumerable: false,
  });
})();
