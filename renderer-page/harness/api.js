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
  checkMs = 0;
  try {
    for (var i = 0; i < n; i++) {
      var r = await render(req);
      if (!r.ok) ok = false;
    }
    return { msPerRender: (performance.now() - t0) / n, checkMsPerRender: /** @type {number} */ (checkMs) / n, ok: ok };
  } finally {
    checkMs = null;
  }
}

/**
 * One render as it crosses CDP from Node (src/render/page.ts): the request's options as one
 * JSON text, its three texts that may be long (the config's JSON, the deflated config, a
 * JavaScript config) each an argument of its own or null; the answer as one string, its fields
 * as JSON, then a newline, then the image (base64 PNG or SVG text; nothing after the newline
 * for a refused render). Chromium turns a protocol object argument into a V8 object by
 * compiling it as a script: the options as text are parsed instead, and a long text crosses
 * escaped once, never as JSON inside JSON (bench/cdp-shape.ts, decision 0031). The request is
 * still data: parsed with the saved JSON.parse, never run.
 * @param {import('../protocol').RequestText} options
 * @param {string | null} configJson
 * @param {string | null} configDeflated
 * @param {string | null} configJs
 * @returns {import('../protocol').AnswerText | Promise<import('../protocol').AnswerText>}
 */
function renderWire(options, configJson, configDeflated, configJs) {
  var req;
  try {
    if (typeof options !== 'string') throw new Error('request must be JSON text');
    req = apply(jsonParse, JSON, [options]);
    if (!isObject(req)) throw new Error('request must be an object');
  } catch (e) {
    var bad = outcome(false);
    bad.error = 'the request is not JSON: ' + shortMessage(e);
    bad.ranFunctions = false;
    bad.needsReset = false;
    return answerText(/** @type {import('../protocol').PageAnswer} */ (bad));
  }
  // A ride (sent before the answer to the render ahead of it came back) runs only on a page
  // whose last render ended, drew and needs no reset: one still running (awaiting, or stopped
  // half-way by an interrupt), failed, or whose caller code left anything behind leaves the
  // page to its reset first.
  if (req.ride === true && !(lastSettled && lastClean)) {
    var refused = outcome(false);
    refused.error = 'the page is not clean for a ride';
    refused.rideRefused = true;
    refused.ranFunctions = false;
    refused.needsReset = false;
    return answerText(/** @type {import('../protocol').PageAnswer} */ (refused));
  }
  lastSettled = false;
  lastClean = false;
  // the texts that crossed on their own (the options never carry them)
  req.configJson = typeof configJson === 'string' ? configJson : undefined;
  req.configDeflated = typeof configDeflated === 'string' ? configDeflated : undefined;
  req.configJs = typeof configJs === 'string' ? configJs : undefined;
  var out = render(req);
  return isPromise(out) ? answerLater(out) : answerText(settle(/** @type {import('../protocol').PageAnswer} */ (out)));
}

// How the last render through renderWire ended, for a ride behind it (a new document starts clean).
var lastSettled = true;
var lastClean = true;

/** Notes how a render ended; returns its answer.
 * @param {import('../protocol').PageAnswer} a */
function settle(a) {
  lastSettled = true;
  lastClean = a.ok === true && a.needsReset === false;
  return a;
}

/** An async function's promise, told by its prototype (saved at load), not by anything it inherits.
 * @param {unknown} x
 * @returns {x is Promise<import('../protocol').PageAnswer>} */
function isPromise(x) {
  return x !== null && typeof x === 'object' && apply(getPrototype, Object, [x]) === promisePrototype;
}

/** @param {Promise<import('../protocol').PageAnswer>} p */
async function answerLater(p) {
  return answerText(settle(await p));
}

/**
 * The answer on the wire: its own object (no prototype, primitive fields: nothing for
 * JSON.stringify to call) as JSON with the image left out, a newline (JSON text has none), the image.
 * @param {import('../protocol').PageAnswer} a
 * @returns {string}
 */
function answerText(a) {
  var d = /** @type {PageAnswerDraft} */ (a);
  var image = d.ok === true && typeof d.data === 'string' ? d.data : '';
  d.data = undefined;
  return apply(jsonStringify, JSON, [d]) + '\n' + image;
}

// The renderer page's API, called by the Node side through CDP: init once per load with the
// limits (src/render/page.ts load), then one plain-data request per render. Every field of the
// requests and answers: renderer-page/protocol.d.ts.
var pageReady = false;
/** @type {Readonly<import('../protocol').ChartshotApi>} */
var api = Object.freeze({ init: init, render: render, renderWire: renderWire, floor: floor, version: MAJOR, get ready() { return pageReady; }, get lastChange() { return lastChange; } });
// read-only, but configurable so that loading the harness again in the same realm still works
Object.defineProperty(window, 'chartshot', { value: api, writable: false, configurable: true, enumerable: true });
// Chart.js 3 and 4 give a controller class its element classes (from the registry and the dataset
// defaults, the same every time) when a chart first uses it: 3 on the class's prototype, 4 on the
// class. Given here for every registered controller, that write never changes the page.
if (MAJOR >= 3) {
  var controllers = Chart.registry.controllers.items;
  Object.keys(controllers).forEach(function (type) {
    var d = Chart.defaults.datasets[type];
    if (!d) return;
    try {
      Object.assign(MAJOR === 3 ? controllers[type].prototype : controllers[type], {
        dataElementType: Chart.registry.getElement(d.dataElementType),
        datasetElementType: d.datasetElementType && Chart.registry.getElement(d.datasetElementType),
      });
    } catch (e) {
      /* a controller whose elements are not registered: Chart.js refuses its charts anyway */
    }
  });
}
// the module-level state every render starts from: the page as it has loaded; then the digest of
// everything else it shares, compared after each render (page-state.js); ready once both are taken
if (ModuleState) ModuleState.seal();
// every scale class gets its tick budget now (budgets.js wraps one at its first use otherwise)
Budgets.begin(null);
Budgets.end();
pageReady = !!(ModuleState && allocGuard && Chart && SvgContext && serializeSvg && QuickChart && Images && MAJOR >= 2) && takeBaseline();
