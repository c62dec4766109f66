// @ts-check
// ---- rendering ---------------------------------------------------------------------------
function checkSide(v, name) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_SIDE) {
    throw new Error(name + ' must be an integer 1-' + MAX_SIDE);
  }
  return v;
}

// Runs after caller code: saved references only, and the message is cut before it is scanned.
function shortMessage(e) {
  var msg = '';
  try {
    var m = e !== null && typeof e === 'object' ? e.message : e;
    if (typeof m === 'string') msg = m;
    else if (typeof m === 'number' || typeof m === 'boolean') msg = '' + m;
  } catch (ignored) {
    msg = '';
  }
  if (msg.length > 300) msg = apply(strSlice, msg, [0, 297]) + '...';
  var out = '';
  var gap = false;
  for (var i = 0; i < msg.length; i++) {
    var c = charAt(msg, i);
    if (c <= 32 || c === 0x2028 || c === 0x2029 || c === 0xa0) {
      gap = out.length > 0;
      continue;
    }
    if (gap) out += ' ';
    gap = false;
    out += msg[i];
  }
  return out || 'render failed';
}

function dispose(chart, canvasKey) {
  var c = chart;
  if (!c && canvasKey) {
    try { c = typeof Chart.getChart === 'function' ? Chart.getChart(canvasKey) : v2ChartOf(canvasKey); } catch (e) { c = null; }
  }
  if (!c) return;
  var parents = parentContexts(c);
  try {
    c.destroy();
  } catch (e) {
    // a chart that failed half-way may not destroy cleanly: at least forget it
    if (Chart.instances && c.id !== undefined) delete Chart.instances[c.id];
  }
  emptyAll(parents);
}

/*
 * Chart.js 3 and 4 build every context with Object.create(parent) (helpers' createContext): the
 * chart's context is the prototype of each dataset's and scale's, and those of each data point's
 * and tick's. V8 gives the objects built on a prototype maps of their own, made in the old
 * generation, where a young collection never frees them, and a map holds its prototype. So each
 * chart stayed reachable, through its contexts, from maps that were already garbage, until the
 * next full collection: every chart survived every young collection and was promoted (4-5 MB
 * per scavenge, 13-20 ms each), a full collection followed every few scavenges, and each one
 * dropped the optimised code of some 70 of Chart.js's functions, compiled again after it
 * (bench/perf-gc-2026-11-27.md). Emptied once the chart is destroyed, those prototypes keep
 * nothing: the chart dies young. Nothing reads a destroyed chart's contexts but caller code that
 * kept one, and such code is impure: its page is reset after the render.
 */

/** At most this many datasets, scales and keys a context are looked at: caller code can make a
 *  chart's lists any length (a sparse array of length 2^32-1 kept the page busy to its deadline). */
var MAX_EMPTIED = 4096;

/** The contexts other contexts are built on: the chart's, each dataset's, each scale's. */
function parentContexts(c) {
  var out = [];
  try {
    if (isObject(c.$context)) out[out.length] = c.$context;
    var metas = c._metasets;
    if (Array.isArray(metas)) {
      for (var i = 0; i < metas.length && i < MAX_EMPTIED; i++) {
        var ctl = isObject(metas[i]) ? metas[i].controller : null;
        if (isObject(ctl) && isObject(ctl.$context)) out[out.length] = ctl.$context;
      }
    }
    var scales = c.scales;
    if (isObject(scales)) {
      var ids = ownKeys(scales);
      for (var j = 0; j < ids.length && j < MAX_EMPTIED; j++) {
        var scale = scales[ids[j]];
        if (isObject(scale) && isObject(scale.$context)) out[out.length] = scale.$context;
      }
    }
  } catch (e) {
    /* a chart that failed half-way: what was found */
  }
  return out;
}

/** Sets each own writable data property to undefined. An accessor (caller code may have put one
 *  there) is left alone: its setter never runs from here. Caller code that made a context a proxy
 *  runs its traps here as its destroy hooks run in destroy(), under the same budgets. */
function emptyAll(objects) {
  for (var i = 0; i < objects.length; i++) {
    try {
      var o = objects[i];
      var keys = ownKeys(o);
      for (var k = 0; k < keys.length && k < MAX_EMPTIED; k++) {
        var d = getDescriptor(o, keys[k]);
        if (d && apply(hasOwn, d, ['value']) && d.writable === true) o[keys[k]] = undefined;
      }
    } catch (e) {
      /* a proxy's traps threw: what it holds waits for the next full collection */
    }
  }
}

/** Chart.js 2 has no getChart: its instances by id. */
function v2ChartOf(canvas) {
  var all = Chart.instances || {};
  for (var id in all) if (all[id] && all[id].canvas === canvas) return all[id];
  return null;
}
