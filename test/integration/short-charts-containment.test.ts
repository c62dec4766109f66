// Short URLs that cannot be turned into bombs, against a real server: real
// Chromium, a real SQLite file, an injected clock. "Works now, loops later" is simulated
// honestly: a chart is created with a working callback, then its stored request is rewritten
// in the SQLite file to a callback that loops forever (a callback that reads the real date
// would make the test depend on how fast the machine is).
import { expect } from 'chai';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { DAY, FakeClock } from '../helpers/clock.js';
import { probeRenders, type RenderProbe } from '../helpers/renders.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import { rerenderLimits } from '../../src/services/shortCharts.js';
import { apiKey, bytes, errorOf } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

const RENDER_TIMEOUT_MS = 3000;
const MIN = 60_000;
const WORKS = "function(v){ return v + ' u'; }";
const LOOPS = 'function(v){ while (true) {} }';

let seq = 0;
function fnChart(callback = WORKS): unknown {
  seq++;
  return { ...BAR, data: { ...BAR.data, labels: [`L${seq}`, 'B', 'C', 'D'] }, options: { scales: { y: { ticks: { callback } } } } };
}
function plainChart(): unknown {
  seq++;
  return { ...BAR, data: { ...BAR.data, labels: [`P${seq}`, 'B', 'C', 'D'] } };
}

