// Time scales written for Chart.js's moment adapter (chartjs-adapter-moment): a config whose time
// formats use moment's tokens (`parser: 'YYYY'`, `displayFormats: {day: 'MMM D'}`) is drawn with
// moment, as the browser page it was written for draws it; every other config keeps date-fns.
// date-fns refuses moment's year, day and AM/PM tokens (Y, D, A) unless a config opts in to
// them, so no config that date-fns draws changes adapter. Loaded after budgets.js and
// vendor/chartjs-adapter-moment.js (which hands its members over instead of overriding the
// adapter: scripts/vendor.mjs). Why: docs/decisions/0026-draw-what-chartjs-draws.md.
(function () {
  'use strict';
  var Chart = window.Chart;
  var momentMembers = window.ChartshotMomentAdapter;
  try { delete window.ChartshotMomentAdapter; } catch (e) { window.ChartshotMomentAdapter = undefined; }
  if (!Chart || typeof Chart.register !== 'function' || !Chart._adapters || !momentMembers || typeof window.moment !== 'function') return;
  var proto = Chart._adapters._date.prototype;
  var KEYS = ['_id', 'formats', 'parse', 'format', 'add', 'diff', 'startOf', 'endOf'];
  var isArray = Array.isArray;
  var hasOwn = Object.prototype.hasOwnProperty;

  function pick(from) {
    var out = {};
    for (var i = 0; i < KEYS.length; i++) out[KEYS[i]] = from[KEYS[i]];
    return out;
  }
  // date-fns's members as the page has them (add() already counted by budgets.js)
  var dateFns = pick(proto);
  var moment = pick(momentMembers);
  if (window.ChartshotBudgets && typeof window.ChartshotBudgets.countedAdd === 'function') {
    moment.add = window.ChartshotBudgets.countedAdd(moment.add);
  }

  function isObject(v) {
    return v !== null && typeof v === 'object' && !isArray(v);
  }

  /** A format only moment reads: Y, D or A outside moment's [escapes] and date-fns's 'quotes'. */
  function momentFormat(f) {
    if (typeof f !== 'string' || f.length > 200) return false;
    return /[YDA]/.test(f.replace(/\[[^\]]*\]/g, '').replace(/'[^']*'/g, ''));
  }

  function wantsMoment(config) {
    var options = config && config.options;
    var scales = isObject(options) && isObject(options.scales) ? options.scales : null;
    if (!scales) return false;
    var ids = Object.keys(scales);
    for (var i = 0; i < ids.length && i < 50; i++) {
      var time = isObject(scales[ids[i]]) ? scales[ids[i]].time : null;
      if (!isObject(time)) continue;
      if (momentFormat(time.parser) || momentFormat(time.tooltipFormat)) return true;
      var shown = isObject(time.displayFormats) ? time.displayFormats : null;
      if (!shown) continue;
      for (var unit in shown) if (hasOwn.call(shown, unit) && momentFormat(shown[unit])) return true;
    }
    return false;
  }

  function use(members) {
    for (var i = 0; i < KEYS.length; i++) proto[KEYS[i]] = members[KEYS[i]];
  }

  // Before the chart builds its scales (each time scale makes its adapter then): every chart
  // picks its own, so a render never inherits the previous one's.
  Chart.register({
    id: 'chartshotDateAdapter',
    beforeInit: function (chart) {
      use(wantsMoment({ options: chart.config && chart.config.options }) ? moment : dateFns);
    },
  });
})();
