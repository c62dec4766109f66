// POST /v1/chart/create, GET /v1/chart/{id}, GET /v1/metrics/{id} against real servers:
// real Chromium pages, real SQLite files, both cache tiers, restarts and an injected clock.
import { expect } from 'chai';
import { BAR, type Credentials, post, sharedAccount, startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio, isPng } from '../helpers/images.js';
import { chartKeyOf, generationsCounted, probeRenders, type RenderProbe } from '../helpers/renders.js';
import { crashDuringRender, whileRendersHeld } from '../helpers/crash.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import { apiKey, bytes, errorOf } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

const DAY_MS = 86_400_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let seq = 0;
/** A bar chart no other test renders (so nothing coalesces across tests). */
function uniqueChart(): typeof BAR {
  seq++;
  return { ...BAR, data: { ...BAR.data, labels: [`A${seq}`, `B${process.pid}`, 'C', 'D'] } };
}

function idOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

interface Metrics {
  hitCount: number;
  errorCount: number;
  avgRenderTime: number;
  lastAccessed: string;
}

async function metricsOf(base: string, id: string, key: string): Promise<Metrics> {
  const res = await fetch(`${base}/v1/metrics/${id}`, { headers: apiKey(key) });
  expect(res.status, await res.clone().text()).to.equal(200);
  return (await res.json()) as Metrics;
}

