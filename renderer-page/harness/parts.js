// @ts-check

// The boxes of a drawn chart's parts (title, subtitle, legend, chartArea, each scale by id), read
// from Chart.js's own layout (chart.chartArea, chart.titleBlock, chart.legend, chart.scales,
// chart.boxes: the same names in Chart.js 2, 3 and 4), in output pixels. Asked for by golden-image
// tests only (PageOptions.parts): a render that does not ask never runs this. Only numbers leave:
// a value that is not a finite number (caller code may have replaced any of these objects) drops
// its part; nothing here calls what it reads.

var MAX_PARTS = 64;

/** @param {unknown} v */
function finite(v) {
  return typeof v === 'number' && v === v && v !== Infinity && v !== -Infinity;
}

/** o[k], or undefined when o is no object or reading it throws (a getter of caller code).
 * @param {any} o @param {string} k */
function field(o, k) {
  if (o === null || typeof o !== 'object') return undefined;
  try {
    return o[k];
  } catch (e) {
    return undefined;
  }
}

/**
 * A box from left/top/right/bottom (or width/height), scaled and clipped to the image; null when
 * it is empty or not made of numbers.
 * @param {any} b @param {number} ratio @param {number} w @param {number} h
 */
function partBox(b, ratio, w, h) {
  if (b === null || typeof b !== 'object') return null;
  var left = field(b, 'left'), top = field(b, 'top'), right = field(b, 'right'), bottom = field(b, 'bottom');
  var width = field(b, 'width'), height = field(b, 'height');
  if (!finite(right) && finite(left) && finite(width)) right = left + width;
  if (!finite(bottom) && finite(top) && finite(height)) bottom = top + height;
  if (!finite(left) || !finite(top) || !finite(right) || !finite(bottom)) return null;
  var x0 = Math.max(0, Math.floor(left * ratio));
  var y0 = Math.max(0, Math.floor(top * ratio));
  var x1 = Math.min(w, Math.ceil(right * ratio));
  var y1 = Math.min(h, Math.ceil(bottom * ratio));
  if (!(x1 > x0 && y1 > y0)) return null;
  var box = createObject(null);
  box.x = x0;
  box.y = y0;
  box.width = x1 - x0;
  box.height = y1 - y0;
  return box;
}

/**
 * @param {any} chart the drawn chart
 * @param {number} ratio output pixels per CSS pixel
 * @param {number} width CSS pixels
 * @param {number} height CSS pixels
 * @returns {Record<string, import('../protocol').PartBox>}
 */
function partBoxes(chart, ratio, width, height) {
  var out = createObject(null);
  var count = 0;
  var w = Math.floor(width * ratio);
  var h = Math.floor(height * ratio);
  /** @param {string} name @param {unknown} b */
  function add(name, b) {
    if (count >= MAX_PARTS || apply(hasOwn, out, [name])) return;
    var box = partBox(b, ratio, w, h);
    if (box !== null) {
      out[name] = box;
      count++;
    }
  }
  /** @param {any} b */
  function shown(b) {
    return field(field(b, 'options'), 'display') !== false;
  }
  try {
    add('chartArea', field(chart, 'chartArea'));
    var title = field(chart, 'titleBlock');
    if (title && shown(title)) add('title', title);
    var legend = field(chart, 'legend');
    if (legend && shown(legend)) add('legend', legend);
    var boxes = field(chart, 'boxes');
    var scales = field(chart, 'scales');
    if (Array.isArray(boxes)) {
      for (var i = 0; i < boxes.length && i < 256; i++) {
        var b = field(boxes, /** @type {any} */ (i));
        if (!b || b === title || b === legend) continue;
        var id = field(b, 'id');
        if (typeof id === 'string' && id.length <= 100 && field(scales, id) === b) {
          if (shown(b)) add(id, b);
        } else if (title && field(b, 'constructor') === field(title, 'constructor') && shown(b)) {
          // the subtitle plugin lays out a second box of the title's class (Chart.js 3.5 on)
          add('subtitle', b);
        }
      }
    }
  } catch (e) {
    /* caller code replaced a layout object with something that throws: the parts read so far */
  }
  return out;
}
