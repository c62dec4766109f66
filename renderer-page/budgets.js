// In-page budgets: a render is refused once Chart.js itself knows that a scale would build more
// ticks than the caller's budget, a logarithmic scale would span too many decades, or the chart
// would hold more elements (data points over all datasets) than allowed, whatever option, plugin
// or data produced the numbers. The static caps of the open endpoint (src/chart/openCaps.ts)
// read the config; these read the scale's real range. Loaded after Chart.js and its date adapter
// in every harness (Chart.js 2, 3 and 4), before harness.js, which calls begin/end around each
// render. Why: docs/decisions/0017-in-page-budgets.md.
(function () {
  'use strict';
  var Chart = window.Chart;
  if (!Chart) return;
  var MAJOR = typeof Chart.register !== 'function' ? 2 : parseInt(Chart.version, 10);
  var apply = Reflect.apply;
  var ErrorCtor = Error;
  var hasOwn = Object.prototype.hasOwnProperty;
  var log10 = Math.log10;
  var isArray = Array.isArray;
  var objectKeys = Object.keys;

  /** The current render's budget: { ticks, elements, logDecades, hit, adds, scaleId }, or null. */
  var active = null;
  /** Our wrappers, to the function each wraps (a subclass inherits a wrapped parent's). */
  var wrappers = new WeakMap();
  var wmGet = WeakMap.prototype.get;
  var wmSet = WeakMap.prototype.set;
  var wmHas = WeakMap.prototype.has;

  /** Stops the render: remembered, so that caller code catching the error changes nothing. */
  function refuse(msg) {
    if (active && !active.hit) active.hit = msg;
    throw new ErrorCtor(msg);
  }

  function scaleName(scale) {
    var id = scale && scale.id;
    return typeof id === 'string' ? '"' + id.slice(0, 40) + '"' : 'a scale';
  }

  function num(v) {
    return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  }

  // Ticks Chart.js is about to build from a range: read from the scale after its data limits
  // (beginAtZero, suggestedMin/Max, grace, a plugin's widening: all already applied). Chart.js 2
  // loops over range / stepSize without a bound; 3 and 4 stop a stepSize at 1000 ticks but not
  // `count`. getTickLimit() is each version's own upper bound of what generateTicks makes
  // (within the factor 1.5 of its "nice" rounding).
  function checkLinear(scale, b) {
    var est = 0;
    if (typeof scale.getTickLimit === 'function') est = num(apply(scale.getTickLimit, scale, []));
    var ticks = scale.options && scale.options.ticks;
    if (MAJOR >= 3 && ticks && ticks.count !== undefined && ticks.count !== null) {
      var count = num(ticks.count);
      if (count > est || count !== count) est = count;
    }
    if (est > b.ticks) refuse('budget: scale ' + scaleName(scale) + ' would build more than ' + b.ticks + ' ticks');
  }

  function checkLog(scale, b) {
    var max = num(scale.max);
    var min = num(scale.min);
    if (!(min > 0)) min = num(scale.minNotZero !== undefined ? scale.minNotZero : scale._minNotZero);
    if (!(min > 0) || !(max > 0)) return;
    if (log10(max) - log10(min) > b.logDecades) {
      refuse('budget: logarithmic scale ' + scaleName(scale) + ' spans more than ' + b.logDecades + ' decades');
    }
  }

  /** kind: 'linear' | 'log' | 'time' | 'other'. */
  function guarded(kind, original) {
    var wrapper = function buildTicks() {
      var b = active;
      if (!b) return apply(original, this, arguments);
      if (b.hit) throw new ErrorCtor(b.hit);
      if (kind === 'linear') checkLinear(this, b);
      else if (kind === 'log') checkLog(this, b);
      // a time scale steps its date adapter's add() once per unit of its range: counted there
      var outer = b.scale;
      b.scale = this;
      b.adds = 0;
      var out;
      try {
        out = apply(original, this, arguments);
      } finally {
        b.scale = outer;
        b.adds = 0;
      }
      if (kind !== 'time') {
        // Chart.js 2 sets scale.ticks and returns nothing
        var list = isArray(out) ? out : this.ticks;
        var n = isArray(list) ? list.length : 0;
        if (n > b.ticks) refuse('budget: scale ' + scaleName(this) + ' would build more than ' + b.ticks + ' ticks');
      }
      return out;
    };
    apply(wmSet, wrappers, [wrapper, original]);
    return wrapper;
  }

  // Category scales build one tick per label (data, counted as elements): not wrapped.
  var KINDS = { linear: 'linear', radialLinear: 'linear', logarithmic: 'log', time: 'time', timeseries: 'time', category: null };

  function wrapScale(type, ctor) {
    var kind = hasOwn.call(KINDS, type) ? KINDS[type] : 'other';
    if (!kind || typeof ctor !== 'function' || !ctor.prototype) return;
    var proto = ctor.prototype;
    var current = proto.buildTicks;
    if (typeof current !== 'function') return;
    if (apply(wmHas, wrappers, [current])) {
      if (hasOwn.call(proto, 'buildTicks')) return;
      // inherited from a wrapped parent: this class gets its own, of its own kind
      current = apply(wmGet, wrappers, [current]);
    }
    Object.defineProperty(proto, 'buildTicks', { value: guarded(kind, current), writable: true, configurable: true });
  }

  /** Every scale class registered so far (plugins may register more between renders). */
  function wrapScales() {
    var table = MAJOR === 2 ? Chart.scaleService && Chart.scaleService.constructors : Chart.registry && Chart.registry.scales && Chart.registry.scales.items;
    if (!table) return;
    var names = objectKeys(table);
    for (var i = 0; i < names.length; i++) wrapScale(names[i], table[names[i]]);
  }

  // A time scale's generation loops its range in steps of a unit (Chart.js stops only at
  // 100,000 of them): each step is one add() of the date adapter, refused past the budget.
  var adapters = Chart._adapters;
  var DateAdapter = adapters && adapters._date;
  function countedAdd(add) {
    return function () {
      var b = active;
      if (b && b.scale && ++b.adds > b.ticks) refuse('budget: scale ' + scaleName(b.scale) + ' would build more than ' + b.ticks + ' ticks');
      return apply(add, this, arguments);
    };
  }
  if (DateAdapter && DateAdapter.prototype && typeof DateAdapter.prototype.add === 'function') {
    DateAdapter.prototype.add = countedAdd(DateAdapter.prototype.add);
  }

  function countData(data) {
    if (isArray(data)) return data.length;
    return data !== null && typeof data === 'object' ? objectKeys(data).length : 0;
  }

  function checkElements(n, b) {
    if (n > b.elements) refuse('budget: the chart would draw more than ' + b.elements + ' elements (data points over all datasets)');
  }

  // Elements: from the config before Chart.js parses anything (beforeUpdate), then exactly from
  // what it built (beforeLayout, before any scale or element is measured or drawn).
  var elementsPlugin = {
    id: 'chartshotBudget',
    beforeUpdate: function (chart) {
      var b = active;
      if (!b) return;
      if (b.hit) throw new ErrorCtor(b.hit);
      var sets = chart.data && isArray(chart.data.datasets) ? chart.data.datasets : [];
      var n = 0;
      for (var i = 0; i < sets.length; i++) if (sets[i]) n += countData(sets[i].data);
      checkElements(n, b);
    },
    beforeLayout: function (chart) {
      var b = active;
      if (!b) return;
      if (b.hit) throw new ErrorCtor(b.hit);
      var n = 0;
      var sets = chart.data && isArray(chart.data.datasets) ? chart.data.datasets.length : 0;
      for (var i = 0; i < sets; i++) {
        var meta = chart.getDatasetMeta(i);
        if (meta && isArray(meta.data)) n += meta.data.length;
      }
      checkElements(n, b);
    },
  };

  function positive(v, fallback) {
    return typeof v === 'number' && v > 0 ? v : fallback;
  }

  // The API harness.js uses (frozen, read once at its load):
  //   begin({ ticks, elements, logDecades }) before new Chart; plugin() into the chart's plugins;
  //   hit() -> the refusal message or null (caller code may have caught the error); end().
  window.ChartshotBudgets = Object.freeze({
    begin: function (budget) {
      wrapScales();
      var bb = budget !== null && typeof budget === 'object' ? budget : {};
      active = {
        ticks: positive(bb.ticks, Infinity),
        elements: positive(bb.elements, Infinity),
        logDecades: positive(bb.logDecades, Infinity),
        units: bb.units !== null && typeof bb.units === 'object' ? bb.units : null,
        hit: null,
        adds: 0,
        scale: null,
      };
    },
    plugin: function () { return elementsPlugin; },
    // another date adapter's add(), counted as the default one's is (renderer-page/moment4.js)
    countedAdd: function (add) { return countedAdd(add); },
    // for the chart-type plugins' per-unit budgets (renderer-page/plugin-budgets4.js): this
    // render's `units` limits (null: none), the element check, and the remembered refusal
    units: function () { return active ? active.units : null; },
    checkElements: function (n) { if (active) checkElements(n, active); },
    refuse: function (msg) { refuse(msg); },
    hit: function () { return active ? active.hit : null; },
    end: function () { active = null; },
  });
})();