describe('short charts cannot be turned into bombs', function () {
  this.timeout(180000);
  let s: TestServer;
  let clock: FakeClock;
  let probe: RenderProbe | null = null;

  before(async () => {
    clock = new FakeClock(Date.UTC(2031, 0, 1, 12));
    // RENDER_TIMEOUT_MS above ACQUIRE_TIMEOUT_MS, as in production (10 s and 5 s): a request that
    // waits for a page held by a looping callback gives up (503) before the loop is stopped.
    s = await startTestServer({ poolSize: 2, renderTimeoutMs: RENDER_TIMEOUT_MS, acquireTimeoutMs: 1000 }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => s?.stop());
  afterEach(() => {
    probe?.restore();
    probe = null;
  });

  const db = () => (s.deps.store as SqliteStore).db;
  const get = (id: string) => fetch(`${s.url}/v1/chart/${id}`);
  /** GET of a chart that must be answered 200 from its last good image. */
  async function servedStale(id: string, what?: string): Promise<Response> {
    const res = await get(id);
    expect(res.status, what).to.equal(200);
    expect(res.headers.get('x-cache-tier'), what).to.equal('stale');
    return res;
  }

  async function createChart(key: string, chart: unknown): Promise<string> {
    // a setup step, not a test of the pool: both pages idle first (a page the test before stopped
    // or replaced may still be loading, which on a loaded machine outlasts ACQUIRE_TIMEOUT_MS 1 s)
    await waitFor('both pages idle before a chart is created', () => s.deps.pool.stats().available === 2, { ms: 60_000, stepMs: 50, state: () => s.deps.pool.stats() });
    const res = await post(s.url, '/v1/chart/create', { chart, width: 200, height: 100 }, apiKey(key));
    expect(res.status, await res.clone().text()).to.equal(201);
    return ((await res.json()) as { id: string }).id;
  }

  /** Fault injection: the stored request's callback now loops forever. */
  function makeItLoop(id: string): void {
    const row = db().prepare<[string], { request_json: string }>('SELECT request_json FROM charts WHERE id = ?').get(id)!;
    const req = JSON.parse(row.request_json) as { config: { options: { scales: { y: { ticks: { callback: string } } } } } };
    req.config.options.scales.y.ticks.callback = LOOPS;
    db().prepare('UPDATE charts SET request_json = ? WHERE id = ?').run(JSON.stringify(req), id);
  }

  /** The chart's last good image is lost too (the worst case: nothing to serve meanwhile). */
  function loseImage(id: string): void {
    db().prepare('DELETE FROM images WHERE key = ?').run(`chart:${id}`);
    s.deps.imageCache.clearMemory();
  }

  /** Past the starter plan's 90-day cache duration of everything created so far. */
  const expireAll = () => clock.advance(91 * DAY);

  it('works now, loops later: the last good image is served at once while one re-render fails in the background; the failure is remembered and retried after a 1 min, then 2 min backoff', async () => {
    const acct = await s.account('starter');
    const id = await createChart(acct.api_key, fnChart());
    const first = await get(id);
    expect(first.status).to.equal(200);
    const good = await bytes(first);
    makeItLoop(id);
    expireAll();
    probe = probeRenders(s);

    // Every GET, while the re-render loops and after it failed: the last good image, at once.
    for (let i = 0; i < 6; i++) {
      const res = await servedStale(id, `GET ${i}`);
      expect(res.headers.get('cache-control')).to.equal('public, max-age=60');
      expect(res.headers.get('etag')).to.equal(first.headers.get('etag'));
      expect((await bytes(res)).equals(good)).to.equal(true);
      if (i === 2) await s.deps.shortCharts.idle(); // the attempt has failed by now
    }
    // the download URL serves the same image with the same short lifetime, never for a year
    const download = await fetch(`${s.url}/v1/chart/${id}/download`);
    expect(download.status).to.equal(200);
    expect(download.headers.get('cache-control')).to.equal('public, max-age=60');
    expect(download.headers.get('content-disposition')).to.match(/^attachment; filename="chart-/);
    expect((await bytes(download)).equals(good)).to.equal(true);
    expect(probe.count, 'render attempts').to.equal(1);
    const failure = await s.deps.store.charts.rerenderFailure(id);
    expect(failure).to.deep.include({ failures: 1, retryAt: clock.now() + MIN, status: 500, code: 'render_failed' });

    // After the backoff: exactly one more attempt, and the next wait is twice as long.
    clock.advance(MIN);
    for (let i = 0; i < 3; i++) expect((await get(id)).headers.get('x-cache-tier')).to.equal('stale');
    await s.deps.shortCharts.idle();
    expect(probe.count).to.equal(2);
    expect(await s.deps.store.charts.rerenderFailure(id)).to.deep.include({ failures: 2, retryAt: clock.now() + 2 * MIN });
    clock.advance(MIN);
    expect((await get(id)).status).to.equal(200);
    await s.deps.shortCharts.idle();
    expect(probe.count, 'still backing off').to.equal(2);
    // The chart's metrics count the failed attempts.
    const m = await fetch(`${s.url}/v1/metrics/${id}`, { headers: apiKey(acct.api_key) });
    expect(((await m.json()) as { errorCount: number }).errorCount).to.equal(2);
  });

  it('without a last good image: the first GET waits for the attempt; later GETs get its error at once with Retry-After, across a restart; after the backoff one more attempt; a success clears it', async () => {
    const acct = await s.account('starter');
    const id = await createChart(acct.api_key, fnChart());
    makeItLoop(id);
    loseImage(id);
    probe = probeRenders(s);
    const r1 = await get(id);
    expect(r1.status).to.equal(500);
    expect((await errorOf(r1)).error).to.equal('render_failed');
    expect(r1.headers.get('retry-after')).to.equal('60');
    expect(probe.count).to.equal(1);
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const res = await get(id);
      const ms = performance.now() - t;
      expect(res.status).to.equal(500);
      expect((await errorOf(res)).error).to.equal('render_failed');
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
      // answered without a page: far below the render timeout a new attempt would take
      expect(ms).to.be.lessThan(RENDER_TIMEOUT_MS);
    }
    expect(probe.count, 'no new attempt during the backoff').to.equal(1);
    // the page the loop held comes back (its script interrupted, the page reset): none stays held
    await waitFor('the page the loop held back in the pool', () => s.deps.pool.stats().borrowed === 0, { ms: 15_000, stepMs: 50, state: () => s.deps.pool.stats() });
    expect(s.deps.pool.stats().borrowed).to.equal(0);

    // Remembered in the store: a restarted server does not try again before the backoff ends.
    const dataDir = s.config.dataDir;
    probe.restore();
    probe = null;
    await s.stop({ keepData: true });
    s = await startTestServer({ dataDir, poolSize: 2, renderTimeoutMs: RENDER_TIMEOUT_MS, acquireTimeoutMs: 1000 }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
    probe = probeRenders(s);
    const r2 = await get(id);
    expect(r2.status).to.equal(500);
    expect(r2.headers.get('retry-after')).to.equal('60');
    expect(probe.count).to.equal(0);

    clock.advance(MIN);
    expect((await get(id)).status).to.equal(500);
    expect(probe.count).to.equal(1);
    expect((await get(id)).headers.get('retry-after')).to.equal('120');
    expect(probe.count).to.equal(1);

    // The chart works again (say the date it depended on passed): the next attempt succeeds,
    // and the remembered failure is gone.
    const row = db().prepare<[string], { request_json: string }>('SELECT request_json FROM charts WHERE id = ?').get(id)!;
    db().prepare('UPDATE charts SET request_json = ? WHERE id = ?').run(row.request_json.replace(LOOPS, WORKS), id);
    clock.advance(2 * MIN);
    const ok = await get(id);
    expect(ok.status).to.equal(200);
    expect(ok.headers.get('x-cache-tier')).to.equal('miss');
    expect(probe.count).to.equal(2);
    expect(await s.deps.store.charts.rerenderFailure(id)).to.equal(null);
    expect((await get(id)).headers.get('x-cache-tier')).to.equal('edge');
  });

  it("three looping charts do not push a paying account's renders into 503: re-renders hold at most half the pool", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const hostile = await s.account('starter');
      const id = await createChart(hostile.api_key, fnChart());
      makeItLoop(id);
      loseImage(id);
      ids.push(id);
    }
    const paying = (await s.account('growth')).api_key;
    // the creates ran caller code: their pages are reset (still borrowed) after the answer
    await waitFor('the pool idle before the loops start', () => s.deps.pool.stats().borrowed === 0, { state: () => s.deps.pool.stats() });
    probe = probeRenders(s);
    const gets = ids.map((id) => get(id).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await errorOf(r) })));
    // one page is held by a loop from here on until the render timeout
    await waitFor('a loop holding a page', () => s.deps.pool.stats().borrowed >= 1, { state: () => s.deps.pool.stats() });
    expect(s.deps.pool.stats().borrowed).to.equal(1);
    for (let i = 0; i < 4; i++) {
      const chart = { ...BAR, data: { ...BAR.data, datasets: [{ label: 'paid', data: [1, 2, 3, i] }] } };
      const res = await post(s.url, '/v1/chart', { chart, width: 200, height: 100 }, apiKey(paying));
      expect(res.status, `paid render ${i}: ${res.status === 200 ? '' : await res.text()}`).to.equal(200);
    }
    const answers = await Promise.all(gets);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([500, 503, 503]);
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.body.error).to.equal('service_unavailable');
      expect(Number(a.retryAfter)).to.be.at.least(1);
    }
    expect(probe.count, 'one re-render and the 4 paid renders ran').to.equal(5);
  });

  it("after the key is revoked the chart's code never runs: the last good image is served; without one, 404; a chart without functions still re-renders", async () => {
    // the loop of the test before is interrupted and its page reset (held until then)
    await waitFor('the pool idle (the loop before interrupted, its page reset)', () => s.deps.pool.stats().borrowed === 0, { state: () => s.deps.pool.stats() });
    const acct = await s.account('starter');
    const id = await createChart(acct.api_key, fnChart());
    const lost = await createChart(acct.api_key, fnChart());
    const plain = await createChart(acct.api_key, plainChart());
    const plainImage = await bytes(get(plain));
    for (const x of [id, lost]) makeItLoop(x);
    expect(await s.deps.accounts.revokeKey(acct.key_id)).to.equal(true);
    expireAll();
    loseImage(lost);
    probe = probeRenders(s);

    await servedStale(id);
    const gone = await get(lost);
    expect(gone.status).to.equal(404);
    const body = await errorOf(gone);
    expect(body.error).to.equal('not_found');
    expect(body.detail).to.match(/revoked or has expired/);
    await s.deps.shortCharts.idle();
    expect(probe.count, 'no render of a revoked key\'s code').to.equal(0);

    // Nothing in it to run: re-rendered as before (without the means to run code), same image.
    const again = await get(plain);
    expect(again.headers.get('x-cache-tier')).to.equal('stale');
    await s.deps.shortCharts.idle();
    expect(probe.count).to.equal(1);
    const fresh = await get(plain);
    expect(fresh.headers.get('x-cache-tier')).to.equal('edge');
    expect((await bytes(fresh)).equals(plainImage)).to.equal(true);
  });

  it('a terminated account\'s charts answer 404, stale image or not, and run nothing', async () => {
    const acct = await s.account('starter');
    const id = await createChart(acct.api_key, fnChart());
    makeItLoop(id);
    expireAll();
    probe = probeRenders(s);
    const account = (await s.deps.store.accounts.find(acct.account_id))!;
    await s.deps.billing.terminate(account, clock.now(), 'test');
    expect((await get(id)).status).to.equal(404);
    expect(probe.count).to.equal(0);
  });

  it('per chart: a chart whose image keeps disappearing re-renders 3 times, then 503 with Retry-After until the bucket refills', async () => {
    const acct = await s.account('starter');
    const id = await createChart(acct.api_key, plainChart());
    probe = probeRenders(s);
    for (let i = 0; i < 3; i++) {
      loseImage(id);
      const res = await get(id);
      expect(res.status, `re-render ${i}`).to.equal(200);
      expect(res.headers.get('x-cache-tier')).to.equal('miss');
    }
    loseImage(id);
    const refused = await get(id);
    expect(refused.status).to.equal(503);
    expect((await errorOf(refused)).error).to.equal('service_unavailable');
    expect(refused.headers.get('retry-after')).to.equal('600');
    expect(probe.count).to.equal(3);
    clock.advance(10 * MIN);
    expect((await get(id)).status).to.equal(200);
    expect(probe.count).to.equal(4);
  });

  it("per account: once its charts' re-renders have used the account's page-time budget, its stale charts are served stale and the others get 503 with Retry-After, without a render", async () => {
    const acct = await s.account('starter');
    const a = await createChart(acct.api_key, plainChart());
    const b = await createChart(acct.api_key, plainChart());
    const other = await s.account('starter');
    const c = await createChart(other.api_key, plainChart());
    expireAll();
    loseImage(b);
    // as if six re-renders had each burnt a render timeout
    await s.deps.store.charts.chargeRerender(acct.account_id, clock.now(), 6 * RENDER_TIMEOUT_MS, rerenderLimits(RENDER_TIMEOUT_MS));
    probe = probeRenders(s);
    await servedStale(a);
    const rb = await get(b);
    expect(rb.status).to.equal(503);
    expect((await errorOf(rb)).error).to.equal('service_unavailable');
    expect(Number(rb.headers.get('retry-after'))).to.be.at.least(1);
    await s.deps.shortCharts.idle();
    expect(probe.count).to.equal(0);
    // another account is not affected
    expect((await get(c)).headers.get('x-cache-tier')).to.equal('stale');
    await s.deps.shortCharts.idle();
    expect(probe.count).to.equal(1);
    // the budget comes back with time (one render timeout every 40 s)
    clock.advance(MIN);
    expect((await get(b)).status).to.equal(200);
    expect(probe.count).to.equal(2);
  });
});
