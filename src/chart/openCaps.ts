// Cost caps of the open endpoint (pure): options that make Chart.js or its plugins loop or
// allocate per unit are capped, and refused past the cap. Why: docs/decisions/0008-open-endpoint.md.
import { toTime, wantsMoment } from './timeParse.js';
import { FINANCIAL_TYPES, SET_TYPES } from './chartTypes.js';

/** Most ticks a scale may generate (ticks.count, maxTicksLimit, a time range over its unit). */
export const MAX_TICKS = 1000;
/** Largest pixel length (radii, widths, paddings, offsets, blurs, thicknesses): the maximum side is 2000. */
export const MAX_PIXELS = 2000;
export const MAX_FONT_SIZE = 500;
export const MAX_POLYGON_SIDES = 100;
export const MAX_DASH_ENTRIES = 16;
/** A dash pattern shorter than this in total makes thousands of segments per line. */
export const MIN_DASH_PERIOD = 2;
export const MAX_DATALABELS_LABELS = 10;
export const MAX_DATASETS = 100;
/** Decades a logarithmic scale may span: Chart.js makes up to 9 ticks per decade. */
export const MAX_LOG_DECADES = 100;
/** Data values over all datasets, whatever their form, and items of each label list. */
export const MAX_DATA_POINTS = 500;
/** Annotations (chartjs-plugin-annotation) in one chart. */
export const MAX_ANNOTATIONS = 100;
/** Force-directed layout ticks run before the image (chartjs-chart-graph; the page's default is 300). */
export const MAX_LAYOUT_ITERATIONS = 300;
/** Sample points of a violin's density curve (@sgratzl/chartjs-chart-boxplot; default 100). */
export const MAX_DENSITY_POINTS = 1000;
/** Areas of a venn or euler diagram: five sets make 31; the layout is an optimisation over all pairs. */
export const MAX_SET_AREAS = 31;

interface NumberCap {
  min: number;
  max: number;
  integer?: boolean;
}

const pixels: NumberCap = { min: -MAX_PIXELS, max: MAX_PIXELS };
const positivePixels: NumberCap = { min: 0, max: MAX_PIXELS };

/** key name -> its bounds. */
const NUMBER_CAPS: ReadonlyMap<string, NumberCap> = new Map<string, NumberCap>([
  // ticks: Chart.js honours count without a limit (one tick per unit)
  ['count', { min: 0, max: MAX_TICKS }],
  ['maxTicksLimit', { min: 0, max: MAX_TICKS }],
  ['sampleSize', { min: 0, max: MAX_TICKS }],
  // chartjs-chart-graph: simulation ticks; @sgratzl/chartjs-chart-boxplot: density samples
  ['initialIterations', { min: 0, max: MAX_LAYOUT_ITERATIONS, integer: true }],
  ['points', { min: 0, max: MAX_DENSITY_POINTS, integer: true }],
  ['autoSkipPadding', positivePixels],
  ['precision', { min: 0, max: 20 }],
  // annotation polygons: one vertex per side
  ['sides', { min: 1, max: MAX_POLYGON_SIDES, integer: true }],
  // fonts (Chart.js parses '12px' as 12)
  ['size', { min: 0, max: MAX_FONT_SIZE }],
  // radii
  ...['radius', 'pointRadius', 'hoverRadius', 'pointHoverRadius', 'hitRadius', 'pointHitRadius', 'borderRadius', 'hoverBorderRadius', 'cutout',
    'outlierRadius', 'itemRadius', 'meanRadius']
    .map((k): [string, NumberCap] => [k, positivePixels]),
  // widths and thicknesses
  ...['borderWidth', 'hoverBorderWidth', 'pointBorderWidth', 'pointHoverBorderWidth', 'lineWidth', 'tickWidth', 'textStrokeWidth',
    'boxWidth', 'boxHeight', 'boxPadding', 'barThickness', 'maxBarThickness', 'minBarLength', 'tickLength', 'width', 'height',
    'maxWidth', 'maxHeight', 'caretSize', 'caretPadding', 'length']
    .map((k): [string, NumberCap] => [k, positivePixels]),
  // offsets, paddings and blurs
  ...['padding', 'offset', 'hoverOffset', 'spacing', 'borderDashOffset', 'dashOffset', 'shadowBlur', 'textShadowBlur',
    'shadowOffsetX', 'shadowOffsetY', 'xAdjust', 'yAdjust', 'labelOffset', 'weight', 'nodePadding', 'nodeWidth']
    .map((k): [string, NumberCap] => [k, pixels]),
  // angles in degrees: an arc past 360 degrees is drawn once per full turn (ArcElement.fullCircles)
  ...['circumference', 'angle', 'rotation', 'startAngle', 'minRotation', 'maxRotation']
    .map((k): [string, NumberCap] => [k, { min: -360, max: 360 }]),
  // decimation
  ['samples', { min: 0, max: 100_000 }],
  ['threshold', { min: 0, max: 100_000 }],
]);

