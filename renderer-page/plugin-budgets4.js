// Per-unit budgets of the Chart.js 4 chart-type plugins: options and data shapes that make one
// small config cost seconds or gigabytes in a plugin's own layout, outside what budgets.js counts
// (scale ticks, data points). Checked before Chart.js parses anything (beforeUpdate), from the
// config, with this render's limits per caller class (src/render/budgets.ts `units`):
//   a force-directed layout's ticks x (nodes + edges), a violin's density points x its values,
//   venn/euler areas, a word cloud's words and font sizes, a geo chart's graticule lines;
//   and the values inside boxplot/violin items, a treemap's tree and a graph's edges counted as
//   elements (the data points budgets.js limits). Loaded after budgets.js, before harness.js.
// Why: docs/decisions/0026-draw-what-chartjs-draws.md.
(function () {
  'use strict';
  var Chart = window.Chart;
  var B = window.ChartshotBudgets;
  if (!Chart || typeof Chart.register !== 'function' || !B || typeof B.units !== 'function') return;
  var isArray = Array.isArray;
  var objectKeys = Object.keys;
  var ceil = Math.ceil;
  var abs = Math.abs;

  function isObject(v) {
    return v !== null && typeof v === 'object' && !isArray(v);
  }
  function num(v) {
    return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  }
  function over(value, limit) {
    return typeof limit === 'number' && !(value <= limit);
  }

  /** Leaves and branches of a treemap tree (an array, or nested objects), stopped past `cap`. */
  function treeSize(tree, cap) {
    var n = 0;
    var stack = [tree];
    while (stack.length && n <= cap) {
      var t = stack.pop();
      if (isArray(t)) {
        n += t.length;
        for (var i = 0; i < t.length && n <= cap; i++) if (t[i] !== null && typeof t[i] === 'object') stack.push(t[i]);
      } else if (isObject(t)) {
        var keys = objectKeys(t);
        n += keys.length;
        for (var j = 0; j < keys.length && n <= cap; j++) if (t[keys[j]] !== null && typeof t[keys[j]] === 'object') stack.push(t[keys[j]]);
      }
    }
    return n;
  }

  /** Values inside one boxplot/violin item: an array of numbers, or given stats with outliers. */
  function itemValues(item) {
    if (isArray(item)) return item.length;
    if (isObject(item)) {
      var n = 0;
      if (isArray(item.outliers)) n += item.outliers.length;
      if (isArray(item.items)) n += item.items.length;
      if (isArray(item.coords)) n += item.coords.length;
      return n;
    }
    return 0;
  }

  /** Lines of a d3 graticule with these steps (degrees): meridians plus parallels. */
  function graticuleLines(step, fallbackX, fallbackY) {
    var sx = isArray(step) ? abs(num(step[0])) : fallbackX;
    var sy = isArray(step) ? abs(num(step[1])) : fallbackY;
    if (!(sx > 0) || !(sy > 0)) return Infinity;
    return ceil(360 / sx) + ceil(180 / sy);
  }

  /** A dataset option as Chart.js resolves it: the dataset, options.datasets[type], options. */
  function opt(chart, ds, type, key) {
    if (ds[key] !== undefined) return ds[key];
    var o = chart.config && chart.config.options;
    if (!isObject(o)) return undefined;
    var per = isObject(o.datasets) && isObject(o.datasets[type]) ? o.datasets[type] : null;
    if (per && per[key] !== undefined) return per[key];
    return o[key];
  }

  /** A key of a nested dataset option object (simulation.initialIterations), resolved the same way. */
  function nested(chart, ds, type, key, sub) {
    var levels = [ds[key]];
    var o = chart.config && chart.config.options;
    if (isObject(o)) {
      if (isObject(o.datasets) && isObject(o.datasets[type])) levels.push(o.datasets[type][key]);
      levels.push(o[key]);
    }
    for (var i = 0; i < levels.length; i++) if (isObject(levels[i]) && levels[i][sub] !== undefined) return levels[i][sub];
    return undefined;
  }

  function typeOf(chart, ds) {
    return typeof ds.type === 'string' ? ds.type : chart.config.type;
  }

  function checkDataset(chart, ds, i, u) {
    var type = typeOf(chart, ds);
    var data = isArray(ds.data) ? ds.data : [];
    var extra = 0;
    var where = ' (dataset ' + i + ')';
    if (type === 'boxplot' || type === 'violin') {
      var values = 0;
      var biggest = 0;
      for (var k = 0; k < data.length; k++) {
        var v = itemValues(data[k]);
        values += v;
        if (v > biggest) biggest = v;
      }
      extra += values;
      if (type === 'violin') {
        var given = opt(chart, ds, type, 'points');
        var points = given !== undefined ? num(given) : 100;
        if (over(points, u.densityPoints)) B.refuse('budget: a violin may estimate its density at ' + u.densityPoints + ' points at most' + where);
        if (over(points * biggest, u.densityWork)) B.refuse('budget: a violin\'s density points x values may be ' + u.densityWork + ' at most' + where);
      }
    } else if (type === 'forceDirectedGraph') {
      // plugins4.js runs the layout to rest up front: 300 ticks unless the config says otherwise
      var iterations = nested(chart, ds, type, 'simulation', 'initialIterations');
      var ticks = iterations !== undefined ? num(iterations) : 300;
      var size = data.length + (isArray(ds.edges) ? ds.edges.length : 0);
      if (over(ticks, u.layoutTicks)) B.refuse('budget: a force-directed layout may run ' + u.layoutTicks + ' ticks at most' + where);
      if (over(ticks * (size > 1 ? size : 1), u.layoutWork)) B.refuse('budget: a force-directed layout\'s ticks x (nodes + edges) may be ' + u.layoutWork + ' at most' + where);
    } else if (type === 'venn' || type === 'euler') {
      if (over(data.length, u.vennAreas)) B.refuse('budget: a ' + type + ' diagram may have ' + u.vennAreas + ' areas at most' + where);
    } else if (type === 'wordCloud') {
      if (over(data.length, u.words)) B.refuse('budget: a word cloud may have ' + u.words + ' words at most' + where);
      // a word's font size is its data value unless the dataset sets one (a function is bounded by the deadline)
      var size0 = opt(chart, ds, type, 'size');
      var fixed = typeof size0 === 'number' || typeof size0 === 'string' ? num(size0) : null;
      for (var w = 0; w < data.length; w++) {
        var px = fixed !== null ? fixed : num(isObject(data[w]) ? data[w].y : data[w]);
        if (over(px, u.wordSizePx) && px === px) B.refuse('budget: a word cloud\'s words may be ' + u.wordSizePx + ' px at most' + where);
      }
    } else if (type === 'choropleth' || type === 'bubbleMap') {
      var g = opt(chart, ds, type, 'showGraticule');
      if (g === true || isObject(g)) {
        var lines = g === true ? graticuleLines(null, 10, 10) : graticuleLines(g.stepMinor, 10, 10) + graticuleLines(g.stepMajor, 90, 360);
        if (over(lines, u.graticuleLines)) B.refuse('budget: a map\'s graticule may have ' + u.graticuleLines + ' lines at most' + where);
      }
    }
    if (isArray(ds.edges)) extra += ds.edges.length;
    if (ds.tree !== undefined && ds.tree !== null && typeof ds.tree === 'object') extra += treeSize(ds.tree, 1e7);
    return extra;
  }

  Chart.register({
    id: 'chartshotPluginBudgets',
    beforeUpdate: function (chart) {
      var u = B.units();
      if (!u) return;
      var sets = chart.data && isArray(chart.data.datasets) ? chart.data.datasets : [];
      var n = 0;
      for (var i = 0; i < sets.length; i++) {
        if (!isObject(sets[i])) continue;
        n += checkDataset(chart, sets[i], i, u) + (isArray(sets[i].data) ? sets[i].data.length : 0);
      }
      B.checkElements(n);
    },
  });
})();
