// The renderer page's API (window.chartshot), called from Node through CDP with one plain-data
// request per render. Why it is built this way: docs/decisions/0002-function-string-sandbox.md.
(function () {
  'use strict';
  var Chart = window.Chart;
  // The same harness serves each Chart.js major version (harness.html: 4, harness3.html, harness2.html)
  // (Chart.js 2 has no Chart.version, nor Chart.register)
  var MAJOR = !Chart ? 0 : typeof Chart.register !== 'function' ? 2 : parseInt(Chart.version, 10);
  // Chart.js 2 plugins, taken back from global registration by v2-plugins.js
  var V2_PLUGINS = MAJOR === 2 ? window.ChartshotV2Plugins || {} : null;
  var DataLabels = V2_PLUGINS ? V2_PLUGINS.datalabels : window.ChartDataLabels;
  var QuickChart = window.ChartshotQuickChart;
  // ticks, log decades and elements per render (budgets.js); absent: no budgets. Taken off the
  // window so that caller code cannot end a render's budget half-way.
  var Budgets = window.ChartshotBudgets || { begin: function () {}, plugin: function () { return null; }, hit: function () { return null; }, end: function () {} };
  try { delete window.ChartshotBudgets; } catch (e) { /* kept: begin/end still guard each render */ }
  var SvgContext = window.ChartshotSvgContext;
  var serializeSvg = window.ChartshotSerializeSvg;
  var pruneSvg = SvgContext && SvgContext.prototype.__prune;
  // without it every function counts as impure (a reset after each function render)
  var isPure = typeof window.ChartshotIsPure === 'function' ? window.ChartshotIsPure : function () { return false; };
  var MAX_DEPTH = 64;
  // per side of the output image (width or height times the device pixel ratio)
  var MAX_SIDE = 16384;
  var MAX_RATIO = 4;
  // longest JavaScript config text evaluated (its request crossed CDP whole already)
  var MAX_JS_CONFIG = 8 * 1024 * 1024;
  // Used when a request names no limit (the benchmark's floor): MAX_IMAGE_BYTES's default.
  var DEFAULT_MAX_IMAGE_BYTES = 8000 * 8000 * 4 + 1024 * 1024;

  // ---- saved references ----------------------------------------------------------------------
  // Taken at load, before any caller code can run. A function config may replace prototypes,
  // Function.prototype.call, JSON, console...; whatever the harness does after caller code ran
  // (encode the image, measure it, serialise the SVG, build the result) goes through these, so
  // the image always comes from the harness's own canvas or SVG tree.
  var apply = Reflect.apply;
  var createObject = Object.create;
  var getDescriptor = Object.getOwnPropertyDescriptor;
  function getter(proto, name) { return getDescriptor(proto, name).get; }
  var toDataURL = HTMLCanvasElement.prototype.toDataURL;
  var canvasWidth = getter(HTMLCanvasElement.prototype, 'width');
  var canvasHeight = getter(HTMLCanvasElement.prototype, 'height');
  var strSlice = String.prototype.slice;
  var strIndexOf = String.prototype.indexOf;
  var strCharCodeAt = String.prototype.charCodeAt;
  var perfNow = performance.now;
  var perf = performance;
  var jsonParse = JSON.parse;
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

  function now() { return apply(perfNow, perf, []); }
  function charAt(s, i) { return apply(strCharCodeAt, s, [i]); }

  /** A result object without a prototype: nothing caller code put on Object.prototype (a `then`,
   *  a getter) can change what the Node side reads. */
  function outcome(ok) {
    var o = createObject(null);
    o.ok = ok;
    return o;
  }

  // ---- config copy + function revival ------------------------------------------------------
  // `function (a, b) { ... }` / `function name(a) { ... }`
  var FN_RE = /^\s*function\s*(?:[A-Za-z_$][\w$]*)?\s*\(([^()]*)\)\s*\{([\s\S]*)\}\s*$/;
  // `x => ...`, `(a, b) => ...`, `() => { ... }`
  var ARROW_RE = /^\s*(?:([A-Za-z_$][\w$]*)|\(([^()]*)\))\s*=>\s*([\s\S]*?)\s*$/;

  // The Function constructor parses the parameter list and the body separately, so a string
  // like "function(){}), sideEffect(), (function(){}" cannot run anything at revival time.
  // st.impure: set unless pure.js proves the function changes nothing outside its call (then
  // the page needs no reset after this render); judged on exactly the text that is compiled.
  function revive(s, st) {
    if (s.length > 100000) return null;
    var m = FN_RE.exec(s);
    try {
      if (m) {
        var named = new Function(m[1], m[2]);
        if (!isPure(m[1], m[2], false)) st.impure = true;
        return named;
      }
      m = ARROW_RE.exec(s);
      if (!m || !m[3]) return null;
      var params = m[1] !== undefined ? m[1] : m[2];
      var body = m[3];
      var fn = null;
      var pure = false;
      if (body.charAt(0) === '{' && body.charAt(body.length - 1) === '}') {
        try {
          fn = new Function(params, body.slice(1, -1));
          pure = isPure(params, body.slice(1, -1), false);
        } catch (e) { fn = null; }
      }
      if (!fn) {
        fn = new Function(params, 'return (' + body + '\n);');
        pure = isPure(params, body, true);
      }
      if (!pure) st.impure = true;
      // arrow functions have no `this` of their own: bind it as an arrow written at top level would
      return fn.bind(undefined);
    } catch (e) {
      // written as a function (`function (...) {...}`, `(...) => ...`) but not one: the caller
      // meant code, so the render stops with the path of the string (findString) instead of
      // drawing the text where a callback was wanted
      if (st.badFunction === undefined && (FN_RE.test(s) || (m && m[2] !== undefined))) {
        st.badFunction = s;
        st.badFunctionMessage = shortMessage(e);
      }
      return null;
    }
  }

  /** The dotted path of the first string equal to `text` in a config, for an error message. */
  function findString(value, text, depth) {
    if (value === text) return '';
    if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return null;
    var keys = Object.keys(value);
    for (var i = 0; i < keys.length; i++) {
      var sub = findString(value[keys[i]], text, depth + 1);
      if (sub !== null) return (Array.isArray(value) ? '[' + keys[i] + ']' : (depth > 0 ? '.' : '') + keys[i]) + sub;
    }
    return null;
  }

  // Where a string is data, never code: labels and data points stay strings even when they
  // look like an arrow ("Revenue => Profit"). role: 'root' -> 'data' -> 'datasets' ->
  // 'dataset' -> 'text' (no revival below).
  function childRole(role, key) {
    if (role === 'text') return 'text';
    if (role === 'root') return key === 'data' ? 'data' : null;
    if (role === 'data') return key === 'labels' ? 'text' : key === 'datasets' ? 'datasets' : null;
    if (role === 'datasets') return 'dataset';
    if (role === 'dataset') return key === 'data' || key === 'label' ? 'text' : null;
    return null;
  }

  // The config was parsed from JSON in this page (or built by the protocol) for this render
  // alone, so it is cleaned in place: a copy of a 100,000-point dataset cost 8 ms and its garbage.
  // A JavaScript config (st.jsConfig) keeps the functions it built and its strings stay strings.
  function cleanConfig(value, depth, st, role) {
    if (typeof value === 'string') {
      if (st.allowFunctions && !st.jsConfig && role !== 'text' && (value.indexOf('function') !== -1 || value.indexOf('=>') !== -1)) {
        var fn = revive(value, st);
        if (fn) {
          st.ranFunctions = true;
          return fn;
        }
      }
      return value;
    }
    if (value === null || typeof value !== 'object') {
      return typeof value === 'function' && !st.jsConfig ? undefined : value;
    }
    if (depth >= MAX_DEPTH) throw new Error('config is nested deeper than ' + MAX_DEPTH + ' levels');
    var i, v, w;
    if (Array.isArray(value)) {
      var n = value.length;
      for (i = 0; i < n; i++) {
        v = value[i];
        if (typeof v !== 'number') {
          w = cleanConfig(v, depth + 1, st, childRole(role, i));
          if (w !== v) value[i] = w;
        }
      }
      return value;
    }
    var keys = Object.keys(value);
    for (i = 0; i < keys.length; i++) {
      var k = keys[i];
      // an own "__proto__" key of a parsed object is plain data, but no Chart.js merge should see it
      if (k === '__proto__') {
        delete value[k];
        continue;
      }
      v = value[k];
      if (typeof v !== 'number') {
        w = cleanConfig(v, depth + 1, st, childRole(role, k));
        if (w !== v) value[k] = w;
      }
    }
    return value;
  }

  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  // ---- text patches ------------------------------------------------------------------------
  // Template overrides, set after cleanConfig (and after a JavaScript config was evaluated):
  // whoever holds a chart's URL sends them, so they are data only, never revived into code.
  // Objects and arrays on the way are created; an array is padded with empty objects.
  var MAX_PATCHES = 400;
  function patchValue(v) {
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
    if (Array.isArray(v)) {
      return v.map(function (x) {
        if (x === null || typeof x === 'string' || typeof x === 'number') return x;
        throw new Error('a text patch holds only text and numbers');
      });
    }
    throw new Error('a text patch holds only text and numbers');
  }
  function applyPatches(cfg, patches) {
    if (!Array.isArray(patches) || patches.length > MAX_PATCHES) throw new Error('textPatches must be a list of at most ' + MAX_PATCHES);
    for (var i = 0; i < patches.length; i++) {
      var p = patches[i];
      var path = isObject(p) ? p.path : null;
      if (!Array.isArray(path) || path.length < 1 || path.length > 8) throw new Error('a text patch needs a path of 1-8 keys');
      var value = patchValue(p.value);
      var at = cfg;
      for (var j = 0; j < path.length; j++) {
        var k = path[j];
        var index = typeof k === 'number' && Number.isInteger(k) && k >= 0 && k < 1000;
        if (!index && (typeof k !== 'string' || k === '__proto__' || k === 'constructor' || k === 'prototype')) throw new Error('a text patch path holds names and indexes only');
        if (index !== Array.isArray(at)) throw new Error('a text patch path does not fit the config');
        if (index) while (at.length < k) at.push({});
        if (j === path.length - 1) {
          at[k] = value;
          break;
        }
        var next = at[k];
        var wantList = typeof path[j + 1] === 'number';
        if (wantList ? !Array.isArray(next) : !isObject(next)) at[k] = next = wantList ? [] : {};
        at = next;
      }
    }
  }

  // ---- per-chart plugins -------------------------------------------------------------------
  var probe = document.createElement('canvas').getContext('2d');
  function isColor(c) {
    probe.fillStyle = '#000000';
    probe.fillStyle = c;
    if (probe.fillStyle !== '#000000') return true;
    probe.fillStyle = '#ffffff';
    probe.fillStyle = c;
    return probe.fillStyle !== '#ffffff';
  }

  function backgroundPlugin(color) {
    // As in Chart.js's "canvas background" sample: painted behind whatever is already drawn.
    return {
      id: 'chartshotBackground',
      beforeDraw: function (chart) {
        var ctx = chart.ctx;
        ctx.save();
        ctx.globalCompositeOperation = 'destination-over';
        ctx.fillStyle = color;
        ctx.fillRect(0, 0, chart.width, chart.height);
        ctx.restore();
      },
    };
  }

  // The watermark gets a strip of its own at the bottom (a layout box, as the legend and title
  // are), so it never covers an axis label, and a light plate behind dark text, so it reads on
  // any background. Only charts that ask for one get the box: others lay out exactly as before.
  var WATERMARK_FONT = '10px sans-serif';
  var WATERMARK_STRIP = 14;
  function watermarkPlugin(text) {
    // blank text keeps the strip and draws nothing (tests compare against it)
    var shown = text.trim();
    return {
      id: 'chartshotWatermark',
      beforeInit: function (chart) {
        var box = {
          position: 'bottom',
          fullSize: true,
          fullWidth: true, // Chart.js 2's name
          // heavier than the legend (1000) and a bottom title (2000): the outermost box
          weight: 1000000,
          options: {},
          left: 0, top: 0, right: 0, bottom: 0, width: 0, height: 0,
          isHorizontal: function () { return true; },
          update: function (maxWidth, maxHeight) {
            this.width = maxWidth;
            this.height = Math.min(WATERMARK_STRIP, Math.max(0, maxHeight));
            return { width: this.width, height: this.height };
          },
          draw: function () {
            if (!shown || this.height <= 0) return;
            var ctx = chart.ctx;
            ctx.save();
            ctx.setTransform(1, 0, 0, 1, 0, 0);
            ctx.globalAlpha = 1;
            ctx.globalCompositeOperation = 'source-over';
            ctx.font = WATERMARK_FONT;
            var w = Math.ceil(ctx.measureText(shown).width) + 6;
            var right = Math.min(this.right, chart.width) - 2;
            var bottom = Math.min(this.bottom, chart.height) - 1;
            ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
            ctx.fillRect(right - w, bottom - 12, w, 12);
            ctx.fillStyle = 'rgba(0, 0, 0, 0.8)';
            ctx.textAlign = 'right';
            ctx.textBaseline = 'bottom';
            ctx.fillText(shown, right - 3, bottom - 1);
            ctx.restore();
          },
        };
        Chart.layouts.addBox(chart, box);
      },
    };
  }

  function labelsOn(opts) {
    return isObject(opts) && opts.display !== false;
  }

  // chartjs-plugin-datalabels labels every point once registered, so it is attached to a chart
  // only when its config asks for labels (chart-level or dataset-level datalabels options).
  function wantsDataLabels(cfg) {
    var plugins = cfg.options.plugins;
    var chartLevel = isObject(plugins) && labelsOn(plugins.datalabels);
    var datasets = isObject(cfg.data) && Array.isArray(cfg.data.datasets) ? cfg.data.datasets : [];
    var datasetLevel = datasets.some(function (ds) { return isObject(ds) && labelsOn(ds.datalabels); });
    if (!chartLevel && datasetLevel) {
      // only the datasets that configured labels get them
      datasets.forEach(function (ds) {
        if (!isObject(ds)) return;
        if (!isObject(ds.datalabels)) ds.datalabels = { display: false };
        else if (!('display' in ds.datalabels)) ds.datalabels.display = true;
      });
    }
    return chartLevel || datasetLevel;
  }

  function checkType(type, where) {
    var items = MAJOR === 2 ? Chart.controllers : Chart.registry && Chart.registry.controllers && Chart.registry.controllers.items;
    if (typeof type !== 'string' || !items || !Object.prototype.hasOwnProperty.call(items, type)) {
      var shown = typeof type === 'string' ? '"' + type.slice(0, 40) + '"' : typeof type;
      throw new Error('unsupported chart type ' + shown + where);
    }
  }

  function prepare(cfg, req, ratio) {
    // QuickChart's defaults and special types, for the Chart.js 2 configs its users send
    var wants = MAJOR === 2 ? QuickChart.applyV2(cfg) : null;
    if (cfg.type === 'donut') cfg.type = 'doughnut';
    checkType(cfg.type, '');
    if (isObject(cfg.data) && Array.isArray(cfg.data.datasets)) {
      cfg.data.datasets.forEach(function (ds, i) {
        if (isObject(ds) && ds.type !== undefined) checkType(ds.type, ' in dataset ' + i);
      });
    }
    delete cfg.platform; // chosen by the harness, never by the config
    if (!isObject(cfg.options)) cfg.options = {};
    var o = cfg.options;
    o.responsive = false;
    o.animation = false;
    o.devicePixelRatio = ratio;
    var plugins = Array.isArray(cfg.plugins) ? cfg.plugins.filter(isObject) : [];
    if (DataLabels && wantsDataLabels(cfg)) plugins.push(DataLabels);
    if (wants) {
      if (wants.annotation && V2_PLUGINS.annotation) plugins.push(V2_PLUGINS.annotation);
      if (wants.outlabels && V2_PLUGINS.outlabels) plugins.push(V2_PLUGINS.outlabels);
      if (wants.doughnutlabel && V2_PLUGINS.doughnutlabel) plugins.push(V2_PLUGINS.doughnutlabel);
    }
    if (req.backgroundColor !== null && req.backgroundColor !== undefined) {
      if (typeof req.backgroundColor !== 'string' || !isColor(req.backgroundColor)) {
        throw new Error('invalid backgroundColor');
      }
      plugins.unshift(backgroundPlugin(req.backgroundColor));
    }
    if (typeof req.watermark === 'string' && req.watermark.length) {
      plugins.push(watermarkPlugin(req.watermark.slice(0, 200)));
    }
    var budget = Budgets.plugin();
    if (budget) plugins.push(budget);
    cfg.plugins = plugins;
  }

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

  // A fresh canvas costs about 1.5 ms (backing store) per 800x400 render: the last few sizes
  // keep theirs. ctx.reset() clears the bitmap and every bit of context state, so a reused
  // canvas draws exactly what a new one would (test/integration/fidelity.test.ts,
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
  var KEEP_CANVASES = 3;
  var KEEP_MAX_PIXELS = 4000000;
  var canvases = [];
  var defineProperty = Object.defineProperty;
  var setWidth = getDescriptor(HTMLCanvasElement.prototype, 'width').set;
  var setHeight = getDescriptor(HTMLCanvasElement.prototype, 'height').set;
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
      if (canvases.length > KEEP_CANVASES) canvases.pop();
      return kept.canvas;
    }
    var canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    return canvas;
  }

  var PNG_PREFIX = 'data:image/png;base64,';

  /** Refuses an image over the limit: st.imageBytes tells render() what happened. */
  function checkSize(bytes, st) {
    if (bytes > st.maxImageBytes) {
      st.imageBytes = bytes;
      throw new Error('the image would be ' + bytes + ' bytes; at most ' + st.maxImageBytes);
    }
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
    var url = apply(toDataURL, canvas, ['image/png']);
    if (typeof url !== 'string' || apply(strIndexOf, url, [PNG_PREFIX]) !== 0) throw new Error('the canvas did not encode as PNG');
    // decoded size from the base64 length, before the string is cut or handed back
    var b64 = url.length - PNG_PREFIX.length;
    var pad = b64 > 0 && charAt(url, url.length - 1) === 61 ? (charAt(url, url.length - 2) === 61 ? 2 : 1) : 0;
    checkSize((b64 / 4) * 3 - pad, st);
    return apply(strSlice, url, [PNG_PREFIX.length]);
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

  /**
   * A config given as JavaScript (an object literal, functions and all, as QuickChart clients
   * send it): evaluated here, with QuickChart's helpers in scope. Caller code, as callbacks are:
   * same lockdown, same render deadline, and the page is reset afterwards.
   */
  function evaluateConfig(source, width, height, st) {
    if (!st.allowFunctions) throw new Error('a JavaScript config needs function support');
    if (source.length > MAX_JS_CONFIG) throw new Error('the JavaScript config is over ' + MAX_JS_CONFIG + ' characters');
    st.jsConfig = true;
    st.ranFunctions = true;
    st.impure = true;
    var h = QuickChart.helpers(width, height);
    var make;
    try {
      make = new Function('getGradientFill', 'getGradientFillHelper', 'pattern', 'Chart', 'return (' + source + '\n);');
    } catch (e) {
      throw new Error('the JavaScript config does not parse: ' + shortMessage(e));
    }
    return make(h.getGradientFill, h.getGradientFillHelper, h.pattern, Chart);
  }

  function renderText(req, text, t0) {
    var st = { allowFunctions: false, jsConfig: false, ranFunctions: false, impure: false, maxImageBytes: DEFAULT_MAX_IMAGE_BYTES, imageBytes: 0 };
    var handle = { chart: null, key: null };
    var result;
    try {
      if (!isObject(req)) throw new Error('request must be an object');
      Budgets.begin(req.budget);
      st.allowFunctions = req.allowFunctions === true;
      var limit = req.maxImageBytes;
      if (limit !== undefined && limit !== null) {
        if (typeof limit !== 'number' || !(limit >= 1)) throw new Error('maxImageBytes must be a positive number');
        st.maxImageBytes = limit;
      }
      var width = checkSide(req.width, 'width');
      var height = checkSide(req.height, 'height');
      var format = req.format === undefined ? 'png' : req.format;
      if (format !== 'png' && format !== 'svg') throw new Error('format must be png or svg');
      if (req.chartjs !== undefined && req.chartjs !== null && req.chartjs !== MAJOR) throw new Error('this page draws Chart.js ' + MAJOR);
      var ratio = req.devicePixelRatio === undefined || req.devicePixelRatio === null ? 1 : req.devicePixelRatio;
      if (typeof ratio !== 'number' || !(ratio >= 1 && ratio <= MAX_RATIO)) throw new Error('devicePixelRatio must be a number 1-' + MAX_RATIO);
      // an SVG has no pixels to multiply: it keeps width x height
      if (format === 'svg') ratio = 1;
      if (Math.floor(width * ratio) > MAX_SIDE || Math.floor(height * ratio) > MAX_SIDE) {
        throw new Error('the image would be over ' + MAX_SIDE + ' pixels a side');
      }
      var cfg;
      if (typeof req.configJs === 'string') {
        cfg = cleanConfig(evaluateConfig(req.configJs, width, height, st), 0, st, 'root');
      } else {
        // The Node side sends the config as JSON text (faster through CDP than an object).
        if (text === null) throw new Error('the config could not be inflated');
        var raw = typeof text === 'string' ? apply(jsonParse, JSON, [text]) : req.config;
        cfg = cleanConfig(raw, 0, st, 'root');
        if (st.badFunction !== undefined) {
          var at = findString(cfg, st.badFunction, 0);
          throw new Error('the function string at ' + (at || '(config)') + ' does not parse: ' + st.badFunctionMessage);
        }
      }
      if (!isObject(cfg)) throw new Error('config must be an object');
      if (req.textPatches !== undefined) applyPatches(cfg, req.textPatches);
      prepare(cfg, req, ratio);
      var data = format === 'svg' ? renderSvg(cfg, width, height, handle, st) : renderPng(cfg, width, height, ratio, handle, st);
      // caller code may have caught the budget's error and drawn on: the render is refused all the same
      if (Budgets.hit() !== null) throw new Error(Budgets.hit());
      result = outcome(true);
      result.data = data;
      result.ms = 0;
    } catch (e) {
      result = outcome(false);
      result.error = shortMessage(e);
      if (st.imageBytes > 0) result.imageBytes = st.imageBytes;
      // set by budgets.js itself, never read from the error: caller code cannot claim a budget
      var hit = Budgets.hit();
      if (hit !== null) {
        result.error = hit;
        result.budget = true;
      }
    } finally {
      // destroy() runs caller plugins' hooks: nothing they throw may escape (an exception's
      // description would cross CDP whole)
      try {
        dispose(handle.chart, handle.key);
      } catch (ignored) {
        /* the page is reset after any render that ran caller code */
      }
      Budgets.end();
    }
    // an allocation was refused (even one caller code caught): the render fails with the budget
    if (allocGuard && allocGuard.tripped()) {
      result = outcome(false);
      result.error = allocGuard.message();
      result.memoryBudget = true;
    }
    result.ranFunctions = st.ranFunctions === true;
    // false only when every function of the config was proven pure (pure.js) and the page
    // confirms it kept nothing: no reset needed
    result.needsReset = st.impure === true || (result.ranFunctions && !keptNothing());
    if (result.ok) result.ms = now() - t0;
    return result;
  }

  /** The config text of a deflated request (base64 of raw deflate), or null when it is not one. */
  var atobSaved = window.atob;
  function decodeBase64(b64) {
    if (typeof fromBase64 === 'function') return apply(fromBase64, Uint8Array, [b64]);
    // Chromium before 140 has no Uint8Array.fromBase64
    var bin = apply(atobSaved, window, [b64]);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = charAt(bin, i);
    return out;
  }

  function inflate(b64) {
    var bytes = decodeBase64(b64);
    var stream = apply(pipeThrough, apply(blobStream, new BlobCtor([bytes]), []), [new InflateCtor('deflate-raw')]);
    return apply(responseText, new ResponseCtor(stream), []);
  }

  async function renderDeflated(req, t0) {
    var text = null;
    try {
      text = await inflate(req.configDeflated);
    } catch (e) {
      text = null;
    }
    return renderText(req, text, t0);
  }

  /** A result, or (for a deflated config) a promise of one. */
  function render(req) {
    var t0 = now();
    if (allocGuard) allocGuard.reset(isObject(req) ? req.memoryBudgetMb : undefined);
    if (isObject(req) && typeof req.configDeflated === 'string') return renderDeflated(req, t0);
    return renderText(req, isObject(req) && typeof req.configJson === 'string' ? req.configJson : undefined, t0);
  }

  async function floor(req, n) {
    n = Math.max(1, Math.min(10000, n | 0));
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

  // The renderer page's API, called by the Node side through CDP with one plain-data request:
  //   window.chartshot.render({ configJson | configDeflated | config | configJs, width, height, format: 'png'|'svg',
  //                             backgroundColor, allowFunctions, watermark, maxImageBytes, chartjs, devicePixelRatio, textPatches })
  //     -> { ok: true, data, ms, ranFunctions, needsReset } | { ok: false, error, ranFunctions, needsReset, imageBytes? }
  //   (configJson: the config as JSON text; configDeflated: that text raw-deflated, as base64, and
  //    the answer is then a promise; configJs: JavaScript text evaluated in the page, allowFunctions only)
  //   (textPatches: [{path, value}] set after function revival: values stay data)
  //   (devicePixelRatio 1-4: a PNG is width x ratio by height x ratio pixels; an SVG keeps its size)
  //   (needsReset: caller code ran that might have changed the page: reset it before reuse)
  //   (imageBytes: set when the image would exceed maxImageBytes; the image itself never leaves the page)
  //   (budget: { ticks, elements, logDecades } for this render (budgets.js); the answer then has
  //    budget: true when one of them stopped it, and the error names it)
  //   window.chartshot.floor(req, n) -> { msPerRender, ok }   (in-page cost, for the benchmark)
  var api = Object.freeze({ render: render, floor: floor, version: MAJOR, ready: !!(allocGuard && Chart && SvgContext && serializeSvg && QuickChart && MAJOR >= 2) });
  // read-only, but configurable so that loading the harness again in the same realm still works
  Object.defineProperty(window, 'chartshot', { value: api, writable: false, configurable: true, enumerable: true });
  globalsAtLoad = ownNames(window).length;
})();
