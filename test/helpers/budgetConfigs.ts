// fast-check arbitraries of anonymous chart requests within the open endpoint's size limits:
// every chart type and scale type, ranges from data, labels, `parsing` keys, bounds and steps
// with extreme numbers, for Chart.js 4 (GET /v1/open/chart) and 2 and 3 (keyless /chart).
// Used by test/integration/budgets-property.test.ts and bench/anonymous-slowest.ts.
import fc from 'fast-check';

type Cfg = Record<string, unknown>;
export interface AnonymousCase {
  /** 4: GET /v1/open/chart; 2 and 3: keyless POST /chart. */
  chartjs: 2 | 3 | 4;
  config: Cfg;
}

const TYPES = ['bar', 'line', 'pie', 'doughnut', 'radar', 'polarArea', 'scatter', 'bubble'] as const;
const CARTESIAN = ['linear', 'logarithmic', 'category', 'time', 'timeseries'] as const;
const UNITS = ['millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

const extreme = fc.constantFrom(0, 1, -1, 0.5, 1e-7, 99_999, 86_400_000, 1e12, 1e15, -8e15, 8e15, 1e-300, 1e300, Number.MAX_SAFE_INTEGER);
// mostly values a chart would hold, sometimes extremes: a generator of extremes alone is
// refused by the static caps before any reaches the page
const num = fc.oneof(
  { arbitrary: fc.integer({ min: -1000, max: 1000 }), weight: 5 },
  { arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }), weight: 2 },
  { arbitrary: extreme, weight: 1 },
);
const step = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 20 }), weight: 4 }, { arbitrary: fc.constantFrom(0.0001, 0.001, 0.01, 0.5, 1000), weight: 1 });
const dateText = fc.constantFrom('2020-01-01', '2020-01-02', '2020-01-01T06:00:00Z', '2020-03-01', '2021-01-01', '1970-01-01', '2999-12-31', '2020-01-01T00:00:01Z');
const point = fc.oneof(num, fc.record({ x: fc.oneof(num, dateText), y: num, r: fc.integer({ min: 0, max: 40 }) }));
/** The same point under other keys: the static caps cannot tell which axis reads it. */
const keyedPoint = fc.record({ t: fc.oneof(num, dateText), v: num });

const ticks = fc.record(
  {
    stepSize: step,
    count: fc.integer({ min: 0, max: 1000 }),
    maxTicksLimit: fc.integer({ min: 0, max: 1000 }),
    beginAtZero: fc.boolean(),
    source: fc.constantFrom('auto', 'data', 'labels'),
    min: num,
    max: num,
  },
  { requiredKeys: [] },
);
const time = fc.record({ unit: fc.constantFrom(...UNITS), stepSize: step }, { requiredKeys: [] });
const scale = fc.record(
  { type: fc.constantFrom(...CARTESIAN), min: fc.oneof(num, dateText), max: fc.oneof(num, dateText), suggestedMax: num, grace: fc.constantFrom(0, 1, '50%', 1e300), ticks, time },
  { requiredKeys: ['type'] },
);

const labels = fc.oneof(fc.array(dateText, { maxLength: 6 }), fc.array(num, { maxLength: 12 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 20 }));

/** A dataset: plain values, points, or points under `parsing` keys (Chart.js 3 and 4 only). */
function dataset(chartjs: 2 | 3 | 4): fc.Arbitrary<Cfg> {
  const plain = fc.record({ data: fc.array(point, { maxLength: 30 }), type: fc.option(fc.constantFrom(...TYPES), { nil: undefined }) }, { requiredKeys: ['data'] });
  if (chartjs === 2) return plain;
  const keyed = fc.record({ data: fc.array(keyedPoint, { maxLength: 30 }), parsing: fc.constant({ xAxisKey: 't', yAxisKey: 'v' }) });
  return fc.oneof(plain, keyed);
}

/** Chart.js 2 names its axes in lists (xAxes, yAxes) and a radial one `scale`; 3 and 4 by id. */
function options(chartjs: 2 | 3 | 4, x: Cfg, y: Cfg, r: Cfg, horizontal: boolean, annotate: Cfg | null): Cfg {
  const plugins = annotate ? { annotation: { annotations: { a: annotate } } } : {};
  if (chartjs === 2) {
    const v2 = (s: Cfg) => ({ ...s, type: s.type === 'timeseries' ? 'time' : s.type, ticks: { ...(s.ticks as Cfg), min: s.min, max: s.max }, time: s.time });
    return { scales: { xAxes: [v2(x)], yAxes: [v2(y)] }, scale: { ticks: r.ticks }, ...(annotate ? { annotation: { annotations: [annotate] } } : {}) };
  }
  return { indexAxis: horizontal ? 'y' : 'x', scales: { x, y, r: { ticks: r.ticks } }, plugins };
}

export function anonymousCase(chartjs: 2 | 3 | 4): fc.Arbitrary<AnonymousCase> {
  const annotation = fc.option(
    fc.record({ type: fc.constantFrom('box', 'line', 'point', 'label'), xMin: fc.oneof(num, dateText), xMax: fc.oneof(num, dateText), yMin: num, yMax: num, content: fc.constant('a') }),
    { nil: null },
  );
  return fc
    .record({
      type: fc.constantFrom(...TYPES),
      labels,
      datasets: fc.array(dataset(chartjs), { minLength: 1, maxLength: 3 }),
      x: scale,
      y: scale,
      r: fc.record({ ticks }),
      horizontal: fc.boolean(),
      annotation,
    })
    .map(({ type, labels: l, datasets, x, y, r, horizontal, annotation: a }) => ({
      chartjs,
      config: { type, data: { labels: l, datasets }, options: options(chartjs, x, y, r as Cfg, horizontal, a) },
    }))
    .filter((c) => JSON.stringify(c.config).length <= OPEN_CONFIG_BYTES);
}

/** The open endpoint's largest config (c, decoded). */
export const OPEN_CONFIG_BYTES = 6144;

/** Answers one case as an anonymous caller would send it: status and error text. */
export async function sendAnonymous(base: string, c: AnonymousCase): Promise<{ status: number; error: string }> {
  const json = JSON.stringify(c.config);
  const res =
    c.chartjs === 4
      ? await fetch(`${base}/v1/open/chart?${new URLSearchParams({ c: json, w: '400', h: '300' })}`)
      : await fetch(`${base}/chart`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ chart: json, v: String(c.chartjs), w: 400, h: 300, devicePixelRatio: 1 }),
        });
  const body = Buffer.from(await res.arrayBuffer());
  const error = res.status === 200 ? '' : c.chartjs === 4 ? body.toString('utf8').slice(0, 300) : (res.headers.get('x-quickchart-error') ?? '');
  return { status: res.status, error };
}
