// @ts-check

var PNG_PREFIX = 'data:image/png;base64,';

/** Refuses an image over the limit: st.imageBytes tells render() what happened. */
function checkSize(bytes, st) {
  if (bytes > st.maxImageBytes) {
    st.imageBytes = bytes;
    throw new Error('the image would be ' + bytes + ' bytes; at most ' + st.maxImageBytes);
  }
}

/** { type: 'webp' | 'jpeg', quality: 1-100 } as plain values: they reach toDataURL. */
function checkRaster(r) {
  if (!isObject(r) || (r.type !== 'webp' && r.type !== 'jpeg')) throw new Error('raster.type must be webp or jpeg');
  if (typeof r.quality !== 'number' || !(r.quality >= 1 && r.quality <= 100)) throw new Error('raster.quality must be 1-100');
  return { type: r.type, quality: r.quality };
}

function renderPng(cfg, width, height, ratio, handle, st) {
  var canvas = canvasFor(width, height, ratio);
  if (allocGuard) allocGuard.own(canvas, Math.floor(width * ratio) * Math.floor(height * ratio) * 4);
  handle.key = canvas;
  handle.chart = new Chart(canvas, cfg);
  // caller code may resize the canvas it was given: the image has the size that was asked for
  // (Chart.js scales the backing store by the ratio, rounding down, in every version)
  if (apply(canvasWidth, canvas, []) !== Math.floor(width * ratio) || apply(canvasHeight, canvas, []) !== Math.floor(height * ratio)) {
    throw new Error('the canvas was resized during the render');
  }
  var prefix = PNG_PREFIX;
  var url;
  if (st.raster) {
    // QuickChart's webp and jpg: Chromium's own encoder, quality 0-1 (checkRaster checked it)
    prefix = 'data:image/' + st.raster.type + ';base64,';
    url = apply(toDataURL, canvas, ['image/' + st.raster.type, st.raster.quality / 100]);
  } else {
    url = apply(toDataURL, canvas, ['image/png']);
  }
  if (typeof url !== 'string' || apply(strIndexOf, url, [prefix]) !== 0) throw new Error('the canvas did not encode as ' + prefix);
  // decoded size from the base64 length, before the string is cut or handed back
  var b64 = url.length - prefix.length;
  var pad = b64 > 0 && charAt(url, url.length - 1) === 61 ? (charAt(url, url.length - 2) === 61 ? 2 : 1) : 0;
  checkSize((b64 / 4) * 3 - pad, st);
  return apply(strSlice, url, [prefix.length]);
}

function renderSvg(cfg, width, height, handle, st) {
  var ctx = new SvgContext({ width: width, height: height });
  // the tree to serialise, taken before caller code can swap the context's properties
  var root = ctx.__root;
  // stand-in canvas element: BasicPlatform only needs width/height, a style and getContext
  var stand = {
    width: width,
    height: height,
    style: document.createElement('div').style,
    getContext: function (type) { return type === '2d' ? ctx : null; },
    addEventListener: function () {},
    removeEventListener: function () {},
    // Chart.js 2 reads the size from the attributes (and has no platform option)
    getAttribute: function (name) { return name === 'width' ? String(width) : name === 'height' ? String(height) : null; },
    setAttribute: function () {},
    removeAttribute: function () {},
  };
  ctx.canvas = stand;
  if (MAJOR !== 2) cfg.platform = Chart.BasicPlatform;
  handle.key = stand;
  handle.chart = new Chart(stand, cfg);
  try {
    apply(pruneSvg, ctx, []);
  } catch (e) {
    /* cosmetic (empty groups, unused clips): the serialiser copes with whatever is left */
  }
  var svg = serializeSvg(root, width, height, st.maxImageBytes);
  if (typeof svg !== 'string') checkSize(svg.tooLarge, st);
  return svg;
}
