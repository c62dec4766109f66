// GET /v1/status and GET /metrics against real servers (real Chromium, real SQLite).
import { expect } from 'chai';
import { networkInterfaces } from 'node:os';
import { isLoopback, metricsAccess } from '../../src/http/metricsAccess.js';
import { BAR, post, sharedAccount, sharedServer, startTestServer, type TestServer } from '../helpers/server.js';
import { type Client, errorOf } from '../helpers/client.js';

/** Prometheus text format -> sample lines keyed by `name{labels}` (labels as printed). */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

function find(all: Map<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const [k, v] of all) {
    const m = /^([^{]+)(?:\{(.*)\})?$/.exec(k)!;
    if (m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([lk, lv]) => have[lk] === lv)) return v;
  }
  return undefined;
}

describe('GET /v1/status', function () {
  let s: TestServer;
  before(async () => (s = await sharedServer()));

  it('200 healthy with the documented fields; no auth needed', async () => {
    const res = await fetch(`${s.url}/v1/status`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.status).to.equal('healthy');
    expect(body).not.to.have.property('reason');
    expect(body.buildHash).to.equal(s.config.buildHash).and.to.be.a('string').that.is.not.empty;
    expect(body.kvLatency).to.be.a('number').at.least(0);
    expect(body.oauth).to.deep.equal({ google: false });
    expect(new Date(body.timestamp as string).toISOString()).to.equal(body.timestamp);
  });

  describe('on a server whose pool is gone', () => {
    let own: TestServer;
    before(async function () {
      this.timeout(60000);
      own = await startTestServer({ googleClientId: 'client-123.apps.googleusercontent.com', googleClientSecret: 'secret-456' });
    });
    after(async function () {
      this.timeout(30000);
      await own?.stop();
    });

    it('oauth.google is true when GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set', async () => {
      const body = (await (await fetch(`${own.url}/v1/status`)).json()) as { status: string; oauth: { google: boolean } };
      expect(body.oauth.google).to.equal(true);
      expect(body.status).to.equal('healthy');
    });

    it('reports degraded with a reason (still 200) once the browser is closed, without hanging', async function () {
      this.timeout(30000);
      await own.deps.pool.close();
      const res = await fetch(`${own.url}/v1/status`, { signal: AbortSignal.timeout(10000) });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { status: string; reason?: string };
      expect(body.status).to.equal('degraded');
      expect(body.reason).to.be.a('string').that.matches(/browser|page|probe/);
    });
  });
});

describe('GET /metrics', function () {
  let s: TestServer;
  let api: Client;
  let key: string;
  before(async () => ({ s, api, key } = await sharedAccount()));

  it('Prometheus text with render, pool, cache, HTTP and restart metrics', async () => {
    const ok = await api.post('/v1/chart', { chart: BAR, width: 120, height: 80, format: 'svg' });
    expect(ok.status).to.equal(200);
    const bad = await api.post('/v1/chart', { chart: BAR, width: 120 });
    expect(bad.status).to.equal(400);
    await s.deps.imageCache.get('metrics-test-absent');
    await s.deps.imageCache.put('metrics-test', Buffer.from('x'), 'image/png', null);
    await s.deps.imageCache.get('metrics-test');

    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).to.match(/# TYPE chartshot_render_duration_seconds histogram/);
    const all = samples(text);
    expect(find(all, 'chartshot_render_duration_seconds_count', { format: 'svg', outcome: 'ok' })).to.be.at.least(1);
    expect(find(all, 'chartshot_render_duration_seconds_bucket', { format: 'svg', outcome: 'ok', le: '+Inf' })).to.be.at.least(1);
    expect(find(all, 'chartshot_pool_size')).to.equal(2);
    expect(find(all, 'chartshot_pool_busy')).to.be.a('number');
    expect(find(all, 'chartshot_pool_waiting')).to.be.a('number');
    expect(find(all, 'chartshot_queue_rejections_total')).to.equal(0);
    expect(find(all, 'chartshot_browser_restarts_total')).to.be.a('number');
    expect(find(all, 'chartshot_cache_lookups_total', { tier: 'miss' })).to.be.at.least(1);
    expect(find(all, 'chartshot_cache_lookups_total', { tier: 'memory' })).to.be.at.least(1);
    expect(find(all, 'chartshot_http_requests_total', { route: '/v1/chart', method: 'POST', status: '200' })).to.be.at.least(1);
    expect(find(all, 'chartshot_http_requests_total', { route: '/v1/chart', method: 'POST', status: '400' })).to.be.at.least(1);
    expect(find(all, 'chartshot_process_resident_memory_bytes')).to.be.above(0);
  });

  it('counters only grow between scrapes', async () => {
    const first = samples(await (await fetch(`${s.url}/metrics`)).text());
    await fetch(`${s.url}/v1/status`);
    const second = samples(await (await fetch(`${s.url}/metrics`)).text());
    const route = { route: '/v1/status', method: 'GET', status: '200' };
    expect(find(second, 'chartshot_http_requests_total', route)).to.equal((find(first, 'chartshot_http_requests_total', route) ?? 0) + 1);
  });

  it('each server has its own registry (a second server starts at zero)', async function () {
    this.timeout(60000);
    const other = await startTestServer();
    try {
      const all = samples(await (await fetch(`${other.url}/metrics`)).text());
      expect(find(all, 'chartshot_http_requests_total', { route: '/v1/chart' })).to.equal(undefined);
      expect(find(all, 'chartshot_pool_size')).to.equal(1);
    } finally {
      await other.stop();
    }
  });
});

