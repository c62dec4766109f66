// The in-page memory wall: what caller code allocates outside V8's heap (typed arrays, array
// buffers, canvas backing stores, image data) is counted per render and refused past a budget.
// V8's heap has its own limit (--max-old-space-size) and Chromium's process tree a cgroup
// (src/render/cgroup.ts); these bytes escaped both: 2 GiB of ArrayBuffers rendered with
// Chromium at 3.5 GB. Runs before anything else in every document (harness*.html, and the pool
// registers it for iframes), so caller code only ever sees the counted constructors.
//
// The harness takes the control API once at load (ChartshotAllocGuard.take()):
//   reset(budgetMb)  at the start of every render: the count starts again at 0
//   own(canvas, bytes)  the harness's output canvas: its first `bytes` are not caller code's
//   tripped()  true once anything was refused (caller code may have caught the error)
//   message()  "render exceeded its memory budget of N MB"
//   usedBytes()
(function () {
  'use strict';
  if (Object.getOwnPropertyDescriptor(window, '__chartshotAllocCharge')) return;

  var MB = 1048576;
  var DEFAULT_BUDGET_MB = 256;
  var apply = Reflect.apply;
  var construct = Reflect.construct;
  var defineProperty = Object.defineProperty;
  var getDescriptor = Object.getOwnPropertyDescriptor;
  var getProto = Object.getPrototypeOf;
  var arrayFrom = Array.from;
  var isArray = Array.isArray;
  var ProxyCtor = Proxy;
  var RangeErrorCtor = RangeError;
  var NumberFn = Number;
  var StringFn = String;
  var WeakMapCtor = WeakMap;
  var wmGet = WeakMap.prototype.get;
  var wmSet = WeakMap.prototype.set;
  var wmHas = WeakMap.prototype.has;
  var mathMax = Math.max;
  var mathMin = Math.min;
  var mathAbs = Math.abs;
  var mathFloor = Math.floor;

  function getter(proto, name) {
    var d = proto && getDescriptor(proto, name);
    return d && d.get;
  }

  // ---- the count -----------------------------------------------------------------------------
  var state = { used: 0, budget: DEFAULT_BUDGET_MB * MB, tripped: false };
  // canvas -> bytes of its backing store counted this render; canvas -> bytes the harness owns
  var counted = new WeakMapCtor();
  var owned = new WeakMapCtor();

  function message() {
    return 'render exceeded its memory budget of ' + state.budget / MB + ' MB';
  }

  function chargeHere(bytes) {
    if (!(bytes > 0)) return;
    if (state.used + bytes > state.budget) {
      state.tripped = true;
      throw new RangeErrorCtor(message());
    }
    state.used += bytes;
  }

  // An iframe's realm (about:blank, same origin) has constructors of its own: each iframe runs
  // this file too (the pool registers it for every document) and counts into the top document's
  // budget, so a render cannot multiply its budget by making iframes.
  var charge = chargeHere;
  try {
    if (window.top !== window) {
      var up = getDescriptor(window.top, '__chartshotAllocCharge');
      if (up && typeof up.value === 'function') charge = up.value;
    }
  } catch (e) {
    /* another origin: keep a budget of our own */
  }
  // Non-writable and non-configurable: caller code can call it (only to count more), never replace it.
  defineProperty(window, '__chartshotAllocCharge', { value: function (bytes) { charge(NumberFn(bytes)); }, writable: false, configurable: false, enumerable: false });

  /** A count for one object whose size may change: only its growth is charged. */
  function chargeSized(obj, bytes) {
    var before = apply(wmHas, counted, [obj]) ? apply(wmGet, counted, [obj]) : 0;
    var free = apply(wmHas, owned, [obj]) ? apply(wmGet, owned, [obj]) : 0;
    var base = mathMax(before, free);
    if (bytes > base) {
      charge(bytes - base);
      apply(wmSet, counted, [obj, bytes]);
    }
  }

  function toLength(v) {
    if (typeof v === 'bigint' || typeof v === 'symbol') return v;
    var n = NumberFn(v);
    if (n !== n) return 0;
    return n < 0 ? n : mathFloor(n);
  }

  function wrapMethod(proto, name, before) {
    var d = proto && getDescriptor(proto, name);
    if (!d || typeof d.value !== 'function') return;
    var original = d.value;
    d.value = {
      [name]: function () {
        var args = before(this, arguments);
        return apply(original, this, args || arguments);
      },
    }[name];
    defineProperty(proto, name, d);
  }

  function wrapSetter(proto, name, after) {
    var d = proto && getDescriptor(proto, name);
    if (!d || typeof d.set !== 'function') return;
    var set = d.set;
    d.set = {
      [name]: function (v) {
        apply(set, this, [v]);
        after(this);
      },
    }[name];
    defineProperty(proto, name, d);
  }

  /** A constructor whose allocations are counted first (`bytes` gives the arguments to pass on). */
  function wrapConstructor(name, bytes) {
    var Original = window[name];
    if (typeof Original !== 'function') return null;
    var wrapped = new ProxyCtor(Original, {
      construct: function (target, args, newTarget) {
        var passed = bytes(args);
        return construct(target, passed, newTarget === wrapped ? target : newTarget);
      },
    });
    // every way back to the constructor (x.constructor, species) leads to the counted one
    var pd = getDescriptor(Original, 'prototype');
    if (pd && pd.value) defineProperty(pd.value, 'constructor', { value: wrapped, writable: true, configurable: true, enumerable: false });
    defineProperty(window, name, { value: wrapped, writable: true, configurable: true, enumerable: false });
    return Original;
  }

  // ---- array buffers -------------------------------------------------------------------------
  var AB = window.ArrayBuffer;
  var abByteLength = getter(AB.prototype, 'byteLength');
  var SAB = window.SharedArrayBuffer;
  var sabByteLength = SAB && getter(SAB.prototype, 'byteLength');
  function bufferBytes(x) {
    try {
      return apply(abByteLength, x, []);
    } catch (e) {
      /* not an ArrayBuffer */
    }
    if (sabByteLength) {
      try {
        return apply(sabByteLength, x, []);
      } catch (e2) {
        /* not a SharedArrayBuffer */
      }
    }
    return -1;
  }

  function bufferArgs(args) {
    var n = toLength(args[0]);
    if (typeof n === 'number') charge(n);
    var opts = args[1];
    // read maxByteLength once and pass a plain object: no getter can answer twice
    if (opts !== null && typeof opts === 'object') {
      var max = opts.maxByteLength;
      return [n, max === undefined ? undefined : { maxByteLength: toLength(max) }];
    }
    return [n];
  }
  wrapConstructor('ArrayBuffer', bufferArgs);
  if (SAB) wrapConstructor('SharedArrayBuffer', bufferArgs);

  function sliceCount(len, start, end) {
    var s = toLength(start);
    var e = end === undefined ? len : toLength(end);
    s = s < 0 ? mathMax(len + s, 0) : mathMin(s, len);
    e = e < 0 ? mathMax(len + e, 0) : mathMin(e, len);
    return { start: s, end: e, count: mathMax(e - s, 0) };
  }
  var bufferProtos = [AB.prototype];
  if (SAB) bufferProtos.push(SAB.prototype);
  for (var bp = 0; bp < bufferProtos.length; bp++) {
    wrapMethod(bufferProtos[bp], 'slice', function (self, args) {
      var s = sliceCount(bufferBytes(self), args[0], args[1]);
      charge(s.count);
      return [s.start, s.end];
    });
    wrapMethod(bufferProtos[bp], 'resize', growArgs);
    wrapMethod(bufferProtos[bp], 'grow', growArgs);
  }
  function transferArgs(self, args) {
    if (args[0] === undefined) return [];
    return growArgs(self, args);
  }
  function growArgs(self, args) {
    var n = toLength(args[0]);
    if (typeof n === 'number') charge(n - mathMax(bufferBytes(self), 0));
    return [n];
  }
  wrapMethod(AB.prototype, 'transfer', transferArgs);
  wrapMethod(AB.prototype, 'transferToFixedLength', transferArgs);

  // ---- typed arrays --------------------------------------------------------------------------
  var TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
    'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
  var TypedArrayProto = getProto(Int8Array.prototype);
  var taLength = getter(TypedArrayProto, 'length');
  var taSet = TypedArrayProto.set;
  function typedLength(x) {
    try {
      return apply(taLength, x, []);
    } catch (e) {
      return -1;
    }
  }

  function typedArgs(size) {
    return function (args) {
      var src = args[0];
      if (src === null || (typeof src !== 'object' && typeof src !== 'function')) {
        var n = toLength(src);
        if (typeof n === 'number') charge(n * size);
        return [n];
      }
      // a view of a buffer that exists already: nothing new
      if (bufferBytes(src) >= 0) return args;
      var len = typedLength(src);
      if (len >= 0) {
        charge(len * size);
        return [src];
      }
      // an array, array-like or iterable: its length, read once, refuses a large one at once;
      // then it is copied into a real array (a list on V8's heap, which has a limit of its own)
      // and the copy is what is counted and passed on: a `length` getter or an iterator cannot
      // answer differently the second time
      var said = toLength(src.length);
      var first = typeof said === 'number' && said > 0 ? said * size : 0;
      charge(first);
      var list = apply(arrayFrom, undefined, [src]);
      charge(list.length * size - first);
      return [list];
    };
  }
  for (var t = 0; t < TYPED.length; t++) {
    var Ctor = window[TYPED[t]];
    if (typeof Ctor !== 'function') continue;
    wrapConstructor(TYPED[t], typedArgs(Ctor.BYTES_PER_ELEMENT));
  }
  // Methods that make a new array: some through the species constructor (counted above unless
  // caller code points it elsewhere), some never through it. All counted here, at 8 bytes an
  // element (the widest type) where the result's type may differ from this one's.
  function elementBytes(self) {
    var c = getProto(self);
    return c && typeof c.BYTES_PER_ELEMENT === 'number' ? c.BYTES_PER_ELEMENT : 8;
  }
  wrapMethod(TypedArrayProto, 'slice', function (self, args) {
    var s = sliceCount(mathMax(typedLength(self), 0), args[0], args[1]);
    charge(s.count * 8);
    return [s.start, s.end];
  });
  var whole = ['map', 'filter', 'toReversed', 'toSorted', 'with'];
  for (var w = 0; w < whole.length; w++) {
    wrapMethod(TypedArrayProto, whole[w], function (self) {
      charge(mathMax(typedLength(self), 0) * (elementBytes(self) || 8));
    });
  }
  var U8 = Uint8Array;
  function wrapStatic(obj, name, bytesOf) {
    if (typeof obj[name] !== 'function') return;
    var original = obj[name];
    defineProperty(obj, name, {
      value: { [name]: function (s) { var str = StringFn(s); charge(bytesOf(str)); return apply(original, this, [str, arguments[1]]); } }[name],
      writable: true,
      configurable: true,
    });
  }
  // (the harness's own inflate uses fromBase64 too: counted, within the render, like any other)
  wrapStatic(U8, 'fromBase64', function (s) { return (s.length * 3) / 4; });
  wrapStatic(U8, 'fromHex', function (s) { return s.length / 2; });
  if (window.TextEncoder) {
    wrapMethod(TextEncoder.prototype, 'encode', function (self, args) {
      var s = args[0] === undefined ? '' : StringFn(args[0]);
      charge(s.length * 3);
      return [s];
    });
  }

  // ---- canvases and pixels -------------------------------------------------------------------
  // A canvas's backing store exists once it has a context: counted then, and again when it grows.
  var contextOf = new WeakMapCtor();
  function canvasSide(get, c) {
    return NumberFn(apply(get, c, [])) || 0;
  }
  function guardCanvas(proto, widthGet, heightGet) {
    function pixels(c) {
      return canvasSide(widthGet, c) * canvasSide(heightGet, c) * 4;
    }
    function afterResize(c) {
      if (apply(wmHas, contextOf, [c])) chargeSized(c, pixels(c));
    }
    wrapSetter(proto, 'width', afterResize);
    wrapSetter(proto, 'height', afterResize);
    var d = getDescriptor(proto, 'getContext');
    if (!d) return;
    var getContext = d.value;
    d.value = { getContext: function (type) {
      // charts draw in 2D: WebGL and bitmap contexts allocate outside any count (textures)
      var kind = StringFn(type);
      if (kind !== '2d') return null;
      chargeSized(this, pixels(this));
      var ctx = apply(getContext, this, [kind, arguments[1]]);
      if (ctx) apply(wmSet, contextOf, [this, true]);
      return ctx;
    } }.getContext;
    defineProperty(proto, 'getContext', d);
  }
  var CanvasProto = HTMLCanvasElement.prototype;
  guardCanvas(CanvasProto, getter(CanvasProto, 'width'), getter(CanvasProto, 'height'));
  if (typeof OffscreenCanvas === 'function') {
    var OffProto = OffscreenCanvas.prototype;
    guardCanvas(OffProto, getter(OffProto, 'width'), getter(OffProto, 'height'));
  }
  // transferControlToOffscreen hands out a canvas whose size is counted through OffscreenCanvas
  function areaArgs(args) {
    var w = toLength(args[0]);
    var h = toLength(args[1]);
    return { w: w, h: h, bytes: typeof w === 'number' && typeof h === 'number' ? mathAbs(w * h) * 4 : 0 };
  }
  wrapConstructor('ImageData', function (args) {
    // new ImageData(data, w[, h]) wraps bytes counted when they were made
    if (args[0] !== null && typeof args[0] === 'object') return args;
    var a = areaArgs(args);
    charge(a.bytes);
    return [a.w, a.h, args[2]];
  });
  var contexts = [window.CanvasRenderingContext2D, window.OffscreenCanvasRenderingContext2D];
  for (var k = 0; k < contexts.length; k++) {
    if (typeof contexts[k] !== 'function') continue;
    var cp = contexts[k].prototype;
    wrapMethod(cp, 'createImageData', function (self, args) {
      if (args[0] !== null && typeof args[0] === 'object') {
        // the size of an existing ImageData (read from the original getters below)
        charge(imageDataBytes(args[0]));
        return null;
      }
      var a = areaArgs(args);
      charge(a.bytes);
      return [a.w, a.h, args[2]];
    });
    wrapMethod(cp, 'getImageData', function (self, args) {
      var a = areaArgs([args[2], args[3]]);
      charge(a.bytes);
      return [toLength(args[0]), toLength(args[1]), a.w, a.h, args[4]];
    });
  }
  var idWidth = window.ImageData && getter(ImageData.prototype, 'width');
  var idHeight = window.ImageData && getter(ImageData.prototype, 'height');
  function imageDataBytes(x) {
    try {
      return apply(idWidth, x, []) * apply(idHeight, x, []) * 4;
    } catch (e) {
      return 0;
    }
  }

  // ---- what charts never use, taken away once the harness has its own references -----------
  // Each of these allocates outside every count above (decoded blobs, audio buffers, WebAssembly
  // memories, bitmaps, structured clones). The harness keeps the ones it uses (Blob, Response,
  // DecompressionStream for large configs) as references saved at load.
  var TAKEN = ['Response', 'Request', 'FileReader', 'structuredClone', 'createImageBitmap', 'WebAssembly', 'CompressionStream',
    'DecompressionStream', 'AudioContext', 'OfflineAudioContext', 'webkitAudioContext', 'webkitOfflineAudioContext', 'AudioBuffer',
    'VideoFrame', 'AudioData', 'ImageDecoder', 'VideoDecoder', 'VideoEncoder', 'AudioDecoder', 'AudioEncoder', 'MediaSource', 'ImageBitmap'];
  var BlobProto = window.Blob && Blob.prototype;
  var blobSize = getter(BlobProto, 'size');
  var takenAway = false;
  function takeAway() {
    if (takenAway) return;
    takenAway = true;
    for (var i = 0; i < TAKEN.length; i++) {
      try {
        defineProperty(window, TAKEN[i], { value: undefined, writable: false, configurable: false });
      } catch (e) {
        /* absent or fixed in this build */
      }
    }
    // a Blob's bytes are copied out each time they are read
    var reads = ['arrayBuffer', 'bytes', 'text', 'stream'];
    for (var r = 0; r < reads.length; r++) {
      wrapMethod(BlobProto, reads[r], function (self) {
        charge(NumberFn(apply(blobSize, self, [])) || 0);
      });
    }
  }

  // ---- the harness's handle -------------------------------------------------------------------
  var control = {
    reset: function (budgetMb) {
      takeAway();
      var mb = NumberFn(budgetMb);
      state.budget = (mb >= 1 ? mb : DEFAULT_BUDGET_MB) * MB;
      state.used = 0;
      state.tripped = false;
      counted = new WeakMapCtor();
      owned = new WeakMapCtor();
    },
    own: function (canvas, bytes) {
      var before = apply(wmHas, counted, [canvas]) ? apply(wmGet, counted, [canvas]) : 0;
      state.used = mathMax(0, state.used - before);
      apply(wmSet, counted, [canvas, 0]);
      apply(wmSet, owned, [canvas, NumberFn(bytes) || 0]);
    },
    tripped: function () { return state.tripped; },
    message: message,
    usedBytes: function () { return state.used; },
    defaultBudgetMb: DEFAULT_BUDGET_MB,
  };
  Object.freeze(control);
  var given = false;
  var api = Object.freeze({
    // The harness takes the control once it saved the references it keeps; the APIs go at once
    // then, so the globals the harness counts at load (its "kept nothing" check after caller
    // code) are the ones every render sees.
    take: function () {
      if (given) return null;
      given = true;
      takeAway();
      return control;
    },
  });
  defineProperty(window, 'ChartshotAllocGuard', { value: api, writable: false, configurable: false, enumerable: false });
  // A document with no harness (an iframe) takes away at once: nothing of ours needs those.
  if (window.top !== window) takeAway();
})();