/** Keys whose value is a dash pattern. */
const DASH_KEYS: ReadonlySet<string> = new Set(['borderDash', 'dash', 'tickBorderDash', 'hoverBorderDash', 'pointBorderDash']);

/** Keys that are numbers under one parent and something else under another (scales.x.offset: true). */
const NUMBER_OR_OTHER: ReadonlySet<string> = new Set(['offset', 'padding', 'width', 'height', 'length', 'size', 'radius', 'cutout', 'count', 'spacing', 'weight']);

type Json = unknown;

// Options are matched by key name wherever they appear outside the data values (options,
// dataset options, scale, element and plugin options), since Chart.js resolves the same
// key at many levels. A capped key holding a number, a numeric string (Chart.js coerces them),
// an array (indexable options) or an object of them (padding, borderRadius, borderWidth of a
// bar) is checked value by value; a capped key holding any other string is refused, so code
// cannot hide in a numeric field. What each cap costs at its bound is measured by
// bench/open-worst.ts.
/** Returns null when the config is within every cap, else the reason (naming option and cap). */
export function findCapViolation(config: Record<string, Json>): string | null {
  return (
    checkData(config.data) ??
    checkPluginData(config) ??
    walkOptions(config.options, 'options', 0) ??
    checkDatasets(config.data) ??
    checkAnnotations(config) ??
    checkDataLabels(config) ??
    checkTimeScales(config) ??
    checkLogScales(config) ??
    checkLinearSteps(config)
  );
}

// --- plugin option routes ----------------------------------------------------------------------

/**
 * Where each bundled plugin reads its options inside `options`: Chart.js 3 and 4 resolve a
 * plugin's options from `plugins.<id>` and then from each of its `additionalOptionScopes` ('' is
 * the root of `options`: chartjs-plugin-annotation 1.x and 3.x declare it, so `options.annotations`
 * draws as `options.plugins.annotation.annotations` does); Chart.js 2's annotation plugin reads
 * `options.annotation`. test/unit/open-caps.test.ts checks these against the vendored bundles.
 */
export const PLUGIN_OPTION_ROUTES: Readonly<Record<string, readonly string[]>> = {
  annotation: ['plugins.annotation', '', 'annotation'],
  datalabels: ['plugins.datalabels'],
};

/**
 * Every object a plugin may read its options from: its own routes, and the scopes a config's own
 * plugin object of the same id declares (Chart.js takes an id's scopes from the first plugin of
 * that id it meets, which for an inline plugin can be the caller's).
 */