describe('page resets by reason: chartshot_page_resets_total{reason} and /v1/status pageResets', function () {
  this.timeout(120000);
  let s: TestServer;
  let api: Client;
  before(async () => {
    s = await startTestServer();
    ({ api } = await s.client('growth'));
  });
  after(async () => s?.stop());

  const withTicks = (callback: string) => ({ ...BAR, options: { scales: { y: { ticks: { callback } } } } });
  // the metric and the status report agree (read again when a reset landed between the two reads)
  const resets = async () => {
    for (let i = 0; ; i++) {
      const all = samples(await (await fetch(`${s.url}/metrics`)).text());
      const status = (await (await fetch(`${s.url}/v1/status`)).json()) as { pageResets: Record<string, number> };
      const metric = Object.fromEntries(Object.keys(status.pageResets).map((r) => [r, find(all, 'chartshot_page_resets_total', { reason: r })]));
      if (JSON.stringify(metric) === JSON.stringify(status.pageResets) || i === 20) {
        expect(metric, 'the metric and the status report agree').to.deep.equal(status.pageResets);
        return status.pageResets;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  it('every reason is a series from the start; caller code, a failed render and an interrupted one each count under their own', async () => {
    const start = await resets();
    expect(Object.keys(start).sort()).to.deep.equal(['caller_code', 'crash', 'failed', 'interrupted', 'memory', 'page_state', 'recycled', 'version_switch']);
    expect(Object.values(start).every((n) => n === 0), JSON.stringify(start)).to.equal(true);

    // a plain chart and a pure callback: no reset
    expect((await api.post('/v1/chart', { chart: BAR, width: 100, height: 60 })).status).to.equal(200);
    expect((await api.post('/v1/chart', { chart: withTicks("function(v){ return '$' + v; }"), width: 100, height: 60 })).status).to.equal(200);
    expect(await resets()).to.deep.equal(start);

    // a callback that writes a global: the page is reloaded for caller code
    expect((await api.post('/v1/chart', { chart: withTicks('function(v){ window.leftBehind = v; return v; }'), width: 100, height: 60 })).status, 'caller code').to.equal(200);
    // a callback that throws: the render fails and the page is reloaded
    expect((await api.post('/v1/chart', { chart: withTicks('function(v){ return v.no.such; }'), width: 100, height: 60 })).status).to.be.within(400, 599);
    // a callback that never returns: interrupted at the deadline
    expect((await api.post('/v1/chart', { chart: withTicks('function(v){ for(;;){} }'), width: 100, height: 60 })).status).to.equal(500);
    // the reset happens after the answer: poll for it
    let now = await resets();
    for (let i = 0; i < 100 && now.interrupted === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = await resets();
    }
    expect(now).to.deep.include({ caller_code: 1, failed: 1, interrupted: 1, memory: 0, crash: 0, recycled: 0, version_switch: 0 });
    // the pool renders on (503 only while the interrupted page is still being reset on a slow machine)
    let status = 503;
    for (let i = 0; i < 30 && status === 503; i++) status = (await api.post('/v1/chart', { chart: BAR, width: 100, height: 60 })).status;
    expect(status).to.equal(200);
  });
});

describe('GET /metrics is protected (METRICS_TOKEN, else loopback only)', function () {
  this.timeout(60000);

  describe('the decision', () => {
    const req = (over: Partial<Parameters<typeof metricsAccess>[0]>) => metricsAccess({ token: null, authorization: '', remoteAddress: '127.0.0.1', forwarded: false, ...over });
    it('no token: loopback sockets only, and never a forwarded request', () => {
      for (const a of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) expect(req({ remoteAddress: a }), a).to.equal('allowed');
      for (const a of ['192.0.2.2', '10.0.0.1', '::2', 'fe80::1', '::ffff:10.0.0.1', '', undefined]) expect(req({ remoteAddress: a }), String(a)).to.equal('forbidden');
      expect(req({ forwarded: true })).to.equal('forbidden');
      expect(isLoopback('128.0.0.1')).to.equal(false);
    });
    it('a token: the bearer must match, from anywhere; loopback alone is not enough', () => {
      const token = 'metrics-token-0123456789';
      expect(req({ token, authorization: `Bearer ${token}`, remoteAddress: '203.0.113.9', forwarded: true })).to.equal('allowed');
      expect(req({ token })).to.equal('unauthorized');
      expect(req({ token, authorization: `Bearer ${token}x` })).to.equal('unauthorized');
      expect(req({ token, authorization: token })).to.equal('unauthorized');
    });
  });

  it('with METRICS_TOKEN: 401 without or with a wrong bearer, 200 with it', async () => {
    const token = 'metrics-token-0123456789';
    const s = await startTestServer({ metricsToken: token });
    try {
      const none = await fetch(`${s.url}/metrics`);
      expect(none.status).to.equal(401);
      expect(await none.json()).to.include({ error: 'unauthorized' });
      expect((await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).to.equal(401);
      const ok = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).to.equal(200);
      expect(await ok.text()).to.match(/chartshot_pool_size/);
    } finally {
      await s.stop();
    }
  });

  it('without a token: a client on a non-loopback address gets 403 forbidden naming METRICS_TOKEN; a forwarded loopback request too', async function () {
    const local = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    const s = await startTestServer({ host: '0.0.0.0', trustProxy: true });
    try {
      const port = new URL(s.url).port;
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).to.equal(200);
      const fwd = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.5' } });
      expect(fwd.status).to.equal(403);
      expect(local, 'a non-loopback IPv4 address on this machine to call from').to.be.a('string');
      const refused = await errorOf(fetch(`http://${local}:${port}/metrics`));
      expect(refused).to.include({ status: 403, error: 'forbidden' });
      expect(refused.detail).to.contain('METRICS_TOKEN');
      expect((await fetch(`http://${local}:${port}/v1/status`)).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });
});
