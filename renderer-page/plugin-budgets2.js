// Per-unit budgets of the Chart.js 2 chart-type plugins, as plugin-budgets4.js has them for 4:
// chartjs-chart-box-and-violin-plot parses every value inside a boxplot/violin item (counted as
// elements, the data points budgets.js limits) and a violin estimates its density at `points`
// samples over all its values (options.elements.violin.points, default 100: nothing else bounds
// it on a keyed render). Checked before Chart.js parses anything (beforeUpdate), with this
// render's limits per caller class (src/render/budgets.ts `units`). Registered globally after
// v2-plugins.js took the others back, so it runs for every chart. Loaded after budgets.js, before
// harness.js. Why: docs/decisions/0028-keyless-quickchart-per-version.md.
(function () {
  'use strict';
  var Chart = window.Chart;
  var B = window.ChartshotBudgets;
  if (!Chart || typeof Chart.register === 'function' || !Chart.plugins || !B || typeof B.units !== 'function') return;
  var isArray = Array.isArray;
  var BOX = { boxplot: 1, horizontalBoxplot: 1, violin: 1, horizontalViolin: 1 };
  var VIOLIN = { violin: 1, horizontalViolin: 1 };

  function isObject(v) {
    return v !== null && typeof v === 'object' && !isArray(v);
  }
  function num(v) {
    return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  }
  function over(value, limit) {
    return typeof limit === 'number' && !(value <= limit);
  }

  /** Values inside one item: an array of numbers, or given stats with their outliers. */
  function itemValues(item) {
    if (isArray(item)) return item.length;
    if (isObject(item)) return (isArray(item.outliers) ? item.outliers.length : 0) + (isArray(item.coords) ? item.coords.length : 0);
    return 0;
  }

  /** The violins' sample count as the plugin reads it: options.elements.violin.points. */
  function violinPoints(chart) {
    var o = chart.options;
    var v = isObject(o) && isObject(o.elements) && isObject(o.elements.violin) ? o.elements.violin.points : undefined;
    return v === undefined || v === null ? 100 : num(v);
  }

  Chart.plugins.register({
    id: 'chartshotPluginBudgets2',
    beforeUpdate: function (chart) {
      var u = B.units();
      if (!u) return;
      var sets = chart.data && isArray(chart.data.datasets) ? chart.data.datasets : [];
      var n = 0;
      for (var i = 0; i < sets.length; i++) {
        var ds = sets[i];
        if (!isObject(ds)) continue;
        var data = isArray(ds.data) ? ds.data : [];
        n += data.length;
        var type = typeof ds.type === 'string' ? ds.type : chart.config.type;
        if (!BOX[type]) continue;
        var biggest = 0;
        for (var k = 0; k < data.length; k++) {
          var v = itemValues(data[k]);
          n += v;
          if (v > biggest) biggest = v;
        }
        if (VIOLIN[type]) {
          var points = violinPoints(chart);
          var where = ' (dataset ' + i + ')';
          if (over(points, u.densityPoints)) B.refuse('budget: a violin may estimate its density at ' + u.densityPoints + ' points at most' + where);
          if (over(points * biggest, u.densityWork)) B.refuse("budget: a violin's density points x values may be " + u.densityWork + ' at most' + where);
        }
      }
      B.checkElements(n);
    },
  });
})();