function pluginOptionObjects(config: Record<string, Json>, id: string): Array<[string, Record<string, Json>]> {
  const options = config.options;
  if (!isObject(options)) return [];
  const routes = new Set(PLUGIN_OPTION_ROUTES[id] ?? [`plugins.${id}`]);
  if (Array.isArray(config.plugins)) {
    for (const p of config.plugins) {
      if (!isObject(p) || p.id !== id || !Array.isArray(p.additionalOptionScopes)) continue;
      for (const scope of p.additionalOptionScopes) if (typeof scope === 'string') routes.add(scope);
    }
  }
  const out: Array<[string, Record<string, Json>]> = [];
  for (const route of routes) {
    let at: Json = options;
    for (const key of route === '' ? [] : route.split('.')) at = isObject(at) && Object.hasOwn(at, key) ? at[key] : undefined;
    if (isObject(at)) out.push([route === '' ? 'options' : `options.${route}`, at]);
  }
  return out;
}

/** Annotations drawn through every route the annotation plugin reads. */
function checkAnnotations(config: Record<string, Json>): string | null {
  for (const [path, scope] of pluginOptionObjects(config, 'annotation')) {
    const n = dataSize(scope.annotations);
    if (n > MAX_ANNOTATIONS) return `${path}.annotations has ${n} annotations; at most ${MAX_ANNOTATIONS} on the open endpoint`;
  }
  return null;
}

/**
 * Label sets per data point (each drawn for every point) through every route datalabels reads.
 * The plugin merges a dataset's `datalabels` over the chart's options, so a dataset draws the
 * union of the chart's label sets (all its routes: Chart.js merges an option object's keys over
 * scopes) and its own: 10 in options.plugins.datalabels.labels and 10 others in a dataset's drew 20.
 */
function checkDataLabels(config: Record<string, Json>): string | null {
  const chartKeys = new Set<string>();
  const chartPaths: string[] = [];
  for (const [path, scope] of pluginOptionObjects(config, 'datalabels')) {
    if (!isObject(scope.labels)) continue;
    chartPaths.push(`${path}.labels`);
    for (const k of Object.keys(scope.labels)) chartKeys.add(k);
  }
  if (chartKeys.size > MAX_DATALABELS_LABELS) {
    return `${chartPaths.join(' with ')} ${chartPaths.length > 1 ? 'make' : 'has'} ${chartKeys.size} labels; at most ${MAX_DATALABELS_LABELS}`;
  }
  const data = config.data;
  const list = isObject(data) && Array.isArray(data.datasets) ? data.datasets : isObject(data) && isObject(data.datasets) ? Object.values(data.datasets) : [];
  for (let i = 0; i < list.length; i++) {
    const ds = list[i];
    const own = isObject(ds) && isObject(ds.datalabels) && isObject(ds.datalabels.labels) ? Object.keys(ds.datalabels.labels) : [];
    if (own.length === 0) continue;
    const drawn = new Set([...chartKeys, ...own]).size;
    if (drawn > MAX_DATALABELS_LABELS) {
      return `data.datasets[${i}].datalabels.labels${chartPaths.length ? ` with ${chartPaths.join(' with ')}` : ''} make ${drawn} labels per point; at most ${MAX_DATALABELS_LABELS}`;
    }
  }
  return null;
}

// --- scales of every Chart.js version ----------------------------------------------------------

interface ScaleEntry {
  /** Where it is, for messages. */
  path: string;
  id: string;
  scale: Record<string, Json>;
  /** Chart.js 2 names its axis by the list it is in (xAxes, yAxes). */
  axis?: 'x' | 'y';
}

/** The scales of a config: options.scales.<id> (3 and 4), and options.scales.xAxes[] / yAxes[] (2). */
function scalesOf(config: Record<string, Json>): ScaleEntry[] {
  const options = config.options;
  const scales = isObject(options) ? options.scales : undefined;
  if (!isObject(scales)) return [];
  const out: ScaleEntry[] = [];
  for (const [id, scale] of Object.entries(scales)) {
    if ((id === 'xAxes' || id === 'yAxes') && Array.isArray(scale)) {
      scale.forEach((s, i) => {
        if (isObject(s)) out.push({ path: `options.scales.${id}[${i}]`, id: typeof s.id === 'string' ? s.id : `${id[0]}-axis-${i}`, scale: s, axis: id === 'xAxes' ? 'x' : 'y' });
      });
    } else if (isObject(scale)) out.push({ path: `options.scales.${id}`, id, scale });
  }
  return out;
}