describe('short charts: POST /v1/chart/create and GET /v1/chart/{id}', function () {
  let s: TestServer;
  let acct: Credentials;
  let other: Credentials;
  let probe: RenderProbe | null = null;

  before(async () => {
    ({ s, account: acct } = await sharedAccount());
    other = await s.account('starter');
  });

  afterEach(() => {
    probe?.restore();
    probe = null;
  });

  const create = (body: unknown, key = acct.api_key) => post(s.url, '/v1/chart/create', body, apiKey(key));

  async function createId(body: unknown, key = acct.api_key): Promise<string> {
    const res = await create(body, key);
    expect(res.status, await res.clone().text()).to.equal(201);
    return idOf(((await res.json()) as { url: string }).url);
  }

  /** Forgets the chart's image in both tiers, so the next GET must re-render it. */
  async function evict(id: string): Promise<void> {
    await s.deps.store.images.delete(`chart:${id}`);
    s.deps.imageCache.clearMemory();
  }

  it('201 {url}: {PUBLIC_BASE_URL}/v1/chart/<id>, an unguessable id and no key or secret in the URL', async () => {
    const res = await create({ chart: uniqueChart(), width: 320, height: 160 });
    expect(res.status).to.equal(201);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    const body = (await res.json()) as { url: string; id: string };
    const id = idOf(body.url);
    expect(body.url).to.equal(`${s.config.publicBaseUrl}/v1/chart/${id}`);
    expect(body.id).to.equal(id);
    expect(id).to.match(/^[A-Za-z0-9_-]{22}$/); // 128 random bits, URL-safe
    for (const secret of [acct.api_key, acct.key_id, acct.signing_secret, acct.account_id]) expect(body.url).not.to.contain(secret);
    expect(await createId({ chart: uniqueChart(), width: 10, height: 10 })).not.to.equal(id);
  });

  it('GET without credentials: the image, its Content-Type, ETag and a long-lived Cache-Control', async () => {
    const chart = uniqueChart();
    const id = await createId({ chart, width: 320, height: 160, backgroundColor: 'white' });
    const res = await fetch(`${s.url}/v1/chart/${id}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]{10,}"$/);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    const buf = await bytes(res);
    expect(isPng(buf)).to.equal(true);
    expect([decodePng(buf).width, decodePng(buf).height]).to.deep.equal([320, 160]);
    // The same image a direct render of the same request gives.
    const direct = await post(s.url, '/v1/chart', { chart, width: 320, height: 160, backgroundColor: 'white' }, apiKey(acct.api_key));
    expect(diffRatio(buf, await bytes(direct))).to.equal(0);
  });

  it('SVG charts are served as image/svg+xml', async () => {
    const id = await createId({ chart: uniqueChart(), width: 300, height: 150, format: 'svg' });
    const res = await fetch(`${s.url}/v1/chart/${id}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(await res.text()).to.match(/^(<\?xml[^>]*>\s*)?<svg[^>]*\swidth="300"/);
  });

  it('If-None-Match with the ETag (strong, weak or in a list) -> 304 without a body', async () => {
    const id = await createId({ chart: uniqueChart(), width: 100, height: 50 });
    const etag = (await fetch(`${s.url}/v1/chart/${id}`)).headers.get('etag')!;
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`]) {
      const res = await fetch(`${s.url}/v1/chart/${id}`, { headers: { 'if-none-match': inm } });
      expect(res.status, inm).to.equal(304);
      expect(res.headers.get('etag')).to.equal(etag);
      expect(await res.text()).to.equal('');
    }
    const stale = await fetch(`${s.url}/v1/chart/${id}`, { headers: { 'if-none-match': '"other"' } });
    expect(stale.status).to.equal(200);
  });

  it('unknown or malformed id -> 404 not_found', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'nope', 'create', '%2e%2e', 'x'.repeat(200)]) {
      const e = await errorOf(await fetch(`${s.url}/v1/chart/${id}`));
      expect(e, id).to.include({ status: 404, error: 'not_found' });
    }
  });

  describe('create errors carry their codes', () => {
    const cases: Array<[string, unknown, Record<string, string> | 'own', number, string]> = [
      ['no key', { chart: BAR, width: 100, height: 100 }, {}, 401, 'unauthorized'],
      ['a bad key', { chart: BAR, width: 100, height: 100 }, apiKey('live_nope'), 401, 'unauthorized'],
      ['missing chart', { width: 100, height: 100 }, 'own', 400, 'chart_required'],
      ['missing width', { chart: BAR, height: 100 }, 'own', 400, 'invalid_dimensions'],
      ['width too large', { chart: BAR, width: 2001, height: 100 }, 'own', 400, 'invalid_dimensions'],
      ['bad format', { chart: BAR, width: 100, height: 100, format: 'gif' }, 'own', 400, 'invalid_input'],
      ['pdf on starter', { chart: BAR, width: 100, height: 100, format: 'pdf' }, 'own', 400, 'invalid_input'],
      ['chart not JSON', { chart: '{nope', width: 100, height: 100 }, 'own', 400, 'invalid_input'],
      ['an unsupported type', { chart: { type: 'sunburst', data: {} }, width: 100, height: 100 }, 'own', 400, 'invalid_input'],
    ];
    for (const [name, body, headers, status, code] of cases) {
      it(`${name} -> ${status} ${code}`, async () => {
        const res = await post(s.url, '/v1/chart/create', body, headers === 'own' ? apiKey(acct.api_key) : headers);
        expect(await errorOf(res)).to.include({ status, error: code });
      });
    }

    it('a render that fails (its renderer process killed) -> 500 render_failed, and no chart is kept', async () => {
      const fresh = await s.account('starter');
      const { result, crashed } = await crashDuringRender(s, () => create({ chart: uniqueChart(), width: 100, height: 50 }, fresh.api_key));
      const e = await errorOf(result);
      expect(e).to.include({ status: 500, error: 'render_failed' });
      expect(crashed, 'pages the pool saw crash').to.be.at.least(1);
      expect(await generationsCounted(s, fresh.account_id)).to.include({ used: 0, reserved: 0 });
      const row = (s.deps.store as SqliteStore).db
        .prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM charts WHERE account_id = ?')
        .get(fresh.account_id);
      expect(row!.n).to.equal(0);
    });
  });

  it('keeps the normalised request with the creator permissions: a pk_test_ key keeps its watermark, functions stay allowed', async () => {
    const test = await s.deps.accounts.createKey(acct.account_id, 'test');
    const chart = {
      ...uniqueChart(),
      options: { scales: { y: { ticks: { callback: "function(v){ return v + '%' }" } } } },
    };
    const id = await createId({ chart, width: 240, height: 120, backgroundColor: '#fff' }, test.api_key);
    const rec = await s.deps.store.charts.find(id);
    expect(rec).to.include({ accountId: acct.account_id, keyId: test.key_id });
    expect(rec!.request).to.deep.include({ width: 240, height: 120, format: 'png', backgroundColor: '#fff', allowFunctions: true, watermark: 'chartshot TEST' });
    expect(rec!.request.config).to.deep.equal(chart);
    const first = await bytes(fetch(`${s.url}/v1/chart/${id}`));
    await evict(id);
    probe = probeRenders(s);
    const again = await fetch(`${s.url}/v1/chart/${id}`);
    expect(again.status).to.equal(200);
    expect(again.headers.get('x-cache-tier')).to.equal('miss');
    expect(probe.count).to.equal(1);
    // Re-rendered from the stored request: the same picture, watermark and function ticks included.
    expect(diffRatio(first, await bytes(again))).to.equal(0);
  });

  it('cache tiers: memory hit after create, persistent hit once memory is cleared, then memory again; no render', async () => {
    const id = await createId({ chart: uniqueChart(), width: 200, height: 100 });
    probe = probeRenders(s);
    const a = await fetch(`${s.url}/v1/chart/${id}`);
    expect(a.headers.get('x-cache-tier')).to.equal('edge');
    s.deps.imageCache.clearMemory();
    const b = await fetch(`${s.url}/v1/chart/${id}`);
    expect(b.headers.get('x-cache-tier')).to.equal('r2');
    const c = await fetch(`${s.url}/v1/chart/${id}`);
    expect(c.headers.get('x-cache-tier')).to.equal('edge');
    expect(b.headers.get('etag')).to.equal(a.headers.get('etag'));
    expect((await bytes(b)).equals(await bytes(a))).to.equal(true);
    expect(probe.count).to.equal(0);
  });

  it('a failed re-render -> 500 render_failed with Retry-After, counted in errorCount; the next GET gets the same answer at once, without a render', async () => {
    const id = await createId({ chart: uniqueChart(), width: 100, height: 50 });
    await evict(id);
    const { result: first, crashed } = await crashDuringRender(s, () => fetch(`${s.url}/v1/chart/${id}`));
    expect(crashed, 'pages the pool saw crash').to.be.at.least(1);
    expect(first.headers.get('retry-after')).to.equal('60');
    expect(await errorOf(first)).to.include({ status: 500, error: 'render_failed' });
    probe = probeRenders(s);
    // remembered: backing off (1 min) before the next attempt; recovery after it is in
    // short-charts-containment.test.ts, which moves the clock
    const again = await fetch(`${s.url}/v1/chart/${id}`);
    expect(Number(again.headers.get('retry-after'))).to.be.within(1, 60);
    expect(await errorOf(again)).to.include({ status: 500, error: 'render_failed' });
    expect(probe.count).to.equal(0);
    const m = await metricsOf(s.url, id, acct.api_key);
    expect(m).to.include({ hitCount: 0, errorCount: 2 });
  });

  describe('coalescing: identical renders in flight at once run once', () => {
    const N = 6;
    // the requests are held in a real busy pool (frozen renderers) until all N joined
    const inFlight = () => s.deps.renderer.callersInFlight();

    it(`${N} concurrent identical creates -> one render, ${N} charts`, async () => {
      probe = probeRenders(s);
      const body = { chart: uniqueChart(), width: 150, height: 75 };
      const res = await whileRendersHeld(s, () => Promise.all(Array.from({ length: N }, () => create(body))), inFlight, N);
      expect(res.map((r) => r.status)).to.deep.equal(Array(N).fill(201));
      const ids = await Promise.all(res.map(async (r) => idOf(((await r.json()) as { url: string }).url)));
      expect(new Set(ids).size).to.equal(N);
      expect(probe.count).to.equal(1);
      const etags = await Promise.all(ids.map(async (id) => (await fetch(`${s.url}/v1/chart/${id}`)).headers.get('etag')));
      expect(new Set(etags).size).to.equal(1);
      // Every chart got a render time, the joiners' included.
      for (const id of ids) expect((await metricsOf(s.url, id, acct.api_key)).avgRenderTime).to.be.greaterThan(0);
    });

    it(`${N} concurrent identical POST /v1/chart -> one render`, async () => {
      probe = probeRenders(s);
      const body = { chart: uniqueChart(), width: 150, height: 75 };
      const res = await whileRendersHeld(s, () => Promise.all(Array.from({ length: N }, () => post(s.url, '/v1/chart', body, apiKey(acct.api_key)))), inFlight, N);
      expect(res.map((r) => r.status)).to.deep.equal(Array(N).fill(200));
      expect(probe.count).to.equal(1);
    });

    it(`${N} concurrent GETs of an expired chart -> one re-render shared by all`, async () => {
      const id = await createId({ chart: uniqueChart(), width: 150, height: 75 });
      await evict(id);
      probe = probeRenders(s);
      const res = await whileRendersHeld(s, () => Promise.all(Array.from({ length: N }, () => fetch(`${s.url}/v1/chart/${id}`))), () => s.deps.shortCharts.callersInFlight(), N);
      expect(res.map((r) => r.status)).to.deep.equal(Array(N).fill(200));
      expect(res.map((r) => r.headers.get('x-cache-tier'))).to.deep.equal(Array(N).fill('miss'));
      expect(probe.count).to.equal(1);
      expect((await metricsOf(s.url, id, acct.api_key)).hitCount).to.equal(N);
    });
  });

  describe('GET /v1/metrics/{id}', () => {
    it('no key -> 401; another account\'s key -> 404; unknown id -> 404; a bad key -> 401', async () => {
      const id = await createId({ chart: uniqueChart(), width: 100, height: 50 });
      expect(await errorOf(await fetch(`${s.url}/v1/metrics/${id}`))).to.include({ status: 401, error: 'unauthorized' });
      expect(await errorOf(await fetch(`${s.url}/v1/metrics/${id}`, { headers: apiKey('live_nope') }))).to.include({
        status: 401,
        error: 'unauthorized',
      });
      expect(await errorOf(await fetch(`${s.url}/v1/metrics/${id}`, { headers: apiKey(other.api_key) }))).to.include({
        status: 404,
        error: 'not_found',
      });
      expect(await errorOf(await fetch(`${s.url}/v1/metrics/AAAAAAAAAAAAAAAAAAAAAA`, { headers: apiKey(acct.api_key) }))).to.include({
        status: 404,
        error: 'not_found',
      });
      // The api_key query parameter works too.
      expect((await fetch(`${s.url}/v1/metrics/${id}?api_key=${acct.api_key}`)).status).to.equal(200);
    });

    it('hitCount counts serves (304 included), lastAccessed follows them, avgRenderTime is the mean in ms', async () => {
      // a render that spends at least 600 ms in the page (its title callback waits that long)
      const slow = uniqueChart();
      const slowChart = { ...slow, options: { plugins: { title: { display: true, text: 'function(){ var t = Date.now(); while (Date.now() - t < 600) {} return "slow"; }' } } } };
      let t = performance.now();
      const id = await createId({ chart: slowChart, width: 120, height: 60 });
      const createMs = performance.now() - t;
      const created = await metricsOf(s.url, id, acct.api_key);
      expect(Object.keys(created).sort()).to.deep.equal(['avgRenderTime', 'errorCount', 'hitCount', 'lastAccessed']);
      expect(created).to.include({ hitCount: 0, errorCount: 0 });
      expect(created.lastAccessed).to.match(ISO); // the creation time until first fetched
      expect(created.avgRenderTime).to.be.within(600, createMs);

      const before = Date.now();
      const etag = (await fetch(`${s.url}/v1/chart/${id}`)).headers.get('etag')!;
      await fetch(`${s.url}/v1/chart/${id}`);
      await fetch(`${s.url}/v1/chart/${id}`, { headers: { 'if-none-match': etag } });
      await fetch(`${s.url}/v1/metrics/${id}`, { headers: apiKey(acct.api_key) }); // not a hit
      const m = await metricsOf(s.url, id, acct.api_key);
      expect(m).to.include({ hitCount: 3, errorCount: 0 });
      expect(Date.parse(m.lastAccessed)).to.be.within(before, Date.now());
      expect(m.avgRenderTime).to.equal(created.avgRenderTime); // cache hits are not renders

      // A re-render (>= 0 ms, at most its request's time): the mean of two, not their sum or the last.
      await evict(id);
      t = performance.now();
      expect((await fetch(`${s.url}/v1/chart/${id}`)).headers.get('x-cache-tier')).to.equal('miss');
      const getMs = performance.now() - t;
      const after = await metricsOf(s.url, id, acct.api_key);
      expect(after.hitCount).to.equal(4);
      expect(after.avgRenderTime).to.be.within(created.avgRenderTime / 2 - 0.01, (created.avgRenderTime + getMs) / 2 + 0.01);
    });

    it('counters are written to the store in batches, about every second', async () => {
      const id = await createId({ chart: uniqueChart(), width: 100, height: 50 });
      for (let i = 0; i < 5; i++) await fetch(`${s.url}/v1/chart/${id}`);
      let row = await s.deps.store.chartMetrics.find(id);
      await waitFor('five hits written', async () => ((row = await s.deps.store.chartMetrics.find(id))?.hitCount ?? 0) >= 5, { ms: 5_000, stepMs: 200, state: () => row });
      expect(row).to.include({ hitCount: 5, renderCount: 1, errorCount: 0 });
    });
  });

  it('creating counts one generation for the creator; serving and metrics count none', async () => {
    // counted as billing counts them: the store's usage counter of a fresh account
    const mine = await s.account('starter');
    expect(await generationsCounted(s, mine.account_id)).to.include({ used: 0, reserved: 0 });
    const res = await post(s.url, '/v1/chart/create', { chart: uniqueChart(), width: 100, height: 50 }, apiKey(mine.api_key));
    expect(res.status).to.equal(201);
    const id = idOf(((await res.json()) as { url: string }).url);
    expect(await generationsCounted(s, mine.account_id)).to.include({ used: 1, reserved: 0 });
    expect(await chartKeyOf(s, id)).to.deep.equal({ accountId: mine.account_id, keyId: mine.key_id });
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/v1/chart/${id}`)).status).to.equal(200);
    await evict(id);
    expect((await fetch(`${s.url}/v1/chart/${id}`)).headers.get('x-cache-tier')).to.equal('miss');
    expect((await fetch(`${s.url}/v1/metrics/${id}`, { headers: apiKey(mine.api_key) })).status).to.equal(200);
    expect(await generationsCounted(s, mine.account_id)).to.include({ used: 1, reserved: 0 });
    // A failed create is not counted.
    const bad = await post(s.url, '/v1/chart/create', { chart: BAR, width: 0, height: 50 }, apiKey(mine.api_key));
    expect(bad.status).to.equal(400);
    expect(await generationsCounted(s, mine.account_id)).to.include({ used: 1, reserved: 0 });
  });
});

