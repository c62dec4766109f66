// @ts-check
var Chart = window.Chart;
// The same harness serves each Chart.js major version (harness.html: 4, harness3.html, harness2.html)
// (Chart.js 2 has no Chart.version, nor Chart.register)
var MAJOR = !Chart ? 0 : typeof Chart.register !== 'function' ? 2 : parseInt(Chart.version, 10);
// Chart.js 2 plugins, taken back from global registration by v2-plugins.js
var V2_PLUGINS = MAJOR === 2 ? window.ChartshotV2Plugins || {} : null;
var DataLabels = V2_PLUGINS ? V2_PLUGINS.datalabels : window.ChartDataLabels;
var QuickChart = window.ChartshotQuickChart;
// images handed in as data URLs, decoded and drawn (images.js)
var Images = window.ChartshotImages;
// ticks, log decades and elements per render (budgets.js); absent: no budgets. Taken off the
// window so that caller code cannot end a render's budget half-way.
var Budgets = window.ChartshotBudgets || { begin: function () {}, plugin: function () { return null; }, hit: function () { return null; }, end: function () {} };
try { delete window.ChartshotBudgets; } catch (e) { /* kept: begin/end still guard each render */ }
var SvgContext = window.ChartshotSvgContext;
var serializeSvg = window.ChartshotSerializeSvg;
var pruneSvg = SvgContext && SvgContext.prototype.__prune;
// the bundles' module-level state (state.js): sealed when the page has loaded (api.js), put
// back before every render (render.js); taken off the window with its registration function
var ModuleState = window.ChartshotModuleState || null;
try {
  delete window.ChartshotModuleState;
  delete window.__chartshotState;
} catch (e) { /* configurable: always deleted */ }
// without it every function counts as impure (a reset after each function render)
var isPure = typeof window.ChartshotIsPure === 'function' ? window.ChartshotIsPure : function () { return false; };
// ---- limits ------------------------------------------------------------------------------
// Every limit the page applies comes from Node (src/render/pageLimits.ts), once per page load
// through init(), before any render: kept in these variables, out of caller code's reach.
var MAX_DEPTH = 0;
// per side of the output image (width or height times the device pixel ratio)
var MAX_SIDE = 0;
var MAX_RATIO = 0;
// longest JavaScript config text evaluated (its request crossed CDP whole already)
var MAX_JS_CONFIG = 0;
var MAX_FUNCTION_CHARS = 0;
var MAX_PATCHES = 0;
var MAX_PATCH_KEYS = 0;
var MAX_PATCH_INDEX = 0;
var MAX_WATERMARK = 0;
// used when a request names no limit (the benchmark's floor)
var DEFAULT_MAX_IMAGE_BYTES = 0;
var MAX_FLOOR_RENDERS = 0;
var initialised = false;

/**
 * Takes the limits Node sends when the page has loaded. Once: a later call (caller code's)
 * throws and changes nothing.
 * @param {import('../protocol').PageLimits} limits
 * @returns {true}
 */
function init(limits) {
  if (initialised) throw new Error('the page has its limits already');
  /** @param {keyof import('../protocol').PageLimits} name */
  function take(name) {
    var v = limits !== null && typeof limits === 'object' ? limits[name] : undefined;
    if (typeof v !== 'number' || !(v >= 1) || v === Infinity) throw new Error('limit ' + name + ' must be a positive number');
    return v;
  }
  MAX_DEPTH = take('maxJsonDepth');
  MAX_SIDE = take('maxSidePx');
  MAX_RATIO = take('maxDevicePixelRatio');
  MAX_JS_CONFIG = take('maxJsConfigChars');
  MAX_FUNCTION_CHARS = take('maxFunctionChars');
  MAX_PATCHES = take('maxTextPatches');
  MAX_PATCH_KEYS = take('maxTextPatchKeys');
  MAX_PATCH_INDEX = take('maxTextPatchIndex');
  MAX_WATERMARK = take('maxWatermarkChars');
  DEFAULT_MAX_IMAGE_BYTES = take('maxImageBytes');
  MAX_FLOOR_RENDERS = take('maxFloorRenders');
  initialised = true;
  // no caller code has run yet: what the document did since load (its last script nodes settling) is its own
  settleDocument();
  return true;
}

// ---- saved references ----------------------------------------------------------------------
// Taken at load, before any caller code can run. A function config may replace prototypes,
// Function.prototype.call, JSON, console...; whatever the harness does after caller code ran
// (encode the image, measure it, serialise the SVG, build the result) goes through these, so
// the image always comes from the harness's own canvas or SVG tree.
var apply = Reflect.apply;
var ownKeys = Reflect.ownKeys;
var hasOwn = Object.prototype.hasOwnProperty;
var createObject = Object.create;
var getDescriptor = Object.getOwnPropertyDescriptor;
/**
 * A built-in accessor's getter, as a function to apply (every one asked for exists).
 * @param {object} proto
 * @param {string} name
 * @returns {Function}
 */
function getter(proto, name) { return /** @type {Function} */ (/** @type {PropertyDescriptor} */ (getDescriptor(proto, name)).get); }
var toDataURL = HTMLCanvasElement.prototype.toDataURL;
var canvasWidth = getter(HTMLCanvasElement.prototype, 'width');
var canvasHeight = getter(HTMLCanvasElement.prototype, 'height');
var strSlice = String.prototype.slice;
var strIndexOf = String.prototype.indexOf;
var strCharCodeAt = String.prototype.charCodeAt;
var perfNow = performance.now;
var perf = performance;
var jsonParse = JSON.parse;
var jsonStringify = JSON.stringify;
var getPrototype = Object.getPrototypeOf;
// what render() returns for a request that waits (a deflated config, images): the intrinsic's prototype
var promisePrototype = Promise.prototype;
// inflating a deflated config (large configs cross CDP deflated as base64)
var fromBase64 = Uint8Array.fromBase64;
var BlobCtor = Blob;
var ResponseCtor = Response;
var InflateCtor = DecompressionStream;
var blobStream = Blob.prototype.stream;
var pipeThrough = ReadableStream.prototype.pipeThrough;
var responseText = Response.prototype.text;
// the in-page memory budget (alloc-guard.js): its control API, taken before any caller code runs
var allocGuard = window.ChartshotAllocGuard ? window.ChartshotAllocGuard.take() : null;
// what caller code schedules (timers, frames, ports...) lives no longer than its render (task-guard.js)
var taskGuard = window.ChartshotTaskGuard ? window.ChartshotTaskGuard.take() : null;

function now() { return apply(perfNow, perf, []); }
function charAt(s, i) { return apply(strCharCodeAt, s, [i]); }

/** A result object without a prototype: nothing caller code put on Object.prototype (a `then`,
 *  a getter) can change what the Node side reads.
 * @param {boolean} ok
 * @returns {PageAnswerDraft} */
function outcome(ok) {
  var o = createObject(null);
  o.ok = ok;
  return o;
}
