// QuickChart's conventions, so that its URLs draw the same here: the defaults and special chart
// types it gives Chart.js 2 configs, and the helpers a JavaScript config may call (gradients, patterns).
(function () {
  'use strict';
  // tableau.Tableau10 of chartjs-plugin-colorschemes, QuickChart's palette
  var TABLEAU10 = ['#4E79A7', '#F28E2B', '#E15759', '#76B7B2', '#59A14F', '#EDC948', '#B07AA1', '#FF9DA7', '#9C755F', '#BAB0AC'];
  var SCHEMES = { 'tableau.Tableau10': TABLEAU10 };
  var ROUND = { pie: 1, doughnut: 1, polarArea: 1, outlabeledPie: 1, outlabeledDoughnut: 1 };
  var AXES = { bar: 1, horizontalBar: 1, line: 1, scatter: 1, bubble: 1 };
  var PALETTE = { bar: 1, horizontalBar: 1, line: 1, scatter: 1, bubble: 1, radar: 1, pie: 1, doughnut: 1, polarArea: 1, outlabeledPie: 1, outlabeledDoughnut: 1 };

  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }
  function datasetsOf(cfg) {
    return isObject(cfg.data) && Array.isArray(cfg.data.datasets) ? cfg.data.datasets.filter(isObject) : [];
  }

  /** As the deepmerge package merges (QuickChart uses it): objects key by key, arrays concatenated,
   *  the second argument's scalars win. */
  function merge(a, b) {
    if (Array.isArray(a) && Array.isArray(b)) return a.concat(b);
    if (!isObject(a) || !isObject(b)) return b;
    var out = {};
    Object.keys(a).forEach(function (k) { out[k] = a[k]; });
    Object.keys(b).forEach(function (k) {
      out[k] = Object.prototype.hasOwnProperty.call(out, k) ? merge(out[k], b[k]) : b[k];
    });
    return out;
  }

  function sparkline(cfg) {
    var datasets = datasetsOf(cfg);
    if (datasets.length < 1) throw new Error('"sparkline" requires 1 dataset');
    cfg.type = 'line';
    var series = Array.isArray(datasets[0].data) ? datasets[0].data : [];
    if (!cfg.data.labels) cfg.data.labels = new Array(series.length);
    var o = cfg.options;
    o.legend = o.legend || { display: false };
    if (!isObject(o.elements)) o.elements = {};
    o.elements.line = o.elements.line || { borderColor: '#000', borderWidth: 1 };
    o.elements.point = o.elements.point || { radius: 0 };
    if (!isObject(o.scales)) o.scales = {};
    var min = Infinity;
    var max = -Infinity;
    for (var i = 0; i < series.length; i++) {
      min = Math.min(min, series[i]);
      max = Math.max(max, series[i]);
    }
    o.scales.xAxes = o.scales.xAxes || [{ display: false }];
    // a margin of 5% so that the extremes are not shaved off
    o.scales.yAxes = o.scales.yAxes || [{ display: false, ticks: { min: min - min * 0.05, max: max + max * 0.05 } }];
  }

  function progressBar(cfg) {
    var datasets = cfg.data.datasets;
    if (!Array.isArray(datasets) || datasets.length < 1 || datasets.length > 2 || !datasets.every(isObject)) {
      throw new Error('progressBar chart requires 1 or 2 datasets');
    }
    cfg.type = 'horizontalBar';
    var n = Array.isArray(datasets[0].data) ? datasets[0].data.length : 0;
    // one dataset: a share of 100
    var percent = datasets.length === 1;
    if (percent) datasets.push({ data: new Array(n).fill(100) });
    if (!Array.isArray(datasets[1].data) || datasets[1].data.length !== n) {
      throw new Error('progressBar datasets must have the same size of data');
    }
    var labels = [];
    for (var i = 0; i < n; i++) labels.push(i);
    cfg.data.labels = cfg.labels || labels;
    var track = datasets[1];
    track.backgroundColor = track.backgroundColor || '#fff';
    track.borderColor = track.borderColor || '#4e78a7';
    track.borderWidth = track.borderWidth || 1;
    var hidden = { display: false, drawTicks: false };
    cfg.options = merge(
      {
        legend: { display: false },
        scales: {
          xAxes: [{ ticks: { display: false, beginAtZero: true }, gridLines: hidden }],
          yAxes: [{ stacked: true, ticks: { display: false }, gridLines: { display: false, drawTicks: false, mirror: true } }],
        },
        plugins: {
          datalabels: {
            color: '#fff',
            formatter: function (v) { return percent ? v + '%' : v; },
            display: function (ctx) { return ctx.datasetIndex === 0; },
          },
        },
      },
      cfg.options,
    );
  }

  function rgba(color, alpha) {
    var helpers = window.Chart && window.Chart.helpers;
    if (helpers && typeof helpers.color === 'function') return helpers.color(color).alpha(alpha).rgbString();
    return color;
  }

  /** A scheme by name ('tableau.Tableau10') from the colorschemes package's tables (the v2 page
   *  loads them), or a list of colours as given. */
  function schemeOf(name) {
    if (Array.isArray(name)) return name;
    if (typeof name !== 'string') return null;
    // the package's own backward-compatible names
    var m = /^(brewer\.\w+)([1-3])-(\d+)$/.exec(name);
    if (m) name = m[1] + ['One', 'Two', 'Three'][m[2] - 1] + m[3];
    else if (name === 'office.Office2007-2010-6') name = 'office.OfficeClassic6';
    var tables = window.Chart && window.Chart.colorschemes;
    var parts = name.split('.');
    var hasOwn = Object.prototype.hasOwnProperty;
    if (isObject(tables) && parts.length === 2 && hasOwn.call(tables, parts[0]) && hasOwn.call(tables[parts[0]], parts[1])) return tables[parts[0]][parts[1]];
    return SCHEMES[name] || null;
  }

  /** As QuickChart's fork of chartjs-plugin-colorschemes colours a chart (at beforeUpdate, before
   *  anything is drawn): per dataset by its index; per data point on doughnut, pie and polarArea;
   *  on line, radar and scatter the points too, but only where the border colour was unset; only
   *  what the dataset leaves unset, unless `override`. Options default as the plugin's do. */
  function palette(cfg, opts) {
    var scheme = schemeOf(opts.scheme === undefined ? 'brewer.Paired12' : opts.scheme);
    if (!Array.isArray(scheme)) return;
    if (typeof opts.custom === 'function') {
      var clone = scheme.slice();
      var custom = opts.custom(clone);
      if (Array.isArray(custom) && custom.length) scheme = custom;
      else if (Array.isArray(clone) && clone.length) scheme = clone;
    }
    if (scheme.length === 0) return;
    var alpha = opts.fillAlpha === undefined ? 0.5 : opts.fillAlpha;
    var reverse = !!opts.reverse;
    var override = !!opts.override;
    var len = scheme.length;
    function pick(i) {
      var k = i % len;
      return scheme[reverse ? len - k - 1 : k];
    }
    function unset(ds, key) {
      return ds[key] === undefined || override;
    }
    cfg.data.datasets.forEach(function (ds, i) {
      if (!isObject(ds)) return;
      var color = pick(i);
      switch (ds.type || cfg.type) {
        case 'line':
        case 'radar':
        case 'scatter':
          if (unset(ds, 'backgroundColor')) ds.backgroundColor = rgba(color, alpha);
          if (unset(ds, 'borderColor')) {
            ds.borderColor = color;
            if (unset(ds, 'pointBackgroundColor')) ds.pointBackgroundColor = rgba(color, alpha);
            if (unset(ds, 'pointBorderColor')) ds.pointBorderColor = color;
          }
          break;
        case 'doughnut':
        case 'pie':
        case 'polarArea':
          if (unset(ds, 'backgroundColor') && Array.isArray(ds.data)) ds.backgroundColor = ds.data.map(function (_, j) { return pick(j); });
          break;
        default:
          if (unset(ds, 'backgroundColor')) ds.backgroundColor = color;
      }
    });
  }

  /** The colorschemes options a chart gets: its own when it names the plugin (any type), else
   *  tableau.Tableau10 on the types QuickChart gives it to; null for none. */
  function paletteOptions(cfg) {
    var plugins = cfg.options.plugins;
    var own = isObject(plugins) ? plugins.colorschemes : undefined;
    if (own === false) return null;
    if (isObject(own)) return own;
    return PALETTE[cfg.type] ? { scheme: 'tableau.Tableau10' } : null;
  }

  /** The v2 plugins the page took back (v2-plugins.js), by id. */
  function v2Plugin(id) {
    var all = window.ChartshotV2Plugins;
    return all && Object.prototype.hasOwnProperty.call(all, id) ? all[id] : null;
  }

  /**
   * QuickChart's treatment of a Chart.js 2 config, in place: special types (sparkline,
   * progressBar, donut), the palette, straight lines, axes from zero, data labels on pie and
   * doughnut only, outlabels off unless asked for. Returns which optional plugins it needs.
   */
  function applyV2(cfg) {
    if (!isObject(cfg.options)) cfg.options = {};
    if (!isObject(cfg.data)) cfg.data = {};
    if (cfg.type === 'donut') cfg.type = 'doughnut';
    if (cfg.type === 'sparkline') sparkline(cfg);
    if (cfg.type === 'progressBar') progressBar(cfg);
    var o = cfg.options;
    var type = cfg.type;
    if (AXES[type] && !o.scales) o.scales = { yAxes: [{ ticks: { beginAtZero: true } }] };
    var schemeOpts = paletteOptions(cfg);
    if (schemeOpts && Array.isArray(cfg.data.datasets)) palette(cfg, schemeOpts);
    var datasets = datasetsOf(cfg);
    if (type === 'line') datasets.forEach(function (ds) { ds.lineTension = ds.lineTension || 0; });
    if (!isObject(o.plugins)) o.plugins = {};
    var labelDefaults = !o.plugins.datalabels;
    if (labelDefaults) o.plugins.datalabels = { display: type === 'pie' || type === 'doughnut' };
    var outlabels = type === 'outlabeledPie' || type === 'outlabeledDoughnut';
    if (ROUND[type] || type === 'radialGauge') {
      var asked = false;
      datasets.forEach(function (ds) {
        if (ds.outlabels || o.plugins.outlabels) asked = true;
        else ds.outlabels = { display: false };
      });
      // outlabels asked for: data labels stay off unless asked for too
      if (asked && labelDefaults) o.plugins.datalabels = { display: false };
      outlabels = outlabels || asked;
    }
    // QuickChart's hosted plugins (quickchart-v2.js) and chartjs-plugin-error-bars, when asked for
    var extra = window.ChartshotQuickChartV2 ? window.ChartshotQuickChartV2.pluginsFor(cfg) : [];
    var errorBars = v2Plugin('chartJsPluginErrorBars');
    if (errorBars && datasets.some(function (ds) { return isObject(ds.errorBars); })) extra.push(errorBars);
    return { outlabels: outlabels, doughnutlabel: isObject(o.plugins.doughnutlabel), annotation: isObject(o.annotation), extra: extra };
  }

  // ---- helpers of JavaScript configs ---------------------------------------------------------
  var probeCtx = null;
  /** The 2D context to create a gradient or pattern with: the chart's own when the scriptable
   *  context names it (an SVG render needs its own kind of gradient), else a scratch canvas. */
  function contextOf(scriptable) {
    var chart = scriptable && scriptable.chart;
    if (chart && chart.ctx && typeof chart.ctx.createLinearGradient === 'function') return chart.ctx;
    if (!probeCtx) probeCtx = document.createElement('canvas').getContext('2d');
    return probeCtx;
  }

  function finite(v, d) {
    return typeof v === 'number' && isFinite(v) ? v : d;
  }

  // A small set of patternomaly's shapes, drawn on a square tile of `size` pixels.
  var SHAPES = {
    line: function (c, s) { c.fillRect(0, s / 2 - s / 20, s, s / 10); },
    'line-vertical': function (c, s) { c.fillRect(s / 2 - s / 20, 0, s / 10, s); },
    diagonal: function (c, s) { stroke(c, s, [[0, s, s, 0], [-s / 2, s / 2, s / 2, -s / 2], [s / 2, s * 1.5, s * 1.5, s / 2]]); },
    'diagonal-right-left': function (c, s) { stroke(c, s, [[0, 0, s, s], [-s / 2, s / 2, s / 2, s * 1.5], [s / 2, -s / 2, s * 1.5, s / 2]]); },
    plus: function (c, s) { c.fillRect(s / 2 - s / 20, s / 4, s / 10, s / 2); c.fillRect(s / 4, s / 2 - s / 20, s / 2, s / 10); },
    cross: function (c, s) { stroke(c, s, [[s / 4, s / 4, s * 3 / 4, s * 3 / 4], [s * 3 / 4, s / 4, s / 4, s * 3 / 4]]); },
    dash: function (c, s) { c.fillRect(s / 4, s / 2 - s / 20, s / 2, s / 10); },
    dot: function (c, s) { circle(c, s / 2, s / 2, s / 10, true); },
    disc: function (c, s) { circle(c, s / 2, s / 2, s / 4, true); },
    ring: function (c, s) { circle(c, s / 2, s / 2, s / 4, false); },
    square: function (c, s) { c.fillRect(s / 4, s / 4, s / 2, s / 2); },
    box: function (c, s) { c.lineWidth = s / 10; c.strokeRect(s / 4, s / 4, s / 2, s / 2); },
    triangle: function (c, s) { poly(c, [[s / 2, s / 4], [s * 3 / 4, s * 3 / 4], [s / 4, s * 3 / 4]]); },
    'triangle-inverted': function (c, s) { poly(c, [[s / 4, s / 4], [s * 3 / 4, s / 4], [s / 2, s * 3 / 4]]); },
    diamond: function (c, s) { poly(c, [[s / 2, s / 4], [s * 3 / 4, s / 2], [s / 2, s * 3 / 4], [s / 4, s / 2]]); },
    zigzag: function (c, s) { stroke(c, s, [[0, s / 2, s / 4, s / 4, s / 2, s / 2, s * 3 / 4, s / 4, s, s / 2]]); },
    'zigzag-vertical': function (c, s) { stroke(c, s, [[s / 2, 0, s / 4, s / 4, s / 2, s / 2, s / 4, s * 3 / 4, s / 2, s]]); },
    weave: function (c, s) { stroke(c, s, [[0, 0, s / 2, s / 2], [s / 2, 0, s, s / 2], [s / 4, s * 3 / 4, 0, s], [s * 3 / 4, s * 3 / 4, s / 2, s]]); },
  };
  function stroke(c, s, lines) {
    c.lineWidth = s / 10;
    c.lineCap = 'square';
    c.beginPath();
    lines.forEach(function (l) {
      c.moveTo(l[0], l[1]);
      for (var i = 2; i < l.length; i += 2) c.lineTo(l[i], l[i + 1]);
    });
    c.stroke();
  }
  function circle(c, x, y, r, fill) {
    c.lineWidth = r / 3;
    c.beginPath();
    c.arc(x, y, r, 0, 2 * Math.PI);
    if (fill) c.fill();
    else c.stroke();
  }
  function poly(c, points) {
    c.beginPath();
    c.moveTo(points[0][0], points[0][1]);
    for (var i = 1; i < points.length; i++) c.lineTo(points[i][0], points[i][1]);
    c.closePath();
    c.fill();
  }

  /** The helpers a JavaScript config may call, for a chart of width x height: each returns a
   *  scriptable option (a function Chart.js calls with its context), as QuickChart's do. */
  function helpers(width, height) {
    function getGradientFill(colorOptions, linearGradient) {
      var line = Array.isArray(linearGradient) ? linearGradient : [0, 0, width, 0];
      var stops = Array.isArray(colorOptions) ? colorOptions.slice(0, 64) : [];
      return function (scriptable) {
        var g = contextOf(scriptable).createLinearGradient(finite(line[0], 0), finite(line[1], 0), finite(line[2], 0), finite(line[3], 0));
        stops.forEach(function (s) {
          if (isObject(s)) g.addColorStop(Math.min(1, Math.max(0, finite(s.offset, 0))), String(s.color));
        });
        return g;
      };
    }
    function getGradientFillHelper(direction, colors, dimensions) {
      var list = Array.isArray(colors) ? colors : [];
      var dims = isObject(dimensions) ? dimensions : {};
      var stops = list.map(function (color, i) { return { color: color, offset: i / (list.length - 1 || 1) }; });
      var w = dims.width || width;
      var h = dims.height || height;
      var line = direction === 'vertical' ? [0, 0, 0, h] : direction === 'both' ? [0, 0, w, h] : [0, 0, w, 0];
      return getGradientFill(stops, line);
    }
    var pattern = {
      draw: function (shapeType, backgroundColor, patternColor, requestedSize) {
        return function (scriptable) {
          var size = Math.max(2, Math.round(Math.min(200, finite(requestedSize, 20)) || 20));
          var tile = document.createElement('canvas');
          tile.width = size;
          tile.height = size;
          var c = tile.getContext('2d');
          c.fillStyle = backgroundColor === undefined ? 'rgba(100, 100, 100, 0.7)' : String(backgroundColor);
          c.fillRect(0, 0, size, size);
          c.fillStyle = patternColor === undefined ? 'rgba(255, 255, 255, 0.8)' : String(patternColor);
          c.strokeStyle = c.fillStyle;
          (SHAPES[shapeType] || SHAPES.square)(c, size);
          return contextOf(scriptable).createPattern(tile, 'repeat');
        };
      },
    };
    return { getGradientFill: getGradientFill, getGradientFillHelper: getGradientFillHelper, pattern: pattern };
  }

  window.ChartshotQuickChart = Object.freeze({ applyV2: applyV2, helpers: helpers, TABLEAU10: TABLEAU10.slice() });
})();
