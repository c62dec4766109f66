// @ts-check

/**
 * The in-page cost of a render, for the benchmark: the same request n times.
 * @param {import('../protocol').PageRequest} req
 * @param {number} n
 * @returns {Promise<import('../protocol').FloorResult>}
 */
async function floor(req, n) {
  n = Math.max(1, Math.min(MAX_FLOOR_RENDERS, n | 0));
  var ok = true;
  var t0 = performance.now();
  for (var i = 0; i < n; i++) {
    var r = await render(req);
    if (!r.ok) ok = false;
  }
  return { msPerRender: (performance.now() - t0) / n, ok: ok };
}

// ---- after a render whose functions were all proven pure ---------------------------------
// pure.js says they could only read and compute; this confirms, for the state a page keeps
// between renders that can be read at once (globals, storage, cookies, window.name), that
// nothing was left behind. Any doubt answers false, and the page is reset. Well under 1 ms.
var ownNames = Object.getOwnPropertyNames;
var globalsAtLoad = -1;
function keptNothing() {
  try {
    return ownNames(window).length === globalsAtLoad && localStorage.length === 0 && sessionStorage.length === 0 &&
      document.cookie === '' && window.name === '';
  } catch (e) {
    return false;
  }
}

// The renderer page's API, called by the Node side through CDP: init once per load with the
// limits (src/render/page.ts load), then one plain-data request per render. Every field of the
// requests and answers: renderer-page/protocol.d.ts.
/** @type {Readonly<import('../protocol').ChartshotApi>} */
var api = Object.freeze({ init: init, render: render, floor: floor, version: MAJOR, ready: !!(allocGuard && Chart && SvgContext && serializeSvg && QuickChart && Images && MAJOR >= 2) });
// read-only, but configurable so that loading the harness again in the same realm still works
Object.defineProperty(window, 'chartshot', { value: api, writable: false, configurable: true, enumerable: true });
globalsAtLoad = ownNames(window).length;
