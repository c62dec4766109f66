// @ts-check
// A fresh canvas costs about 1.5 ms (backing store) per 800x400 render: the sizes drawn last
// keep theirs, as many as fit in KEEP_TOTAL_PIXELS of backing store (64 MB; the least recently
// used size goes first), so traffic in a few dozen sizes reuses them as a peer that keeps a
// canvas per size does. ctx.reset() clears the bitmap and every bit of context state, so a
// reused canvas draws exactly what a new one would (test/integration/fidelity.test.ts,
// fidelity-versions.test.ts). Canvases over 4M output pixels are never kept.
//
// At a device pixel ratio, Chart.js reads the canvas's size (width x height), sets it to the
// scaled size for the render and back on destroy; each change gives the canvas a new backing
// store (1000x600: about 1.2 ms of the 4.7 a render takes in the page). A kept canvas
// therefore keeps its backing store at the scaled size and shows Chart.js the size it would
// have: its own width, height and width/height attributes are kept apart from the backing
// store's, and setting one of them to the size it has anyway (the plain or the scaled one)
// resets the context as a real resize does, without reallocating. Any other size is a real
// resize (caller code resizing the canvas: render() then refuses the image).
var KEEP_CANVASES = 64;
var KEEP_MAX_PIXELS = 4000000;
var KEEP_TOTAL_PIXELS = 16000000;
var canvases = [];
var defineProperty = Object.defineProperty;
var setWidth = /** @type {Function} */ (/** @type {PropertyDescriptor} */ (getDescriptor(HTMLCanvasElement.prototype, 'width')).set);
var setHeight = /** @type {Function} */ (/** @type {PropertyDescriptor} */ (getDescriptor(HTMLCanvasElement.prototype, 'height')).set);
var getContext2d = HTMLCanvasElement.prototype.getContext;
var contextReset = CanvasRenderingContext2D.prototype.reset;
var elementGetAttribute = Element.prototype.getAttribute;
var elementSetAttribute = Element.prototype.setAttribute;
var elementRemoveAttribute = Element.prototype.removeAttribute;

function keptCanvas(width, height, ratio) {
  var canvas = document.createElement('canvas');
  var device = { width: Math.floor(width * ratio), height: Math.floor(height * ratio) };
  var plain = { width: width, height: height };
  var shown = { width: width, height: height };
  // a canvas without an attribute is 300x150
  var unset = { width: 300, height: 150 };
  apply(setWidth, canvas, [device.width]);
  apply(setHeight, canvas, [device.height]);
  var ctx = apply(getContext2d, canvas, ['2d']);
  function size(name, value) {
    var n = Number(value) >>> 0;
    if (n === device[name] || n === plain[name]) {
      shown[name] = n;
      apply(contextReset, ctx, []);
    } else {
      apply(name === 'width' ? setWidth : setHeight, canvas, [value]);
      shown[name] = apply(name === 'width' ? canvasWidth : canvasHeight, canvas, []);
    }
  }
  function sizeAccessor(name) {
    return { get: function () { return shown[name]; }, set: function (v) { size(name, v); }, configurable: false, enumerable: true };
  }
  function isSize(name) { return name === 'width' || name === 'height'; }
  defineProperty(canvas, 'width', sizeAccessor('width'));
  defineProperty(canvas, 'height', sizeAccessor('height'));
  defineProperty(canvas, 'getAttribute', {
    value: function getAttribute(name) {
      return isSize(name) ? '' + shown[name] : apply(elementGetAttribute, canvas, arguments);
    },
  });
  defineProperty(canvas, 'setAttribute', {
    value: function setAttribute(name, value) {
      if (isSize(name)) size(name, value);
      else apply(elementSetAttribute, canvas, arguments);
    },
  });
  defineProperty(canvas, 'removeAttribute', {
    value: function removeAttribute(name) {
      if (isSize(name)) size(name, unset[name]);
      else apply(elementRemoveAttribute, canvas, arguments);
    },
  });
  return {
    canvas: canvas,
    width: width,
    height: height,
    ratio: ratio,
    pixels: device.width * device.height,
    /** Back to width x height, cleared, if the backing store still has the scaled size. */
    renew: function () {
      if (apply(canvasWidth, canvas, []) !== device.width || apply(canvasHeight, canvas, []) !== device.height) return false;
      shown.width = width;
      shown.height = height;
      apply(contextReset, ctx, []);
      return true;
    },
  };
}

function canvasFor(width, height, ratio) {
  for (var i = 0; i < canvases.length; i++) {
    var k = canvases[i];
    if (k.width === width && k.height === height && k.ratio === ratio) {
      canvases.splice(i, 1);
      if (!k.renew()) break;
      canvases.unshift(k);
      return k.canvas;
    }
  }
  if (width * height * ratio * ratio <= KEEP_MAX_PIXELS) {
    var kept = keptCanvas(width, height, ratio);
    canvases.unshift(kept);
    var total = 0;
    for (var j = 0; j < canvases.length; j++) {
      total += canvases[j].pixels;
      // the least recently used go first; the one just made always stays
      if (j > 0 && (total > KEEP_TOTAL_PIXELS || j >= KEEP_CANVASES)) {
        canvases.length = j;
        break;
      }
    }
    return kept.canvas;
  }
  var canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  return canvas;
}
