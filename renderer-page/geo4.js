// chartjs-chart-geo (choropleth, bubbleMap) without a network: a config names a bundled topology
// instead of fetching one, and features by name, where a browser config would hold GeoJSON built
// with ChartGeo.topojson.feature:
//   datasets: [{ topology: 'us-atlas/states-10m', outline: 'us-atlas/states-10m:nation',
//                data: [{ feature: 'California', value: 3 }, ...] }]
// `feature` is a feature's name (properties.name) or id; `outline` names a topology's object
// ('world-atlas/countries-110m:land', 'us-atlas/states-10m:nation'). Given as GeoJSON objects,
// both are left as they are. The features are built again for every chart: nothing one chart
// does to them reaches the next (the topologies are JSON text, parsed when named).
(function () {
  'use strict';
  var Chart = window.Chart;
  var Geo = window.ChartGeo;
  var TOPOLOGIES = window.ChartshotTopologies;
  if (!Chart || !Geo || !TOPOLOGIES || typeof Chart.register !== 'function') return;
  // the first object of each topology holds the features a data item names
  var FEATURE_OBJECT = { 'world-atlas/countries-110m': 'countries', 'us-atlas/states-10m': 'states' };
  var names = Object.keys(FEATURE_OBJECT);
  var jsonParse = JSON.parse;

  function topology(name) {
    if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(TOPOLOGIES, name)) {
      throw new Error('unknown topology ' + JSON.stringify(String(name).slice(0, 60)) + ': one of ' + names.join(', '));
    }
    // parsed for each chart: nothing one chart does to the objects reaches the next
    return jsonParse.call(JSON, TOPOLOGIES[name]);
  }

  function features(name, objectName) {
    var topo = topology(name);
    if (!Object.prototype.hasOwnProperty.call(topo.objects, objectName)) {
      throw new Error('topology ' + name + ' has no object ' + JSON.stringify(String(objectName).slice(0, 40)) + ': one of ' + Object.keys(topo.objects).join(', '));
    }
    var f = Geo.topojson.feature(topo, topo.objects[objectName]);
    return f.type === 'FeatureCollection' ? f.features : [f];
  }

  function resolve(ds) {
    if (ds.outline !== undefined && typeof ds.outline === 'string') {
      var at = ds.outline.lastIndexOf(':');
      var list = features(at > 0 ? ds.outline.slice(0, at) : ds.outline, at > 0 ? ds.outline.slice(at + 1) : FEATURE_OBJECT[ds.outline]);
      ds.outline = list.length === 1 ? list[0] : list;
    }
    if (ds.topology === undefined || !Array.isArray(ds.data)) return;
    var all = features(ds.topology, FEATURE_OBJECT[ds.topology]);
    var byKey = Object.create(null);
    for (var i = 0; i < all.length; i++) {
      var f = all[i];
      if (f.properties && typeof f.properties.name === 'string') byKey[f.properties.name] = f;
      if (f.id !== undefined) byKey[String(f.id)] = f;
    }
    for (var j = 0; j < ds.data.length; j++) {
      var item = ds.data[j];
      if (item === null || typeof item !== 'object' || (typeof item.feature !== 'string' && typeof item.feature !== 'number')) continue;
      var found = byKey[String(item.feature)];
      if (!found) throw new Error('no feature ' + JSON.stringify(String(item.feature).slice(0, 60)) + ' in ' + ds.topology);
      item.feature = found;
    }
  }

  Chart.register({
    id: 'chartshotGeo',
    beforeInit: function (chart) {
      var data = chart.config && chart.config.data;
      var list = data && Array.isArray(data.datasets) ? data.datasets : [];
      for (var i = 0; i < list.length; i++) if (list[i] !== null && typeof list[i] === 'object') resolve(list[i]);
    },
  });
})();