/**
 * A linear scale makes one tick per stepSize between its bounds: Chart.js 2 has no limit
 * (0..1e6 by 0.0001 is ten million ticks); 3 and 4 stop at 1000 themselves, so only
 * Chart.js 2's scale lists are checked.
 */
function checkLinearSteps(config: Record<string, Json>): string | null {
  for (const entry of scalesOf(config)) {
    const { scale } = entry;
    if (entry.axis === undefined) continue;
    if (scale.type === 'time' || scale.type === 'timeseries' || scale.type === 'logarithmic' || scale.type === 'category') continue;
    const ticks = isObject(scale.ticks) ? scale.ticks : {};
    const raw = ticks.stepSize ?? ticks.fixedStepSize;
    if (raw === undefined || raw === null) continue;
    const step = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN;
    if (!(step > 0) || !Number.isFinite(step)) return `${entry.path}.ticks.stepSize must be a positive number`;
    let min = Infinity;
    let max = -Infinity;
    onAxis(config, entry, (v) => {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (!Number.isFinite(n)) return;
      if (n < min) min = n;
      if (n > max) max = n;
    });
    // Chart.js widens the range to whole steps: two more at most
    const needed = max > min ? (max - min) / step + 2 : 0;
    if (needed > MAX_TICKS) {
      return `${entry.path} would make about ${Math.round(needed)} ticks (its range over ticks.stepSize ${step}); at most ${MAX_TICKS} on the open endpoint`;
    }
  }
  return null;
}

// --- data -----------------------------------------------------------------------------------

/** Items of one dataset's data, whatever its form: an array, or an object (key -> value). */
function dataSize(d: Json): number {
  if (Array.isArray(d)) return d.length;
  if (isObject(d)) return Object.keys(d).length;
  return 0;
}

function checkData(data: Json): string | null {
  if (!isObject(data)) return null;
  for (const key of ['labels', 'xLabels', 'yLabels']) {
    const n = dataSize(data[key]);
    if (n > MAX_DATA_POINTS) return `data.${key} has ${n} items; at most ${MAX_DATA_POINTS} on the open endpoint`;
  }
  const datasets = data.datasets;
  if (datasets === undefined) return null;
  const list = Array.isArray(datasets) ? datasets : isObject(datasets) ? Object.values(datasets) : [];
  if (list.length > MAX_DATASETS) return `${list.length} datasets; at most ${MAX_DATASETS} on the open endpoint`;
  let points = 0;
  // a treemap's tree and a graph's edges are data items too
  for (const ds of list) if (isObject(ds)) points += dataSize(ds.data) + dataSize(ds.tree) + dataSize(ds.edges);
  if (points > MAX_DATA_POINTS) return `${points} data points; at most ${MAX_DATA_POINTS} on the open endpoint`;
  return null;
}

/** The type of each dataset: its own, else the chart's. */
function datasetTypes(config: Record<string, Json>): Array<[number, Record<string, Json>, unknown]> {
  const data = config.data;
  const list = isObject(data) && Array.isArray(data.datasets) ? data.datasets : [];
  const out: Array<[number, Record<string, Json>, unknown]> = [];
  list.forEach((ds, i) => {
    if (isObject(ds)) out.push([i, ds, ds.type ?? config.type]);
  });
  return out;
}

/**
 * What the chart-type plugins cost beyond their data points: a word cloud searches its whole
 * board for every word that does not fit, then starts again on a larger board (100 words of
 * 100 px on 500x300 took 4 s, bench/open-worst.ts), so it is not drawn here at all; a venn or
 * euler diagram's areas feed an optimisation over every pair of them.
 */
