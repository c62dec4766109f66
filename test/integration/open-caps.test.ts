// Every anonymous request is either rendered or refused with 400 invalid_config, never a 500
// or a destroyed page: the worst cases of the bench (bench/open-worst.ts measures their time)
// and configs generated within the caps with extreme numeric values. Outcomes only, no times.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { isPng } from '../helpers/images.js';
import { WORST_CASES } from '../helpers/openWorstCases.js';
import { bytes } from '../helpers/client.js';
// a deterministic PRNG (mulberry32): a failure names its seed and can be replayed
import { rng } from '../../bench/corpus/gen.js';

const EXTREMES = [0, -0, 1, -1, 0.5, 1e-300, -1e-300, 1e-7, 999, 1000, 1001, 2000, 2001, 1e8, -1e8, 1e300, -1e300, Number.MAX_SAFE_INTEGER, 5e-324];
/** Values within every cap, for capped keys (most of the time: the rest test the refusals). */
const IN_CAP = [0, 0.5, 1, 3, 12, 40, 100];
const CAPPED_KEYS = ['count', 'maxTicksLimit', 'stepSize', 'sampleSize', 'autoSkipPadding', 'padding', 'borderWidth', 'pointRadius', 'radius',
  'hitRadius', 'borderDashOffset', 'lineWidth', 'barThickness', 'borderRadius', 'sides', 'shadowBlur', 'precision', 'rotation', 'circumference', 'angle'];
/** Keys without a cap take any number: the caps must make these harmless too. */
const FREE_KEYS = ['tension', 'min', 'max', 'suggestedMin', 'suggestedMax', 'grace', 'barPercentage', 'categoryPercentage', 'spanGaps', 'lineHeight'];
const TYPES = ['bar', 'line', 'radar', 'polarArea', 'scatter', 'bubble', 'doughnut'];

function generate(seed: number): Record<string, unknown> {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const num = () => pick(EXTREMES);
  const capped = () => (r() < 0.95 ? pick(IN_CAP) : num());
  const bag = () => ({ [pick(CAPPED_KEYS)]: capped(), [pick(FREE_KEYS)]: num() });
  const n = 1 + Math.floor(r() * 40);
  const data = Array.from({ length: n }, () => (r() < 0.5 ? num() : { x: num(), y: num(), r: Math.abs(num()) % 50 }));
  const scaleType = pick(['linear', 'logarithmic', 'category', 'time', undefined]);
  return {
    type: pick(TYPES),
    data: { labels: Array.from({ length: n }, (_, i) => `L${i}`), datasets: [{ data, ...bag(), borderDash: [capped(), capped()] }] },
    options: {
      indexAxis: pick(['x', 'y']),
      layout: { padding: capped() },
      elements: { point: bag(), line: bag(), bar: bag() },
      scales: { y: { type: scaleType, ticks: { ...bag(), font: { size: capped() } }, grid: { ...bag() } }, x: { ticks: bag(), time: { unit: pick(['millisecond', 'hour', 'year']) } } },
      plugins: {
        title: { display: true, text: 'extreme', font: { size: capped() }, padding: capped() },
        annotation: { annotations: { a: { type: pick(['polygon', 'point', 'box', 'line', 'label']), xValue: 1, yValue: 1, content: 'x', ...bag() } } },
        datalabels: { display: true, ...bag() },
      },
    },
  };
}

describe('open endpoint: any config within the caps renders or is refused 400', function () {
  this.timeout(300_000);
  let s: TestServer;
  before(async () => (s = await startTestServer({ poolSize: 1, openRendersPerHour: 1_000_000 })));
  after(() => s?.stop());

  async function outcome(config: unknown, extra: Record<string, string> = {}): Promise<string> {
    const q = new URLSearchParams({ c: JSON.stringify(config), ...extra });
    const res = await fetch(`${s.url}/v1/open/chart?${q}`);
    const body = await bytes(res);
    if (res.status === 200) return isPng(body) ? 'image' : 'not a png';
    if (res.status === 400 || res.status === 414) {
      const err = JSON.parse(body.toString('utf8')) as { error: string; detail: string };
      return ['invalid_config', 'config_too_large', 'url_too_long'].includes(err.error) ? 'refused' : `${res.status} ${err.error}`;
    }
    return `${res.status} ${body.toString('utf8').slice(0, 200)}`;
  }

  it('each worst case of the bench (ticks.count 1e8 and polygon sides 1e8 were 500s)', async () => {
    const bad: string[] = [];
    for (const [name, config, extra] of WORST_CASES) {
      const got = await outcome(config, extra);
      if (got !== 'image' && got !== 'refused') bad.push(`${name}: ${got}`);
    }
    expect(bad).to.deep.equal([]);
  });

  it('two 122-byte cost attacks are refused, not rendered', async () => {
    expect(await outcome({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { scales: { y: { ticks: { count: 1e8 } } } } })).to.equal('refused');
    const polygon = { type: 'polygon', xValue: 0, yValue: 1, sides: 1e8 };
    expect(await outcome({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { annotation: { annotations: { p: polygon } } } } })).to.equal('refused');
  });

  // Found by an outside review: the annotation plugin also reads the root of options, and the cap
  // did not: 120 annotations through options.annotations drew (200).
  it('annotations are counted through every route the plugin reads: 120 through options.annotations are refused, 100 draw', async () => {
    const chart = (n: number) => ({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [9] }] }, options: { annotations: Array.from({ length: n }, (_, i) => ({ type: 'line', yMin: i % 9 })) } });
    const res = await fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(chart(120)) })}`);
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { detail: string }).detail).to.match(/options\.annotations has 120 annotations; at most 100/);
    expect(await outcome(chart(100))).to.equal('image');
  });

  it('legit configs still render: every golden fixture through the open endpoint', async () => {
    const dir = new URL('../../fixtures/golden/', import.meta.url);
    const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
    expect(names.length).to.be.above(10);
    for (const f of names) {
      const { chart } = JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { chart: unknown };
      expect(await outcome(chart), f).to.equal('image');
    }
  });

  it('40 generated configs with extreme numbers (seeded)', async () => {
    const bad: string[] = [];
    const seen = { image: 0, refused: 0 };
    for (let seed = 1; seed <= 40; seed++) {
      const got = await outcome(generate(seed));
      if (got === 'image' || got === 'refused') seen[got]++;
      else bad.push(`seed ${seed}: ${got}`);
    }
    expect(bad).to.deep.equal([]);
    // the generator must exercise both sides, or it proves nothing
    expect(seen.image, JSON.stringify(seen)).to.be.above(0);
    expect(seen.refused, JSON.stringify(seen)).to.be.above(0);
  });
});
