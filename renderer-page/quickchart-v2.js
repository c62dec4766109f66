// QuickChart's own Chart.js 2 plugins, which its hosted service has and its open-source server does
// not: tickFormat (tick labels through Intl.NumberFormat, with a prefix and suffix) and roundedBars
// (bars with rounded corners). Written from QuickChart's documentation; quickchart.js attaches them
// to the charts whose config names them. Why and what was assumed: docs/decisions/0024-*.md.
(function () {
  'use strict';
  var Chart = window.Chart;
  if (!Chart || typeof Chart.register === 'function') return; // Chart.js 2 only

  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  // ---- tickFormat ----------------------------------------------------------------------------
  // Options that are the plugin's own; every other one goes to Intl.NumberFormat, as documented
  var OWN = { locale: 1, prefix: 1, suffix: 1, applyToDataLabels: 1, enabled: 1 };
  var NUMERIC_SCALES = { linear: 1, logarithmic: 1, radialLinear: 1 };

  function affix(v) {
    return v === undefined || v === null ? '' : String(v).slice(0, 100);
  }

  /** A formatter for the tickFormat options: prefix + Intl.NumberFormat(locale, rest) + suffix.
   *  Bad options (an unknown currency, style or locale) throw here, as a render error. */
  function numberFormatter(opts) {
    var locale = typeof opts.locale === 'string' && opts.locale.length <= 64 ? opts.locale : 'en-US';
    var nf = {};
    Object.keys(opts).forEach(function (k) {
      var v = opts[k];
      if (OWN[k] || (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')) return;
      nf[k] = v;
    });
    var fmt;
    try {
      fmt = new Intl.NumberFormat(locale, nf);
    } catch (e) {
      throw new Error('options.plugins.tickFormat: ' + (e && e.message ? e.message : 'invalid options'));
    }
    var prefix = affix(opts.prefix);
    var suffix = affix(opts.suffix);
    return function (value) {
      var n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!isFinite(n)) return value;
      return prefix + fmt.format(n) + suffix;
    };
  }

  function isDefaultTickCallback(cb) {
    var f = Chart.Ticks && Chart.Ticks.formatters;
    return !!f && (cb === f.values || cb === f.linear || cb === f.logarithmic);
  }

  /** The plugin for one chart: numeric scales whose tick callback is Chart.js's own get the format
   *  (a tick Chart.js's formatter leaves blank, as minor logarithmic ticks, stays blank). */
  function tickFormatPlugin(opts) {
    var format = numberFormatter(opts);
    return {
      id: 'chartshotTickFormat',
      beforeInit: function (chart) {
        var o = chart.options;
        var scales = isObject(o.scales) ? o.scales : {};
        var list = [].concat(Array.isArray(scales.xAxes) ? scales.xAxes : [], Array.isArray(scales.yAxes) ? scales.yAxes : []);
        if (isObject(o.scale)) list.push(o.scale);
        list.forEach(function (s) {
          if (!isObject(s) || !NUMERIC_SCALES[s.type] || !isObject(s.ticks)) return;
          var original = s.ticks.callback;
          if (!isDefaultTickCallback(original)) return;
          s.ticks.callback = function (value) {
            var shown = original.apply(this, arguments);
            return shown === '' || shown === null || shown === undefined ? shown : format(value);
          };
        });
      },
    };
  }

  // ---- roundedBars ---------------------------------------------------------------------------
  /** A rounded rectangle path: each corner its own radius (tl, tr, br, bl). */
  function roundedRect(ctx, left, top, right, bottom, r) {
    ctx.beginPath();
    ctx.moveTo(left + r[0], top);
    ctx.lineTo(right - r[1], top);
    ctx.arcTo(right, top, right, top + r[1], r[1]);
    ctx.lineTo(right, bottom - r[2]);
    ctx.arcTo(right, bottom, right - r[2], bottom, r[2]);
    ctx.lineTo(left + r[3], bottom);
    ctx.arcTo(left, bottom, left, bottom - r[3], r[3]);
    ctx.lineTo(left, top + r[0]);
    ctx.arcTo(left, top, left + r[0], top, r[0]);
    ctx.closePath();
  }

  /** Draws a Chart.js 2 bar (a Rectangle element, `this`) with rounded corners: those at its value
   *  end, or all four with allCorners. The radius is at most half the bar's thickness and its length. */
  function drawRounded(radius, allCorners) {
    return function () {
      var vm = this._view;
      var ctx = this._chart.ctx;
      var vertical = vm.width !== undefined;
      var left, right, top, bottom, r;
      if (vertical) {
        left = vm.x - vm.width / 2;
        right = vm.x + vm.width / 2;
        top = Math.min(vm.y, vm.base);
        bottom = Math.max(vm.y, vm.base);
      } else {
        left = Math.min(vm.x, vm.base);
        right = Math.max(vm.x, vm.base);
        top = vm.y - vm.height / 2;
        bottom = vm.y + vm.height / 2;
      }
      var bw = Math.max(0, Math.min(Number(vm.borderWidth) || 0, (right - left) / 2, (bottom - top) / 2));
      // the border is drawn inside the bar, as Chart.js 2 draws it
      left += bw / 2;
      right -= bw / 2;
      top += bw / 2;
      bottom -= bw / 2;
      var rad = Math.max(0, Math.min(radius, (right - left) / 2, (bottom - top) / 2));
      if (allCorners) r = [rad, rad, rad, rad];
      else if (vertical) r = vm.y <= vm.base ? [rad, rad, 0, 0] : [0, 0, rad, rad];
      else r = vm.x >= vm.base ? [0, rad, rad, 0] : [rad, 0, 0, rad];
      ctx.save();
      roundedRect(ctx, left, top, right, bottom, r);
      ctx.fillStyle = vm.backgroundColor;
      ctx.fill();
      if (bw > 0) {
        ctx.lineWidth = bw;
        ctx.strokeStyle = vm.borderColor;
        ctx.stroke();
      }
      ctx.restore();
    };
  }

  /** The plugin for one chart: its bars' elements draw themselves rounded (an own property of each
   *  element, so other charts and the prototype keep Chart.js's drawing). */
  function roundedBarsPlugin(opts) {
    var radius = isObject(opts) && typeof opts.cornerRadius === 'number' && isFinite(opts.cornerRadius) ? Math.max(0, opts.cornerRadius) : Infinity;
    var draw = drawRounded(radius, isObject(opts) && opts.allCorners === true);
    return {
      id: 'chartshotRoundedBars',
      beforeDatasetsDraw: function (chart) {
        for (var i = 0; i < chart.data.datasets.length; i++) {
          var meta = chart.getDatasetMeta(i);
          if (!meta || !meta.bar || !Array.isArray(meta.data)) continue;
          for (var j = 0; j < meta.data.length; j++) {
            if (meta.data[j] instanceof Chart.elements.Rectangle) meta.data[j].draw = draw;
          }
        }
      },
    };
  }

  /**
   * The plugins a Chart.js 2 config asks for under options.plugins (tickFormat, roundedBars), made
   * for it; the tickFormat formatter also replaces the data labels' when applyToDataLabels.
   */
  function pluginsFor(cfg) {
    var out = [];
    var p = isObject(cfg.options) && isObject(cfg.options.plugins) ? cfg.options.plugins : null;
    if (!p) return out;
    if (isObject(p.tickFormat) && p.tickFormat.enabled !== false) {
      out.push(tickFormatPlugin(p.tickFormat));
      if (p.tickFormat.applyToDataLabels === true) {
        var format = numberFormatter(p.tickFormat);
        if (!isObject(p.datalabels)) p.datalabels = {};
        p.datalabels.formatter = function (value) {
          return format(isObject(value) ? (value.y !== undefined ? value.y : value.r) : value);
        };
      }
    }
    if (p.roundedBars === true || isObject(p.roundedBars)) out.push(roundedBarsPlugin(p.roundedBars));
    return out;
  }

  window.ChartshotQuickChartV2 = Object.freeze({ pluginsFor: pluginsFor, numberFormatter: numberFormatter });
})();
