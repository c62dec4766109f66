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
  try {
    c.destroy();
  } catch (e) {
    // a chart that failed half-way may not destroy cleanly: at least forget it
    if (Chart.instances && c.id !== undefined) delete Chart.instances[c.id];
  }
}

/** Chart.js 2 has no getChart: its instances by id. */
function v2ChartOf(canvas) {
  var all = Chart.instances || {};
  for (var id in all) if (all[id] && all[id].canvas === canvas) return all[id];
  return null;
}
