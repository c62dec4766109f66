// @ts-check
// ---- per-chart plugins -------------------------------------------------------------------
var probe = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
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
          // whatever transform the chart (or caller code) left, in CSS pixels at the chart's
          // device pixel ratio: an identity here drew it mid-image at ratio 2
          var ratio = chart.currentDevicePixelRatio || 1;
          ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
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

/**
 * @param {any} cfg
 * @param {any} req
 * @param {number} ratio
 * @param {any} images
 * @param {{ impure: boolean }} st the render's state: impure when the page must be reset after it
 */
function prepare(cfg, req, ratio, images, st) {
  // QuickChart's defaults and special types, for the Chart.js 2 configs its users send
  var wants = MAJOR === 2 ? QuickChart.applyV2(cfg) : null;
  if (cfg.type === 'donut') cfg.type = 'doughnut';
  var sets = isObject(cfg.data) && Array.isArray(cfg.data.datasets) ? cfg.data.datasets : [];
  // no top-level type: Chart.js draws each dataset with its own (a mixed chart)
  var typeless = cfg.type === undefined && sets.length > 0 && sets.every(function (ds) { return isObject(ds) && ds.type !== undefined; });
  if (!typeless) checkType(cfg.type, '');
  sets.forEach(function (ds, i) {
    if (isObject(ds) && ds.type !== undefined) checkType(ds.type, ' in dataset ' + i);
  });
  delete cfg.platform; // chosen by the harness, never by the config
  if (!isObject(cfg.options)) cfg.options = {};
  var o = cfg.options;
  o.responsive = false;
  o.animation = false;
  o.devicePixelRatio = ratio;
  // Chart.js 3 and 4 format numbers with Intl in options.locale, caching each formatter page-wide
  // by that locale: left undefined, the first render's default locale would format every later
  // render's ticks. The request's locale (the page's own, emulated) unless the config names one.
  if (MAJOR >= 3 && o.locale === undefined && typeof req.locale === 'string') o.locale = req.locale;
  // a static image never receives an event: no listeners bound on the canvas and unbound at
  // destroy (addEventListener + removeEventListener were 3% of the renderer's main thread)
  o.events = [];
  // Chart.js skips a plugin whose options.plugins.<id> is false: the page's own (budgets, watermark,
  // background) must not be turned off by a config, so their ids are left out of a plain copy
  if (isObject(o.plugins)) {
    var own = {};
    Object.keys(o.plugins).forEach(function (id) {
      if (id.indexOf('chartshot') !== 0) own[id] = o.plugins[id];
    });
    o.plugins = own;
  }
  var plugins = Array.isArray(cfg.plugins) ? cfg.plugins.filter(isObject) : [];
  // Chart.js 3 and 4 keep each plugin's option scopes for the whole page, by chart type and plugin
  // id, as the first plugin of that id gave them; chartjs-plugin-annotation and treemaps keep the
  // sizes of the labels they measured. Caches like these start empty at every render (state.js),
  // so a caller's plugin objects and labels decide nothing for the next render.
  if (DataLabels && wantsDataLabels(cfg)) plugins.push(DataLabels);
  if (wants) {
    if (wants.annotation && V2_PLUGINS.annotation) plugins.push(V2_PLUGINS.annotation);
    if (wants.outlabels && V2_PLUGINS.outlabels) plugins.push(V2_PLUGINS.outlabels);
    if (wants.doughnutlabel && V2_PLUGINS.doughnutlabel) plugins.push(V2_PLUGINS.doughnutlabel);
    // QuickChart's hosted plugins and error bars (quickchart.js, quickchart-v2.js)
    if (Array.isArray(wants.extra)) plugins.push.apply(plugins, wants.extra);
  }
  if (req.backgroundColor !== null && req.backgroundColor !== undefined) {
    if (typeof req.backgroundColor !== 'string' || !isColor(req.backgroundColor)) {
      throw new Error('invalid backgroundColor');
    }
    plugins.unshift(backgroundPlugin(req.backgroundColor));
  }
  if (typeof req.watermark === 'string' && req.watermark.length) {
    plugins.push(watermarkPlugin(req.watermark.slice(0, MAX_WATERMARK)));
  }
  // QuickChart's backgroundImageUrl: drawn only from the images the request handed in (images.js)
  var bgUrl = isObject(o.plugins) ? o.plugins.backgroundImageUrl : undefined;
  if (images && images.list) {
    plugins.splice(plugins.length > 0 && plugins[0].id === 'chartshotBackground' ? 1 : 0, 0, Images.plugin(images.list));
  } else if (bgUrl !== undefined && bgUrl !== null && bgUrl !== '') {
    throw new Error('backgroundImageUrl is drawn only on the QuickChart routes (/chart) from a JSON config: the server fetches its URL (hosts in REMOTE_IMAGES_ALLOW) or takes a data:image URL');
  }
  var budget = Budgets.plugin();
  if (budget) plugins.push(budget);
  cfg.plugins = plugins;
}
