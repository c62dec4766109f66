// OpenTelemetry traces against a real OTLP/HTTP receiver started here (node:http, decoding the
// JSON export): a render's spans (HTTP, auth, rate limit, admission wait, page render, store)
// in the caller's trace (traceparent continued), with the attributes an operator needs. And with
// no endpoint set, no OpenTelemetry module is even loaded.
import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** An OTLP/HTTP receiver: every exported span, and the headers the exports came with. */
class Receiver {
  readonly spans: OtlpSpan[] = [];
  readonly headers: IncomingHttpHeaders[] = [];
  readonly resources: Array<Record<string, unknown>> = [];
  private server: Server | null = null;
  private waiters: Array<() => void> = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url !== '/v1/traces' || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        this.headers.push(req.headers);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        for (const rs of body.resourceSpans) {
          this.resources.push(attributesOf(rs.resource.attributes));
          for (const ss of rs.scopeSpans) this.spans.push(...ss.spans);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Waits for exports until `done` holds (the export is the signal; the test's timeout bounds it). */
  async until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function attributesOf(list: OtlpSpan['attributes']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of list) out[a.key] = a.value.stringValue ?? a.value.intValue ?? a.value.doubleValue ?? a.value.boolValue;
  return out;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('OpenTelemetry traces (OTLP/HTTP)', function () {
  this.timeout(120_000);
  const receiver = new Receiver();
  let s: TestServer;

  before(async () => {
    const base = await receiver.start();
    s = await startTestServer({
      otel: { tracesUrl: `${base}/v1/traces`, headers: { 'x-collector-token': 'secret-1' }, serviceName: 'chartshot-test', exportDelayMs: 20 },
    });
  });
  after(async () => {
    await s?.stop();
    await receiver.stop();
  });

  it('a render is one trace continuing the caller\'s traceparent: HTTP, auth, rate limit, admission wait, page render, store', async () => {
    const acct = await s.account('starter');
    const res = await post(s.url, '/v1/chart', { chart: BAR, width: 210, height: 120, format: 'png' }, {
      'x-api-key': acct.api_key,
      traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
    });
    expect(res.status).to.equal(200);
    const names = () => receiver.spans.filter((x) => x.traceId === TRACE_ID).map((x) => x.name);
    await receiver.until(() => ['POST /v1/chart', 'page render', 'admission wait'].every((n) => names().includes(n)));
    const spans = receiver.spans.filter((x) => x.traceId === TRACE_ID);
    const byName = (n: string) => spans.find((x) => x.name === n)!;
    const http = byName('POST /v1/chart');
    expect(http.parentSpanId, 'the caller\'s span is the parent').to.equal(PARENT_ID);
    expect(http.kind).to.equal(2); // SERVER
    expect(attributesOf(http.attributes)).to.deep.include({ 'http.route': '/v1/chart', 'http.response.status_code': 200, 'http.request.method': 'POST', 'chartshot.outcome': 'ok' });
    for (const child of ['auth apiKey', 'rate limit render', 'admission wait', 'page render']) {
      expect(names(), child).to.include(child);
      expect(byName(child).parentSpanId, `${child} is a child of the request`).to.equal(http.spanId);
    }
    const page = attributesOf(byName('page render').attributes);
    expect(page).to.deep.include({ 'chartshot.chart.type': 'bar', 'chartshot.chartjs': 4, 'chartshot.width': 210, 'chartshot.height': 120, 'chartshot.format': 'png' });
    expect(page['chartshot.page.id']).to.be.a('number');
    expect(attributesOf(byName('admission wait').attributes)['chartshot.queue_wait_ms']).to.be.a('number');
    expect(names().some((n) => n.startsWith('store ')), names().join(', ')).to.equal(true);
    expect(receiver.headers[0]!['x-collector-token']).to.equal('secret-1');
    expect(receiver.resources[0]).to.deep.include({ 'service.name': 'chartshot-test' });
  });

  it('a refusal is traced too: a bad key ends the auth span in error, the request 401 with its route', async () => {
    const trace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab';
    const res = await post(s.url, '/v1/chart', { chart: BAR, width: 10, height: 10 }, { 'x-api-key': 'live_nope', traceparent: `00-${trace}-${PARENT_ID}-01` });
    expect(res.status).to.equal(401);
    const of = () => receiver.spans.filter((x) => x.traceId === trace);
    await receiver.until(() => of().some((x) => x.name === 'POST /v1/chart') && of().some((x) => x.name === 'auth apiKey'));
    const auth = of().find((x) => x.name === 'auth apiKey')!;
    expect(auth.status?.code).to.equal(2); // ERROR
    expect(attributesOf(auth.attributes)).to.deep.include({ 'error.type': 'unauthorized' });
    expect(attributesOf(of().find((x) => x.name === 'POST /v1/chart')!.attributes)).to.deep.include({ 'http.route': '/v1/chart', 'http.response.status_code': 401, 'chartshot.outcome': 'refused' });
  });

  it('a short chart served (fast path included): the request span names its cache tier', async () => {
    const acct = await s.account('starter');
    const created = (await (await post(s.url, '/v1/chart/create', { chart: BAR, width: 90, height: 50 }, { 'x-api-key': acct.api_key })).json()) as { id: string };
    const trace = 'cccccccccccccccccccccccccccccccd';
    const res = await fetch(`${s.url}/v1/chart/${created.id}`, { headers: { traceparent: `00-${trace}-${PARENT_ID}-01` } });
    expect(res.status).to.equal(200);
    const of = () => receiver.spans.filter((x) => x.traceId === trace);
    await receiver.until(() => of().some((x) => x.kind === 2));
    const http = attributesOf(of().find((x) => x.kind === 2)!.attributes);
    expect(http['chartshot.cache_tier'], 'X-Cache-Tier on the request span').to.be.a('string');
  });
});

describe('OpenTelemetry off', () => {
  it('without an endpoint no OpenTelemetry module is loaded; with one it is (the probe works)', () => {
    // a child process (the built dist/): this one has loaded the SDK above. A resolve hook reports every module.
    const probe = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent('export async function resolve(s, c, n) { const r = await n(s, c); if (r.url.includes("@opentelemetry")) process.stderr.write("OTEL " + r.url + "\\\\n"); return r; }'));
      const { loadConfig } = await import('./dist/config.js');
      const { createLogger } = await import('./dist/log.js');
      if (process.env.PROBE_ALL === '1') { await import('./dist/main.js'); await import('./dist/app.js'); }
      const { startTracing } = await import('./dist/tracing.js');
      const t = await startTracing(loadConfig(), createLogger('silent'));
      await t?.shutdown();
    `;
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', probe], { env: { ...process.env, ...env }, encoding: 'utf8' });
    // the whole server's module graph (main, app) without an endpoint
    const off = run({ PROBE_ALL: '1', OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' });
    expect(off.status, off.stderr).to.equal(0);
    expect(off.stderr).to.not.include('OTEL ');
    const on = run({ PROBE_ALL: '0', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.status, on.stderr).to.equal(0);
    expect(on.stderr).to.include('OTEL ');
  });
});