function checkPluginData(config: Record<string, Json>): string | null {
  for (const [i, ds, type] of datasetTypes(config)) {
    const values = Array.isArray(ds.data) ? ds.data : [];
    if (type === 'wordCloud') {
      return `data.datasets[${i}] is a wordCloud: word clouds are not drawn on the open endpoint (their layout time grows with the words that do not fit); render it on /v1/chart with an API key`;
    }
    if (typeof type === 'string' && SET_TYPES.has(type) && values.length > MAX_SET_AREAS) {
      return `data.datasets[${i}] has ${values.length} ${type} areas; at most ${MAX_SET_AREAS} (five sets) on the open endpoint`;
    }
  }
  return null;
}

/** Dataset-level options (borderWidth, pointRadius, datalabels...), not their data values. */
function checkDatasets(data: Json): string | null {
  if (!isObject(data)) return null;
  const list = Array.isArray(data.datasets) ? data.datasets : isObject(data.datasets) ? Object.values(data.datasets) : [];
  for (let i = 0; i < list.length; i++) {
    const ds: Json = list[i];
    if (!isObject(ds)) continue;
    for (const [k, v] of Object.entries(ds)) {
      if (k === 'data') continue;
      const found = checkKey(k, v, `data.datasets[${i}]`, 1);
      if (found) return found;
    }
  }
  return null;
}

// --- options ----------------------------------------------------------------------------------

function walkOptions(value: Json, path: string, depth: number): string | null {
  // the gate bounded depth and size already; this bound only keeps the walk obviously finite
  if (depth > 40) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walkOptions(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (!isObject(value)) return null;
  for (const [k, v] of Object.entries(value)) {
    const found = checkKey(k, v, path, depth);
    if (found) return found;
  }
  return null;
}

function checkKey(key: string, value: Json, parent: string, depth: number): string | null {
  const path = `${parent}.${key}`;
  // a scale's id is a name, not an option (chartjs-chart-geo's bubbleMap has a scale called size)
  if (parent.endsWith('.scales') && isObject(value)) return walkOptions(value, path, depth + 1);
  const cap = NUMBER_CAPS.get(key);
  if (cap) return checkNumbers(value, path, cap, depth);
  if (DASH_KEYS.has(key)) return checkDash(value, path);
  if (key === 'stepSize') return checkNumbers(value, path, { min: Number.MIN_VALUE, max: Infinity }, depth);
  if (key === 'labels' && parent.endsWith('datalabels') && isObject(value)) {
    const n = Object.keys(value).length;
    if (n > MAX_DATALABELS_LABELS) return `${path} has ${n} labels; at most ${MAX_DATALABELS_LABELS}`;
  }
  if (key === 'labels' && Array.isArray(value) && value.length > MAX_DATA_POINTS) {
    return `${path} has ${value.length} items; at most ${MAX_DATA_POINTS} on the open endpoint`;
  }
  return walkOptions(value, path, depth + 1);
}

/** A number, numeric string, or an array / object of them, each within the cap. */
function checkNumbers(value: Json, path: string, cap: NumberCap, depth: number): string | null {
  if (value === null || value === undefined || typeof value === 'boolean') return null;
  if (Array.isArray(value) || isObject(value)) {
    if (depth > 40) return null;
    const entries = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v] as const) : Object.entries(value).map(([k, v]) => [`.${k}`, v] as const);
    for (const [seg, v] of entries) {
      // objects under a number-or-other key are option groups (font objects, padding sides)
      const found = isObject(v) ? walkOptions(v, path + seg, depth + 1) : checkNumbers(v, path + seg, cap, depth + 1);
      if (found) return found;
    }
    return null;
  }
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    // Chart.js reads '12px' and '50%' with parseFloat/parseInt; anything else is not a number
    n = NUMERIC_TEXT.test(value.trim()) ? parseFloat(value) : NaN;
    if (Number.isNaN(n)) {
      if (NUMBER_OR_OTHER.has(lastKey(path)) && value.length <= 20 && /^[a-z]+$/i.test(value)) return null; // 'auto', 'start'...
      return `${path} must be a number`;
    }
  } else return `${path} must be a number`;
  if (!Number.isFinite(n)) return `${path} must be a finite number`;
  if (n < cap.min || n > cap.max) return `${path} is ${n}; the open endpoint allows ${cap.min}..${cap.max}`;
  if (cap.integer && !Number.isInteger(n)) return `${path} must be an integer`;
  return null;
}

