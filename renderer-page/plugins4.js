// The Chart.js 4 chart-type plugins (matrix, treemap, sankey, financial, boxplot, funnel, error
// bars, word cloud, venn, graph) registered themselves on load, exactly as in a browser page. What
// is left here is what a static image needs so that the same request always draws the same bytes,
// and draws what a browser settles on. Loaded by harness.html after the plugin bundles.
(function () {
  'use strict';
  var Chart = window.Chart;
  if (!Chart || typeof Chart.register !== 'function' || !Chart.defaults) return;
  var datasets = Chart.defaults.datasets;

  // chartjs-chart-wordcloud seeds its layout (word positions, random rotations) with
  // randomRotationSeed, else with the chart's id, a counter of the page: 0 for a browser page's
  // first chart. Every chart drawn here gets the seed a browser's first chart gets.
  if (datasets.wordCloud) datasets.wordCloud.randomRotationSeed = 0;

  // chartjs-chart-graph's force-directed layout runs on animation frames in a browser until the
  // simulation cools (about 300 ticks from alpha 1, d3-force's defaults); a static image has no
  // frames, so the same ticks run at once, and nothing restarts after the image is taken. A config
  // that sets these options keeps its own values. d3-force's jiggle uses its own seeded generator.
  var force = datasets.forceDirectedGraph;
  if (force && force.simulation) {
    force.simulation.initialIterations = 300;
    force.simulation.autoRestart = false;
  }

  // chartjs-chart-graph lays a graph out on the next animation frame and draws it positioned on
  // the frame after (chart.update()); a static image is taken before any frame. The layout runs at
  // the end of the chart's first update instead, followed by the update a browser's frame makes.
  var Graphs = window.ChartGraphs;
  if (Graphs && Graphs.GraphController) {
    Graphs.GraphController.prototype._scheduleResyncLayout = function () {
      this._chartshotLayoutDue = true;
    };
    Chart.register({
      id: 'chartshotGraphLayout',
      afterUpdate: function (chart) {
        var due = [];
        var metas = chart._metasets || [];
        for (var i = 0; i < metas.length; i++) {
          var c = metas[i] && metas[i].controller;
          if (c && c._chartshotLayoutDue) {
            c._chartshotLayoutDue = false;
            due.push(c);
          }
        }
        if (!due.length) return;
        for (var j = 0; j < due.length; j++) due[j].resyncLayout();
        chart.update();
      },
    });
  }

  // Math.random, seeded again at the start of every chart: venn.js starts some layouts from
  // random points, and caller code may draw random data. Same request, same bytes.
  // (mulberry32; seed 0x2f6b5c1d; the fidelity tests reproduce it in their oracle page)
  var SEED = 0x2f6b5c1d;
  var state = SEED;
  function random() {
    state = (state + 0x6d2b79f5) | 0;
    var t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  Object.defineProperty(Math, 'random', { value: random, writable: true, configurable: true, enumerable: false });
  Chart.register({
    id: 'chartshotSeed',
    beforeInit: function () {
      state = SEED;
    },
  });
})();