describe('short charts: plan cache duration, restarts and shutdown', function () {
  this.timeout(120000);
  const t0 = Date.UTC(2030, 0, 1);
  let now = t0;
  const clock = { now: () => now };
  let a: TestServer | null = null;
  let b: TestServer | null = null;
  let probe: RenderProbe | null = null;

  before(async () => (a = await startTestServer({}, { clock })));

  afterEach(() => {
    probe?.restore();
    probe = null;
  });

  after(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('once the plan cache duration has passed, the next GET re-renders from the stored request without counting', async () => {
    const s = a!;
    try {
      const acct = await s.account('starter'); // 90 days
      const res = await post(s.url, '/v1/chart/create', { chart: uniqueChart(), width: 200, height: 100 }, apiKey(acct.api_key));
      expect(res.status).to.equal(201);
      const id = idOf(((await res.json()) as { url: string }).url);
      // counted by the store: one generation in the period of the create
      const created = await generationsCounted(s, acct.account_id);
      expect(created).to.include({ used: 1, reserved: 0 });
      /** Generations counted since the create, across the periods the clock has moved through. */
      const countedSince = async () => {
        const nowCount = await generationsCounted(s, acct.account_id);
        const then = (await s.deps.store.usage.get(acct.account_id, created.periodStart)).used;
        return nowCount.periodStart === created.periodStart ? then : then + nowCount.used;
      };
      const first = await fetch(`${s.url}/v1/chart/${id}`);
      const etag = first.headers.get('etag');
      probe = probeRenders(s);

      now = t0 + 89 * DAY_MS;
      expect((await fetch(`${s.url}/v1/chart/${id}`)).headers.get('x-cache-tier')).to.equal('edge');
      s.deps.imageCache.clearMemory();
      expect((await fetch(`${s.url}/v1/chart/${id}`)).headers.get('x-cache-tier')).to.equal('r2');
      expect(probe.count).to.equal(0);

      now = t0 + 91 * DAY_MS;
      // The last good image at once, re-rendered meanwhile in the background.
      const expired = await fetch(`${s.url}/v1/chart/${id}`);
      expect(expired.status).to.equal(200);
      expect(expired.headers.get('x-cache-tier')).to.equal('stale');
      expect(expired.headers.get('cache-control')).to.equal('public, max-age=60');
      expect(expired.headers.get('etag')).to.equal(etag);
      let fresh = expired;
      await waitFor(
        'the re-rendered image instead of the stale one',
        async () => fresh.headers.get('x-cache-tier') !== 'stale' || (fresh = await fetch(`${s.url}/v1/chart/${id}`)).headers.get('x-cache-tier') !== 'stale',
        { stepMs: 25 },
      );
      expect(fresh.headers.get('x-cache-tier')).to.equal('edge');
      expect(fresh.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(fresh.headers.get('etag')).to.equal(etag); // the same request draws the same image
      expect(probe.count).to.equal(1);
      expect(await countedSince()).to.equal(1); // the re-render counted nothing
      // Cached again, for another 90 days from the re-render.
      now = t0 + 91 * DAY_MS + 60 * DAY_MS;
      s.deps.imageCache.clearMemory();
      expect((await fetch(`${s.url}/v1/chart/${id}`)).headers.get('x-cache-tier')).to.equal('r2');
      expect(probe.count).to.equal(1);
    } finally {
      now = t0;
    }
  });

  it('an enterprise chart (custom cache duration: unlimited) never expires', async () => {
    const s = a!;
    const acct = await s.account('enterprise');
    const res = await post(s.url, '/v1/chart/create', { chart: uniqueChart(), width: 100, height: 50 }, apiKey(acct.api_key));
    const id = idOf(((await res.json()) as { url: string }).url);
    probe = probeRenders(s);
    now = t0 + 10 * 365 * DAY_MS;
    s.deps.imageCache.clearMemory();
    try {
      expect((await fetch(`${s.url}/v1/chart/${id}`)).headers.get('x-cache-tier')).to.equal('r2');
      expect(probe.count).to.equal(0);
    } finally {
      now = t0;
    }
  });

  it('after a restart on the same DATA_DIR: served from the persistent tier without a render; metrics survive the shutdown', async () => {
    const acct = await a!.account('starter');
    const res = await post(a!.url, '/v1/chart/create', { chart: uniqueChart(), width: 180, height: 90 }, apiKey(acct.api_key));
    const id = idOf(((await res.json()) as { url: string }).url);
    const original = await bytes(fetch(`${a!.url}/v1/chart/${id}`));
    await fetch(`${a!.url}/v1/chart/${id}`);
    const dataDir = a!.config.dataDir;
    await a!.stop({ keepData: true }); // graceful: batched counters are written
    a = null;

    b = await startTestServer({ dataDir }, { clock });
    probe = probeRenders(b);
    const m = await metricsOf(b.url, id, acct.api_key);
    expect(m).to.include({ hitCount: 2, errorCount: 0 });
    const again = await fetch(`${b.url}/v1/chart/${id}`);
    expect(again.status).to.equal(200);
    expect(again.headers.get('x-cache-tier')).to.equal('r2');
    expect((await bytes(again)).equals(original)).to.equal(true);
    expect(probe.count).to.equal(0);
    expect((await fetch(`${b.url}/v1/chart/${id}`)).headers.get('x-cache-tier')).to.equal('edge');
    expect((await metricsOf(b.url, id, acct.api_key)).hitCount).to.equal(4);
  });
});