const NUMERIC_TEXT = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?(?:px|%)?$/i;

function lastKey(path: string): string {
  const m = /([A-Za-z_$][\w$]*)(?:\[\d+\])*$/.exec(path);
  return m ? m[1]! : '';
}

function checkDash(value: Json, path: string): string | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) return `${path} must be an array of numbers`;
  if (value.length > MAX_DASH_ENTRIES) return `${path} has ${value.length} entries; at most ${MAX_DASH_ENTRIES}`;
  if (value.length === 0) return null;
  let sum = 0;
  for (const v of value) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_PIXELS) return `${path} entries must be numbers 0..${MAX_PIXELS}`;
    sum += v;
  }
  if (sum < MIN_DASH_PERIOD) return `${path} adds up to ${sum}; at least ${MIN_DASH_PERIOD} on the open endpoint`;
  return null;
}

// --- time scales ------------------------------------------------------------------------------

const UNIT_MS: Readonly<Record<string, number>> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 28 * 86_400_000,
  quarter: 89 * 86_400_000,
  year: 365 * 86_400_000,
};

/**
 * Time and timeseries scales generate one tick per unit (times ticks.stepSize) between their
 * min and max: Chart.js allows 100,000 of them (3 s here). With no unit given Chart.js picks
 * one that fits the width, falling back to years, so the year bounds that case.
 */
function checkTimeScales(config: Record<string, Json>): string | null {
  // candlestick and ohlc (the chart's type, or a dataset's: Chart.js merges each dataset type's
  // scale defaults) put a timeseries scale on x when the config names no scale type
  const data = isObject(config.data) ? config.data : {};
  const sets = Array.isArray(data.datasets) ? data.datasets : [];
  const financial = [config.type, ...sets.map((d) => (isObject(d) ? d.type : undefined))].some((t) => typeof t === 'string' && FINANCIAL_TYPES.has(t));
  const withMoment = wantsMoment(config);
  for (const entry of scalesOf(config)) {
    const { scale, path } = entry;
    const financialX = scale.type === undefined && financial && (entry.axis ?? scaleAxis(entry.id, scale)) === 'x';
    if (scale.type !== 'time' && scale.type !== 'timeseries' && !financialX) continue;
    const time = isObject(scale.time) ? scale.time : {};
    const ticks = isObject(scale.ticks) ? scale.ticks : {};
    if (ticks.source === 'data' || ticks.source === 'labels') continue; // one tick per data item or label
    // Chart.js 2 reads the step from time.stepSize (or its older name, unitStepSize)
    const step = ticks.stepSize ?? time.stepSize ?? time.unitStepSize ?? 1;
    // date-fns adds whole units: a fractional step never advances the loop
    if (typeof step !== 'number' || !Number.isInteger(step) || step < 1) return `${path}.ticks.stepSize must be a whole number of ${String(time.unit ?? 'units')} (1 or more) on a time scale`;
    const unit = typeof time.unit === 'string' ? time.unit : 'year';
    const unitMs = Object.hasOwn(UNIT_MS, unit) ? UNIT_MS[unit] : undefined;
    if (unitMs === undefined) return `${path}.time.unit must be one of ${Object.keys(UNIT_MS).join(', ')}`;
    const span = timeSpan(config, entry, typeof time.parser === 'string' ? time.parser : undefined, withMoment);
    const ticksNeeded = span / (unitMs * step);
    if (ticksNeeded > MAX_TICKS) {
      return `${path} spans about ${Math.round(ticksNeeded)} ${unit} ticks; at most ${MAX_TICKS} on the open endpoint (a larger time.unit or ticks.stepSize)`;
    }
  }
  return null;
}

