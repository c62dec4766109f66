// Chart.js 2 plugins register themselves globally on load: take them back, so that a chart gets
// only the plugins its config asks for (harness.js attaches them per chart).
(function () {
  'use strict';
  var Chart = window.Chart;
  var BUILT_IN = { filler: true, legend: true, title: true };
  var byId = Object.create(null);
  var all = Chart.plugins.getAll();
  for (var i = 0; i < all.length; i++) {
    var p = all[i];
    if (!p || BUILT_IN[p.id]) continue;
    // chartjs-plugin-annotation 0.5 has no id (it reads options.annotation itself)
    var id = typeof p.id === 'string' ? p.id : Chart.Annotation ? 'annotation' : null;
    if (id && !byId[id]) byId[id] = p;
  }
  for (var k in byId) Chart.plugins.unregister(byId[k]);
  // The page's stylesheet rules would need an inline <style> per chart; the charts never resize.
  Chart.platform.disableCSSInjection = true;
  window.ChartshotV2Plugins = Object.freeze(byId);
})();
