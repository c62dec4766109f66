// In-page budgets and per-class deadlines (issue 25): configs that pass every static cap of the
// open endpoint but make Chart.js build ~100,000 ticks (a time range from `parsing` keys, labels
// on a non-index axis, a plugin widening a scale; on Chart.js 2 and 3 a radial step, a range
// widened by beginAtZero, time.stepSize beside ticks.stepSize) are refused by the page with
// 400 invalid_config naming the budget; an anonymous render past its deadline is a 400, a
// keyed one a 500; a runaway script is interrupted and its page reset, not replaced.
// Outcomes and messages only, never times.
import { expect } from 'chai';
import pino from 'pino';
import { startPool } from '../../src/render/renderer.js';
import { RenderError, type Renderer, type PageRequest } from '../../src/render/renderer.js';
import { PAGE_BUDGETS, type PageBudget } from '../../src/render/budgets.js';
import { RenderService, renderStoppedBy } from '../../src/services/render.js';
import { AppError } from '../../src/errors.js';
import { post, startTestServer, testConfig, type TestServer } from '../helpers/server.js';
import { bytes } from '../helpers/client.js';
import { isPng } from '../helpers/images.js';

type Cfg = Record<string, unknown>;
const labels = (n: number) => Array.from({ length: n }, (_, i) => `L${i}`);
const TICKS = PAGE_BUDGETS.anonymous.ticks;