/** Max - min of every timestamp the scale may see (its bounds, the labels, the data on its axis). */
function timeSpan(config: Record<string, Json>, entry: ScaleEntry, format: string | undefined, withMoment: boolean): number {
  let min = Infinity;
  let max = -Infinity;
  onAxis(config, entry, (v) => {
    const t = toTime(v, format, withMoment);
    if (t === null) return;
    if (t < min) min = t;
    if (t > max) max = t;
  });
  return max > min ? max - min : 0;
}

/**
 * A logarithmic scale makes up to nine ticks per decade between its smallest positive value
 * and its largest: 1e-300..1e300 is 5,400 ticks, each measured and drawn.
 */
function checkLogScales(config: Record<string, Json>): string | null {
  for (const entry of scalesOf(config)) {
    if (entry.scale.type !== 'logarithmic') continue;
    let min = Infinity;
    let max = 0;
    onAxis(config, entry, (v) => {
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
      if (!(n > 0) || !Number.isFinite(n)) return;
      if (n < min) min = n;
      if (n > max) max = n;
    });
    const decades = max > min ? Math.log10(max) - Math.log10(min) : 0;
    if (decades > MAX_LOG_DECADES) {
      return `${entry.path} (logarithmic) spans ${Math.round(decades)} decades; at most ${MAX_LOG_DECADES} on the open endpoint`;
    }
  }
  return null;
}

/** Calls see() with every value a scale may see: its bounds, the labels, the data on its axis. */
function onAxis(config: Record<string, Json>, entry: ScaleEntry, see: (v: Json) => void): void {
  const { scale } = entry;
  const bounds = ['min', 'max', 'suggestedMin', 'suggestedMax'];
  for (const k of bounds) see(scale[k]);
  // Chart.js 2 keeps a scale's bounds in ticks (and a time scale's in time)
  for (const holder of [scale.ticks, scale.time]) if (isObject(holder)) for (const k of bounds) see(holder[k]);
  const axis = entry.axis ?? scaleAxis(entry.id, scale);
  const data = isObject(config.data) ? config.data : {};
  const options = isObject(config.options) ? config.options : {};
  // labels run along the index axis, plain numbers in data along the other (Chart.js 2: horizontalBar)
  const indexAxis = options.indexAxis === 'y' || config.type === 'horizontalBar' ? 'y' : 'x';
  const labelLists = [axis === indexAxis ? data.labels : undefined, scale.labels, axis === 'x' ? data.xLabels : data.yLabels];
  for (const list of labelLists) if (Array.isArray(list)) list.forEach(see);
  const datasets = Array.isArray(data.datasets) ? data.datasets : [];
  for (const ds of datasets) {
    if (!isObject(ds)) continue;
    const values = Array.isArray(ds.data) ? ds.data : isObject(ds.data) ? Object.entries(ds.data) : [];
    for (const item of values) {
      if (Array.isArray(item)) see(axis === 'x' ? item[0] : item[1]);
      else if (isObject(item)) see(item[axis]);
      else if (axis !== indexAxis) see(item);
    }
  }
}

function scaleAxis(id: string, scale: Record<string, Json>): 'x' | 'y' {
  if (scale.axis === 'x' || scale.axis === 'y') return scale.axis;
  if (scale.position === 'left' || scale.position === 'right') return 'y';
  if (scale.position === 'top' || scale.position === 'bottom') return 'x';
  return id.startsWith('y') ? 'y' : 'x';
}

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
