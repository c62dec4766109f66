// Runs first in every document of a renderer page, iframes included (harness.html loads it, the
// pool registers it for every new document): caller code gets no console and no network APIs.
(function () {
  'use strict';
  var desc = Object.getOwnPropertyDescriptor(window, '__chartshotLocked');
  if (desc) return;
  Object.defineProperty(window, '__chartshotLocked', { value: true, writable: false, configurable: false, enumerable: false });
  // the platform's own names, before any script adds one: the harness tells the libraries' globals
  // from the platform's by them (harness/page-state.js), then removes this
  Object.defineProperty(window, '__chartshotPlatformNames', { value: Object.freeze(Object.getOwnPropertyNames(window)), writable: false, configurable: true, enumerable: false });

  // Why: puppeteer forwards each console call and each uncaught error to Node over CDP with its
  // arguments in full (a loop of console.log of a 1 MB string moves gigabytes into Node), and each
  // network attempt, even one the CSP refuses, reports its whole URL. Caller code gets silence.
  var noop = function () {};
  var quiet = Object.create(null);
  var names = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'group', 'groupCollapsed',
    'groupEnd', 'time', 'timeEnd', 'timeLog', 'timeStamp', 'count', 'countReset', 'assert', 'profile', 'profileEnd',
    'clear', 'context', 'createTask'];
  for (var i = 0; i < names.length; i++) quiet[names[i]] = noop;
  Object.freeze(quiet);
  Object.defineProperty(window, 'console', { value: quiet, writable: false, configurable: false, enumerable: false });

  // An error nobody handled is reported to the console (and so to Node) unless its event is cancelled.
  function swallow(e) {
    e.preventDefault();
    e.stopImmediatePropagation();
  }
  window.addEventListener('error', swallow, true);
  window.addEventListener('unhandledrejection', swallow, true);

  // Nothing a chart needs: every one of these could only ever be refused, and each refusal is reported.
  var gone = ['fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'Worker', 'SharedWorker',
    'WebTransport', 'RTCPeerConnection', 'webkitRTCPeerConnection', 'BroadcastChannel'];
  for (var j = 0; j < gone.length; j++) {
    try {
      Object.defineProperty(window, gone[j], { value: undefined, writable: false, configurable: false });
    } catch (e) {
      /* not configurable in this build: leave it */
    }
  }
  Object.defineProperty(window, 'open', { value: function () { return null; }, writable: false, configurable: false });
  try {
    Object.defineProperty(Navigator.prototype, 'sendBeacon', { value: function () { return false; }, writable: false, configurable: false });
  } catch (e) {
    /* absent */
  }
})();