describe('in-page budgets: the open endpoint and keyless /chart (Chart.js 2, 3, 4)', function () {
  this.timeout(180_000);
  let s: TestServer;
  // the real anonymous deadline (testConfig otherwise lifts it for tests about other things)
  before(async () => (s = await startTestServer({ poolSize: 1, openRendersPerHour: 1_000_000, quickchartAnonymous: true, anonymousRenderTimeoutMs: 1000 })));
  after(() => s?.stop());

  async function open(config: Cfg): Promise<{ status: number; error?: string; detail?: string; png?: boolean }> {
    const res = await fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(config), w: '400', h: '300' })}`);
    const body = await bytes(res);
    if (res.status === 200) return { status: 200, png: isPng(body) };
    const err = JSON.parse(body.toString('utf8')) as { error: string; detail?: string };
    return { status: res.status, error: err.error, ...(err.detail !== undefined ? { detail: err.detail } : {}) };
  }

  /** Keyless POST /chart: QuickChart's way, the message in X-quickchart-error. */
  async function keyless(config: Cfg, v: '2' | '3'): Promise<{ status: number; message: string }> {
    const res = await post(s.url, '/chart', { chart: JSON.stringify(config), v, w: 400, h: 300, devicePixelRatio: 1 });
    await res.arrayBuffer();
    return { status: res.status, message: res.headers.get('x-quickchart-error') ?? '' };
  }

  const tooManyTicks = (axis: string) => `budget: scale "${axis}" would build more than ${TICKS} ticks`;

  describe('Chart.js 4 on /v1/open/chart: ranges the static caps do not read', () => {
    it('a time axis whose range comes from data under `parsing` keys (seconds over 27 hours)', async () => {
      const data = [{ when: 0, v: 1 }, { when: 27 * 3_600_000, v: 2 }];
      const r = await open({ type: 'line', data: { datasets: [{ data, parsing: { xAxisKey: 'when', yAxisKey: 'v' } }] }, options: { scales: { x: { type: 'time', time: { unit: 'second' } } } } });
      expect(r).to.deep.equal({ status: 400, error: 'invalid_config', detail: tooManyTicks('x') });
    });

    it('a time axis whose range comes from the labels, on the non-index axis (minutes over 60 days; the data spans 10 minutes)', async () => {
      const r = await open({
        type: 'line',
        data: { labels: ['2020-01-01', '2020-03-01'], datasets: [{ data: [Date.UTC(2020, 0, 15), Date.UTC(2020, 0, 15, 0, 10)] }] },
        options: { scales: { y: { type: 'time', time: { unit: 'minute' } } } },
      });
      expect(r).to.deep.equal({ status: 400, error: 'invalid_config', detail: tooManyTicks('y') });
    });

    it('a plugin that widens the scale: a box annotation far along a time axis (hours over 10 years)', async () => {
      const r = await open({
        type: 'line',
        data: { datasets: [{ data: [{ x: '2020-01-01', y: 1 }, { x: '2020-01-02', y: 2 }] }] },
        options: { scales: { x: { type: 'time', time: { unit: 'hour' } } }, plugins: { annotation: { annotations: { far: { type: 'box', xMin: '2020-01-01', xMax: '2030-01-01' } } } } },
      });
      expect(r).to.deep.equal({ status: 400, error: 'invalid_config', detail: tooManyTicks('x') });
    });

    it('a logarithmic axis over 600 decades from data under `parsing` keys', async () => {
      const data = [{ at: 1, v: 1e-300 }, { at: 2, v: 1e300 }];
      const r = await open({ type: 'scatter', data: { datasets: [{ data, parsing: { xAxisKey: 'at', yAxisKey: 'v' } }] }, options: { scales: { y: { type: 'logarithmic' } } } });
      expect(r).to.deep.equal({ status: 400, error: 'invalid_config', detail: 'budget: logarithmic scale "y" spans more than 100 decades' });
    });

    it('the same kinds of chart within the budgets render', async () => {
      const data = [{ when: 0, v: 1 }, { when: 3_600_000, v: 2 }];
      expect(await open({ type: 'line', data: { datasets: [{ data, parsing: { xAxisKey: 'when', yAxisKey: 'v' } }] }, options: { scales: { x: { type: 'time', time: { unit: 'minute' } } } } })).to.deep.equal({ status: 200, png: true });
      expect(await open({ type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [1e-20, 1e20] }] }, options: { scales: { y: { type: 'logarithmic' } } } })).to.deep.equal({ status: 200, png: true });
    });
  });

  it('a key holder\'s render over its budget (a trial key: 10,000 ticks) is 400 invalid_input naming it', async () => {
    const key = (await s.account('trial')).api_key;
    const chart = { type: 'bar', data: { labels: labels(2), datasets: [{ data: [1, 2] }] }, options: { scales: { y: { ticks: { count: 20_000 } } } } };
    const res = await post(s.url, '/v1/chart', { chart, width: 300, height: 200 }, { 'x-api-key': key });
    expect(res.status).to.equal(400);
    expect(await res.json()).to.deep.equal({ error: 'invalid_input', detail: `chart config could not be rendered: budget: scale "y" would build more than ${PAGE_BUDGETS.trial.ticks} ticks` });
  });

  describe('Chart.js 2 and 3 on keyless /chart: option names the caps do not read', () => {
    it('Chart.js 2: a radial scale with a tiny step (a million rings)', async () => {
      const r = await keyless({ type: 'radar', data: { labels: labels(6), datasets: [{ data: [1, 90, 40, 5, 70, 100] }] }, options: { scale: { ticks: { stepSize: 0.0001 } } } }, '2');
      expect(r).to.deep.equal({ status: 400, message: tooManyTicks('scale') });
    });

    it('Chart.js 2: a polar area scale with a step (a range of 1000 by 0.01)', async () => {
      const r = await keyless({ type: 'polarArea', data: { labels: labels(3), datasets: [{ data: [10, 500, 1000] }] }, options: { scale: { ticks: { stepSize: 0.01 } } } }, '2');
      expect(r).to.deep.equal({ status: 400, message: tooManyTicks('scale') });
    });

    it('Chart.js 2: a range widened by beginAtZero under a step (data near a million, step 0.5)', async () => {
      const r = await keyless({ type: 'line', data: { labels: labels(2), datasets: [{ data: [999_999, 1_000_000] }] }, options: { scales: { yAxes: [{ id: 'money', ticks: { beginAtZero: true, stepSize: 0.5 } }] } } }, '2');
      expect(r).to.deep.equal({ status: 400, message: tooManyTicks('money') });
    });

    for (const v of ['2', '3'] as const) {
      it(`Chart.js ${v}: time.stepSize 1 (used) beside ticks.stepSize 5000 (read by the caps), seconds over a day`, async () => {
        const time = { unit: 'second', stepSize: 1 };
        const scales = v === '2' ? { xAxes: [{ id: 't', type: 'time', time, ticks: { stepSize: 5000 } }] } : { t: { type: 'time', axis: 'x', time, ticks: { stepSize: 5000 } } };
        const data = [{ x: 0, y: 1 }, { x: 86_400_000, y: 2 }];
        const r = await keyless({ type: 'line', data: { datasets: [{ data, ...(v === '3' ? { xAxisID: 't' } : {}) }] }, options: { scales } }, v);
        expect(r).to.deep.equal({ status: 400, message: tooManyTicks('t') });
      });
    }

    it('Chart.js 3: a timeseries axis whose range comes from data under `parsing` keys (seconds over a day)', async () => {
      const data = [{ t: 0, n: 1 }, { t: 86_400_000, n: 2 }];
      const r = await keyless({ type: 'line', data: { datasets: [{ data, parsing: { xAxisKey: 't', yAxisKey: 'n' } }] }, options: { scales: { x: { type: 'timeseries', time: { unit: 'second' } } } } }, '3');
      expect(r).to.deep.equal({ status: 400, message: tooManyTicks('x') });
    });

    it('Chart.js 2: fonts sized by Chart.js 2 names (fontSize, which the caps do not read) are answered 200 or 400, never a 5xx', async () => {
      const r = await keyless({
        type: 'bar',
        data: { labels: labels(40).map((l) => l.repeat(20)), datasets: [{ data: Array.from({ length: 40 }, (_, i) => i) }] },
        options: { title: { display: true, text: 'W'.repeat(500), fontSize: 100_000 }, legend: { labels: { fontSize: 100_000 } }, scales: { xAxes: [{ ticks: { fontSize: 100_000 } }] } },
      }, '2');
      expect([200, 400], r.message).to.include(r.status);
      if (r.status === 400) expect(r.message).to.match(/^budget: /);
    });

    it('a chart within the budgets still renders on both', async () => {
      for (const v of ['2', '3'] as const) {
        const r = await keyless({ type: 'radar', data: { labels: labels(6), datasets: [{ data: [1, 90, 40, 5, 70, 100] }] }, options: {} }, v);
        expect(r, v).to.deep.equal({ status: 200, message: '' });
      }
    });
  });
});

describe('in-page budgets on the pool, per Chart.js version; deadlines per caller class', function () {
  this.timeout(180_000);
  let pool: Renderer;
  before(async () => (pool = await startPool(testConfig({ poolSize: 1, renderTimeoutMs: 4000 }), pino({ level: 'silent' }))));
  after(() => pool?.close());

  const request = (config: Cfg, chartjs: 2 | 3 | 4, budget?: PageBudget, extra: Partial<PageRequest> = {}): PageRequest => ({
    config,
    width: 300,
    height: 200,
    format: 'png',
    backgroundColor: '#fff',
    allowFunctions: false,
    watermark: null,
    chartjs,
    ...(budget ? { budget } : {}),
    ...extra,
  });
  async function refusal(req: PageRequest): Promise<string> {
    try {
      await pool.render(req);
    } catch (err) {
      if (err instanceof RenderError) return `${err.kind}: ${err.message}`;
      throw err;
    }
    return 'rendered';
  }
  const small: PageBudget = { ticks: 50, elements: 100, logDecades: 10, units: PAGE_BUDGETS.paid.units };

  for (const v of [2, 3, 4] as const) {
    describe(`Chart.js ${v}`, () => {
      const line = (n: number) => ({ type: 'line', data: { labels: labels(n), datasets: [{ data: Array.from({ length: n }, (_, i) => i % 7) }, { data: [1, 2, 3] }] } });
      it('more elements than the budget: refused before layout; within it: drawn', async () => {
        expect(await refusal(request(line(98), v, small))).to.equal('budget: budget: the chart would draw more than 100 elements (data points over all datasets)');
        expect(await refusal(request(line(97), v, small))).to.equal('rendered');
      });

      it('a linear axis over its tick budget (min/max over stepSize); a log axis over its decades', async () => {
        const y = { min: 0, max: 100, ticks: { stepSize: 1 } };
        const scales = v === 2 ? { yAxes: [{ id: 'y', ticks: { min: 0, max: 100, stepSize: 1 } }] } : { y };
        expect(await refusal(request({ ...line(3), options: { scales } }, v, small))).to.equal('budget: budget: scale "y" would build more than 50 ticks');
        const log = v === 2 ? { yAxes: [{ id: 'y', type: 'logarithmic' }] } : { y: { type: 'logarithmic' } };
        const data = { labels: labels(2), datasets: [{ data: [1e-6, 1e6] }] };
        expect(await refusal(request({ type: 'bar', data, options: { scales: log } }, v, small))).to.equal('budget: budget: logarithmic scale "y" spans more than 10 decades');
        // Chart.js widens 1e-6..1e6 to whole decades, and makes up to 9 ticks a decade
        expect(await refusal(request({ type: 'bar', data, options: { scales: log } }, v, { ...small, ticks: 500, logDecades: 20 }))).to.equal('rendered');
      });

      it('without a budget (the service\'s own renders) nothing is refused', async () => {
        expect(await refusal(request(line(300), v))).to.equal('rendered');
      });
    });
  }

  it('caller code that catches the budget\'s error and draws on is refused all the same', async () => {
    // a keyed caller's callback builds the ticks itself inside a try, then shrinks the step so
    // that Chart.js's own build passes: the refusal was remembered
    const retry = 'function (scale) { try { scale.buildTicks(); } catch (e) {} scale.options.ticks.stepSize = 50; }';
    const config = { type: 'bar', data: { labels: labels(2), datasets: [{ data: [1, 2] }] }, options: { scales: { y: { min: 0, max: 100, ticks: { stepSize: 1 }, afterDataLimits: retry } } } };
    const got = await refusal(request(config, 4, small, { allowFunctions: true }));
    expect(got).to.equal('budget: budget: scale "y" would build more than 50 ticks');
  });

  it('a runaway script past its deadline: anonymous 400 invalid_config naming the budget, trial 500; interrupted, the page reset and the next render whole', async () => {
    const service = new RenderService(pool, undefined, { deadlines: { anonymous: 300, trial: 300, paid: 4000 } });
    const bar = { type: 'bar', data: { labels: labels(3), datasets: [{ data: [1, 2, 3] }] } };
    const base = { config: bar, width: 300, height: 200, format: 'png' as const, backgroundColor: '#fff', allowFunctions: true, watermark: null };
    const clean = (await service.render(base)).body;
    const loop = { ...base, config: { ...bar, options: { scales: { y: { ticks: { callback: 'function (v) { while (true) {} }' } } } } } };
    const before = pool.stats();
    for (const [caller, status, code] of [['anonymous', 400, 'invalid_config'], ['trial', 500, 'render_failed']] as const) {
      const err = await service.render(loop, undefined, undefined, undefined, caller).then(() => null, (e: unknown) => e);
      expect(err, caller).to.be.instanceOf(AppError);
      expect((err as AppError).status, caller).to.equal(status);
      expect((err as AppError).code, caller).to.equal(code);
      expect(renderStoppedBy(err), caller).to.equal('timeout');
      if (caller === 'anonymous') expect((err as AppError).detail).to.equal('budget: the chart took longer than the 0.3 s an anonymous render may take');
      expect((await service.render(base)).body.equals(clean), `the render after the ${caller} one`).to.equal(true);
    }
    const after = pool.stats();
    expect(after.renderInterrupts).to.equal((before.renderInterrupts ?? 0) + 2);
    expect(after.pagesDestroyed, 'no page replaced').to.equal(before.pagesDestroyed);
  });
});
