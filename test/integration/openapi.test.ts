// The OpenAPI 3.1 document against the real server: the router and the document list the same
// operations, and every case below is a real request whose status, content type, body (ajv
// 2020) and required headers must match what the document says. Data-driven: to cover a new
// endpoint, add a row to CASES.
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { BAR, post, sharedServer, type TestServer } from '../helpers/server.js';
import { createApp, routeTable } from '../../src/app.js';
import { isAsset, isDocumented } from '../../src/http/route.js';
import { openApiPath, SECURITY } from '../../src/http/openapi.js';

type Json = Record<string, any>;

interface Fixtures {
  key: string;
  session: string;
  chartId: string;
  etag: string;
  invoiceId: string;
  editId: string;
}

interface Case {
  name: string;
  method: 'GET' | 'POST';
  /** The path as the document names it. */
  op: string;
  url: (f: Fixtures) => string;
  headers?: (f: Fixtures) => Record<string, string>;
  body?: unknown;
  /** Acceptable statuses (e.g. a trial signup may already have been used from this IP). */
  status: number | number[];
}

const key = (f: Fixtures) => ({ 'x-api-key': f.key });
const session = (f: Fixtures) => ({ authorization: `Bearer ${f.session}` });
const zapier = {
  bar: { title: 'Sales', labels: 'Q1,Q2', values: '1,2' },
  line: { title: 'Visits', labels: 'a,b,c', values: '1,2,3', tension: 0.2 },
  pie: { title: 'Share', labels: 'a,b', values: '3,4' },
  'multi-series': { title: 'YoY', labels: 'a,b', series: [{ name: 'x', values: '1,2' }] },
};

const CASES: Case[] = [
  { name: 'render from the query', method: 'GET', op: '/v1/chart', url: (f) => `/v1/chart?${new URLSearchParams({ chart: JSON.stringify(BAR), width: '100', height: '60', api_key: f.key })}`, status: 200 },
  { name: 'render without width', method: 'GET', op: '/v1/chart', url: (f) => `/v1/chart?${new URLSearchParams({ chart: JSON.stringify(BAR), height: '60', api_key: f.key })}`, status: 400 },
  { name: 'render without a key', method: 'GET', op: '/v1/chart', url: () => `/v1/chart?${new URLSearchParams({ chart: JSON.stringify(BAR), width: '10', height: '10' })}`, status: 401 },
  { name: 'render PNG', method: 'POST', op: '/v1/chart', url: () => '/v1/chart', headers: key, body: { chart: BAR, width: 100, height: 60 }, status: 200 },
  { name: 'render SVG', method: 'POST', op: '/v1/chart', url: () => '/v1/chart', headers: key, body: { chart: BAR, width: 100, height: 60, format: 'svg' }, status: 200 },
  { name: 'render without chart', method: 'POST', op: '/v1/chart', url: () => '/v1/chart', headers: key, body: { width: 100, height: 60 }, status: 400 },
  { name: 'render without a key', method: 'POST', op: '/v1/chart', url: () => '/v1/chart', body: { chart: BAR, width: 100, height: 60 }, status: 401 },
  { name: 'create a short chart', method: 'POST', op: '/v1/chart/create', url: () => '/v1/chart/create', headers: key, body: { chart: BAR, width: 100, height: 60 }, status: 201 },
  { name: 'create with a bad size', method: 'POST', op: '/v1/chart/create', url: () => '/v1/chart/create', headers: key, body: { chart: BAR, width: 0, height: 60 }, status: 400 },
  { name: 'short chart image', method: 'GET', op: '/v1/chart/{id}', url: (f) => `/v1/chart/${f.chartId}`, status: 200 },
  { name: 'short chart not modified', method: 'GET', op: '/v1/chart/{id}', url: (f) => `/v1/chart/${f.chartId}`, headers: (f) => ({ 'if-none-match': f.etag }), status: 304 },
  { name: 'unknown short chart', method: 'GET', op: '/v1/chart/{id}', url: () => '/v1/chart/AAAAAAAAAAAAAAAAAAAAAA', status: 404 },
  { name: 'download', method: 'GET', op: '/v1/chart/{id}/download', url: (f) => `/v1/chart/${f.chartId}/download`, status: 200 },
  { name: 'download unknown', method: 'GET', op: '/v1/chart/{id}/download', url: () => '/v1/chart/AAAAAAAAAAAAAAAAAAAAAA/download', status: 404 },
  { name: 'preview', method: 'GET', op: '/v1/chart/{id}/preview', url: (f) => `/v1/chart/${f.chartId}/preview`, status: 200 },
  { name: 'preview unknown', method: 'GET', op: '/v1/chart/{id}/preview', url: () => '/v1/chart/AAAAAAAAAAAAAAAAAAAAAA/preview', status: 404 },
  { name: 'chart metrics', method: 'GET', op: '/v1/metrics/{id}', url: (f) => `/v1/metrics/${f.chartId}`, headers: key, status: 200 },
  { name: 'chart metrics of an unknown chart', method: 'GET', op: '/v1/metrics/{id}', url: () => '/v1/metrics/AAAAAAAAAAAAAAAAAAAAAA', headers: key, status: 404 },
  { name: 'chart metrics without a key', method: 'GET', op: '/v1/metrics/{id}', url: (f) => `/v1/metrics/${f.chartId}`, status: 401 },
  { name: 'open render (shortcut)', method: 'GET', op: '/v1/open/chart', url: () => '/v1/open/chart?type=bar&data=1,2,3&labels=a,b,c&w=120&h=80', status: 200 },
  { name: 'open render of a bad type', method: 'GET', op: '/v1/open/chart', url: () => '/v1/open/chart?type=gauge&data=1', status: 400 },
  { name: 'open render of a too-long URL', method: 'GET', op: '/v1/open/chart', url: () => `/v1/open/chart?type=bar&data=1&labels=${'x'.repeat(8300)}`, status: 400 },
  { name: 'status', method: 'GET', op: '/v1/status', url: () => '/v1/status', status: 200 },
  { name: 'pressure', method: 'GET', op: '/v1/pressure', url: () => '/v1/pressure', status: 200 },
  ...Object.entries(zapier).flatMap(([kind, body]): Case[] => [
    { name: `zapier ${kind}`, method: 'POST', op: `/v1/zapier/${kind}-chart`, url: () => `/v1/zapier/${kind}-chart`, headers: key, body, status: 201 },
    { name: `zapier ${kind} without title`, method: 'POST', op: `/v1/zapier/${kind}-chart`, url: () => `/v1/zapier/${kind}-chart`, headers: key, body: { ...body, title: undefined }, status: 400 },
    { name: `zapier ${kind} without a key`, method: 'POST', op: `/v1/zapier/${kind}-chart`, url: () => `/v1/zapier/${kind}-chart`, body, status: 401 },
  ]),
  { name: 'trial signup', method: 'POST', op: '/signup/anon', url: () => '/signup/anon', body: {}, status: [200, 429] },
  { name: 'second trial signup from one IP', method: 'POST', op: '/signup/anon', url: () => '/signup/anon', body: {}, status: 429 },
  { name: 'usage analytics', method: 'GET', op: '/usage/analytics', url: () => '/usage/analytics?days=7', headers: session, status: 200 },
  { name: 'usage analytics with a bad token', method: 'GET', op: '/usage/analytics', url: () => '/usage/analytics', headers: () => ({ authorization: 'Bearer nope' }), status: 401 },
  { name: 'billing info', method: 'GET', op: '/billing/info', url: () => '/billing/info', headers: session, status: 200 },
  { name: 'billing info without a token', method: 'GET', op: '/billing/info', url: () => '/billing/info', status: 401 },
  { name: 'invoices', method: 'GET', op: '/billing/invoices', url: () => '/billing/invoices', headers: session, status: 200 },
  { name: 'invoice PDF', method: 'GET', op: '/billing/invoices/{id}/pdf', url: (f) => `/billing/invoices/${f.invoiceId}/pdf`, headers: session, status: 200 },
  { name: 'unknown invoice PDF', method: 'GET', op: '/billing/invoices/{id}/pdf', url: () => '/billing/invoices/inv_nope/pdf', headers: session, status: 404 },
  { name: 'Prometheus metrics', method: 'GET', op: '/metrics', url: () => '/metrics', status: 200 },
  { name: 'this document', method: 'GET', op: '/openapi.json', url: () => '/openapi.json', status: 200 },
  { name: 'QuickChart render', method: 'GET', op: '/chart', url: (f) => `/chart?${new URLSearchParams({ c: "{type:'bar',data:{labels:['a'],datasets:[{data:[1]}]}}", w: '100', h: '60', key: f.key, ref: 'x' })}`, status: 200 },
  { name: 'QuickChart render without a key', method: 'GET', op: '/chart', url: () => '/chart?c={}', status: 401 },
  { name: 'QuickChart render by POST', method: 'POST', op: '/chart', url: () => '/chart', headers: key, body: { chart: BAR, width: 100, height: 60, version: '4', format: 'svg' }, status: 200 },
  { name: 'QuickChart render of a bad config', method: 'POST', op: '/chart', url: () => '/chart', headers: key, body: { chart: '{type:', width: 100, height: 60 }, status: 400 },
  { name: 'QuickChart short chart', method: 'POST', op: '/chart/create', url: () => '/chart/create', headers: key, body: { chart: BAR, width: 100, height: 60, v: '4' }, status: 200 },
  { name: 'QuickChart short chart image', method: 'GET', op: '/chart/render/{id}', url: (f) => `/chart/render/${f.chartId}?title=Hi`, status: 200 },
  { name: 'QuickChart unknown short chart', method: 'GET', op: '/chart/render/{id}', url: () => '/chart/render/AAAAAAAAAAAAAAAAAAAAAA', status: 404 },
  { name: 'QR code', method: 'GET', op: '/qr', url: (f) => `/qr?text=hello&key=${f.key}`, status: 200 },
  { name: 'QR code without a key', method: 'GET', op: '/qr', url: () => '/qr?text=hello', status: 401 },
  { name: 'QR code without text', method: 'GET', op: '/qr', url: (f) => `/qr?format=svg&key=${f.key}`, status: 400 },
  { name: 'MCP tools/list', method: 'POST', op: '/mcp', url: () => '/mcp', headers: (f) => ({ ...key(f), accept: 'application/json, text/event-stream' }), body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, status: 200 },
  { name: 'MCP notification', method: 'POST', op: '/mcp', url: () => '/mcp', headers: (f) => ({ ...key(f), accept: 'application/json, text/event-stream' }), body: { jsonrpc: '2.0', method: 'notifications/initialized' }, status: 202 },
  { name: 'MCP not JSON-RPC', method: 'POST', op: '/mcp', url: () => '/mcp', headers: key, body: { id: 1, method: 'tools/list' }, status: 400 },
  { name: 'MCP without a key', method: 'POST', op: '/mcp', url: () => '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, status: 401 },
  { name: 'playground', method: 'GET', op: '/playground', url: () => '/playground', status: 200 },
  { name: 'front page', method: 'GET', op: '/', url: () => '/', status: 200 },
  { name: 'gallery', method: 'GET', op: '/gallery', url: () => '/gallery', status: 200 },
  { name: 'gallery image', method: 'GET', op: '/gallery/{image}', url: () => '/gallery/v4-line.png', status: 200 },
  { name: 'unknown gallery image', method: 'GET', op: '/gallery/{image}', url: () => '/gallery/v9-nope.png', status: 404 },
  { name: 'playground edit state', method: 'GET', op: '/playground/config/{id}', url: (f) => `/playground/config/${f.editId}`, status: 200 },
  { name: 'unknown playground edit state', method: 'GET', op: '/playground/config/{id}', url: () => `/playground/config/${'A'.repeat(43)}`, status: 404 },
];

const pointer = (...parts: string[]) => '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

describe('OpenAPI document', function () {
  let s: TestServer;
  let doc: Json;
  let ajv: Ajv2020;
  let f: Fixtures;

  before(async function () {
    this.timeout(60000);
    s = await sharedServer();
    const res = await fetch(`${s.url}/openapi.json`);
    expect(res.status).to.equal(200);
    doc = (await res.json()) as Json;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    (formats as unknown as { default: (a: unknown) => void }).default(ajv);
    ajv.addSchema(doc, 'openapi.json');

    const acct = await s.account('starter');
    const created = await post(s.url, '/v1/chart/create', { chart: BAR, width: 120, height: 80 }, { 'x-api-key': acct.api_key });
    expect(created.status).to.equal(201);
    const chartId = ((await created.json()) as { url: string }).url.split('/').pop()!;
    const etag = (await fetch(`${s.url}/v1/chart/${chartId}`)).headers.get('etag') ?? '"none"';
    // An invoice to fetch: close the account's billing period now.
    const invoice = await s.deps.billing.closePeriodNow(acct.account_id);
    expect(invoice, 'an issued invoice').to.not.equal(null);
    // An open render whose playground link would pass 1 KB gets a ?id= link to its stored config.
    const c = JSON.stringify({ ...BAR, options: { plugins: { title: { display: true, text: 'x'.repeat(1200) } } } });
    const open = await fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c, w: '120', h: '80' })}`);
    expect(open.status).to.equal(200);
    const editId = new URL(open.headers.get('x-edit-url')!).searchParams.get('id');
    expect(editId, 'X-Edit-Url carries an id').to.be.a('string');
    f = { key: acct.api_key, session: acct.session_token, chartId, etag, invoiceId: invoice!.id, editId: editId! };
  });

  it('is OpenAPI 3.1, version 1.0.0, with the components and security schemes the API promises', () => {
    expect(doc.openapi).to.match(/^3\.1\.\d+$/);
    expect(doc.info.version).to.equal('1.0.0');
    expect(doc.servers[0].url).to.equal(s.config.publicBaseUrl);
    for (const name of ['ErrorObject', 'ChartRequest', 'ShortChart', 'Metrics', 'Status', 'AutomationResult', 'UsageAnalytics', 'BillingInfo', 'InvoiceList', 'TrialKey']) {
      expect(doc.components.schemas, name).to.have.property(name);
    }
    expect(doc.components.schemas.Metrics.properties.avgRenderTime.description).to.match(/milliseconds/);
    expect(doc.components.securitySchemes.ApiKeyHeader).to.deep.include({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.components.securitySchemes.ApiKeyQuery).to.deep.include({ type: 'apiKey', in: 'query', name: 'api_key' });
    expect(doc.components.securitySchemes.BearerSession).to.deep.include({ type: 'http', scheme: 'bearer' });
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Cache-Control', 'X-Cache-Tier', 'X-Edit-Url', 'Link']) {
      expect(doc.components.headers, h).to.have.property(h);
    }
  });

  it('lists every public endpoint with the statuses it promises', () => {
    const spec: Array<[string, string, string[]]> = [
      ['post', '/signup/anon', ['200', '429', '500']],
      ['get', '/v1/chart', ['200', '400', '401', '500']],
      ['post', '/v1/chart', ['200', '400', '401', '500']],
      ['post', '/v1/chart/create', ['201', '400', '401', '500']],
      ['get', '/v1/chart/{id}', ['200', '404', '500']],
      ['get', '/v1/open/chart', ['200', '400', '429', '500']],
      ['get', '/v1/status', ['200']],
      ['get', '/v1/metrics/{id}', ['200']],
      ['post', '/v1/zapier/bar-chart', ['201', '400', '401', '500']],
      ['post', '/v1/zapier/line-chart', ['201', '400', '401', '500']],
      ['post', '/v1/zapier/pie-chart', ['201', '400', '401', '500']],
      ['post', '/v1/zapier/multi-series-chart', ['201', '400', '401', '500']],
      ['get', '/usage/analytics', ['200', '401']],
      ['get', '/billing/info', ['200', '401']],
      ['get', '/billing/invoices', ['200', '401']],
      ['get', '/billing/invoices/{id}/pdf', ['200']],
    ];
    for (const [method, path, statuses] of spec) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).to.be.an('object');
      expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(statuses);
    }
  });

  it('request schemas are the ones that validate requests (defaults included)', () => {
    const bar = doc.components.schemas.ZapierBarChart;
    expect(bar.required).to.deep.equal(['title', 'labels', 'values']);
    expect(bar.properties.color.default).to.equal('#3B82F6');
    expect(bar.properties.width.default).to.equal(800);
    expect(doc.components.schemas.ZapierLineChart.properties.tension).to.deep.include({ minimum: 0, maximum: 1, default: 0.4 });
    expect(doc.components.schemas.ZapierPieChart.properties.legendPosition.default).to.equal('bottom');
    expect(doc.components.schemas.ZapierMultiSeriesChart.properties.series.maxItems).to.equal(3);
    const open = doc.paths['/v1/open/chart'].get.parameters.map((p: Json) => p.name);
    expect(open).to.include.members(['c', 'type', 'data', 'labels', 'w', 'h', 'format', 'bkg']);
  });

  it('every $ref resolves, every path parameter is declared, operationIds are unique', () => {
    const ids = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref') {
          const target = (v as string).slice(2).split('/').reduce((o: any, p) => o?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
          expect(target, v as string).to.not.equal(undefined);
        } else walk(v);
      }
    };
    walk(doc);
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries<Json>(item)) {
        expect(ids.has(op.operationId), `duplicate operationId ${op.operationId}`).to.equal(false);
        ids.add(op.operationId);
        const declared = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
        expect(declared, `${method} ${path}`).to.have.members(names);
      }
    }
  });

  describe('the router and the document list the same operations', () => {
    const operations = (layers: Array<{ path: string; methods: string[] }>) =>
      layers.flatMap((l) => l.methods.filter((m) => m !== 'HEAD').map((m) => `${m.toLowerCase()} ${openApiPath(l.path)}`));
    let registered: string[];
    let documented: string[];
    let assets: string[];
    let pages: string[];

    before(() => {
      const app = createApp(s.deps);
      const router = app.middleware.map((m) => (m as { router?: { stack: Array<{ path: string; methods: string[] }> } }).router).find(Boolean);
      expect(router, 'the router middleware').to.not.equal(undefined);
      // the dashboard's HTML pages are routes too, kept out of the API's document
      const pagePaths = new Set(routeTable(s.deps).flatMap((e) => (!isAsset(e) && e.page ? [e.path] : [])));
      registered = operations(router!.stack.filter((l) => !pagePaths.has(l.path)));
      pages = operations(router!.stack.filter((l) => pagePaths.has(l.path)));
      documented = Object.entries<Json>(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
      assets = routeTable(s.deps).filter(isAsset).map((a) => `get ${a.path}`);
    });

    it('every registered route is documented (fixed page assets aside)', () => {
      expect(registered.filter((o) => !documented.includes(o) && !assets.includes(o))).to.deep.equal([]);
      expect(registered.length).to.be.above(20);
    });

    it('the dashboard pages are registered and none is documented', () => {
      expect(pages).to.include.members(['get /login', 'post /login', 'get /dashboard', 'get /dashboard/keys', 'post /dashboard/keys/revoke', 'post /logout']);
      expect(Object.keys(doc.paths).filter((p) => /^\/(login|logout|dashboard)\b/.test(p))).to.deep.equal([]);
    });

    it('every documented operation is registered', () => {
      expect(documented.filter((o) => !registered.includes(o))).to.deep.equal([]);
    });

    it('the undocumented assets are fixed files that answer 200 with their type', async () => {
      expect(assets).to.include.members(['get /docs', 'get /docs/swagger-ui-bundle.js', 'get /playground/playground.js']);
      for (const a of routeTable(s.deps).filter(isAsset)) {
        expect(a.path, 'no parameters').to.not.match(/[:{]/);
        expect(documented, a.path).to.not.include(`get ${a.path}`);
        const res = await fetch(s.url + a.path);
        expect(res.status, a.path).to.equal(200);
        expect(res.headers.get('content-type'), a.path).to.equal(a.file.type);
        expect(Buffer.from(await res.arrayBuffer()).length, a.path).to.be.above(0);
      }
    });
  });

  it('every operation behind credentials documents their refusal, and the rate limit where it applies', () => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const schemes = op.security.flatMap((req: Json) => Object.keys(req));
        // the error object's codes; an error answered as an image (QuickChart's) names them in its description
        const codes = (status: string): string[] =>
          op.responses[status]?.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum ??
          (/Codes: ([a-z_, ]+)\.$/.exec(op.responses[status]?.description ?? '')?.[1]?.split(', ') ?? []);
        if (schemes.includes('ApiKeyHeader') || schemes.includes('MetricsToken')) expect(codes('401'), `${method} ${path}`).to.include('unauthorized');
        if (schemes.includes('BearerSession')) expect(codes('401'), `${method} ${path}`).to.include('invalid_session');
        if (op.responses['200']?.headers?.['X-RateLimit-Limit'] || op.responses['201']?.headers?.['X-RateLimit-Limit']) {
          expect(codes('429'), `${method} ${path}`).to.include('rate_limit_exceeded');
        }
      }
    }
  });

  describe('every operation states the security its route enforces', () => {
    // From the route table, not a list kept by hand: a route added or changed is covered.
    const routes = () => routeTable(s.deps).filter(isDocumented);

    it('the security of each operation is the one of the auth its descriptor declares', () => {
      const table = routes();
      expect(table.length).to.be.above(20);
      for (const r of table) {
        const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];
        expect(op, `${r.method} ${r.path}`).to.be.an('object');
        expect(r.auth, `${r.method} ${r.path}`).to.not.equal('dashboardSession');
        expect(op.security, `${r.method} ${r.path} (auth ${r.auth})`).to.deep.equal(SECURITY[r.auth as keyof typeof SECURITY]);
      }
      // the case the issue found: a QuickChart short chart needs a key, and says so
      expect(doc.paths['/chart/create'].post.security.map((x: Json) => Object.keys(x)).flat()).to.include.members(['ApiKeyHeader', 'QuickChartKey']);
      expect(doc.paths['/chart/create'].post.security, 'no empty alternative: the key is required').to.not.deep.include({});
    });

    it('without credentials, an operation whose security requires them is refused 401; one without such security is not', async () => {
      for (const r of routes()) {
        const op = doc.paths[openApiPath(r.path)][r.method.toLowerCase()];
        const required = op.security.length > 0 && !op.security.some((x: Json) => Object.keys(x).length === 0);
        // an open POST may have effects (a trial key): its document is checked above, its request by the cases below
        if (!required && r.method !== 'GET') continue;
        const url = s.url + r.path.replace(/:\w+/g, 'AAAAAAAAAAAAAAAAAAAAAA');
        const res = await fetch(url, r.method === 'POST' ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' } : {});
        await res.arrayBuffer();
        if (required) expect(res.status, `${r.method} ${r.path} (auth ${r.auth})`).to.equal(401);
        else expect(res.status, `${r.method} ${r.path} (auth ${r.auth})`).to.not.equal(401);
      }
    });
  });

  it('every operation of the document has a success case below', () => {
    const covered = new Set(CASES.filter((c) => [c.status].flat().some((x) => x < 300)).map((c) => `${c.method.toLowerCase()} ${c.op}`));
    const ops = Object.entries<Json>(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
    expect(ops.filter((o) => !covered.has(o))).to.deep.equal([]);
  });

  describe('real responses match the document', () => {
    for (const c of CASES) {
      it(`${c.method} ${c.op}: ${c.name} -> ${[c.status].flat().join('|')}`, async () => {
        const op = doc.paths[c.op]?.[c.method.toLowerCase()];
        expect(op, `${c.method} ${c.op} in the document`).to.be.an('object');
        const url = c.url(f);
        const init: RequestInit = { method: c.method, headers: { ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}), ...c.headers?.(f) }, redirect: 'manual' };
        if (c.body !== undefined) init.body = JSON.stringify(c.body);
        const res = await fetch(s.url + url, init);
        const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
        const raw = Buffer.from(await res.arrayBuffer());
        if (res.status === 404 && type === 'application/json') {
          expect(JSON.parse(raw.toString()).detail ?? '', 'a documented route exists').to.not.match(/^no route for /);
        }
        expect([c.status].flat(), `status (body: ${raw.toString().slice(0, 200)})`).to.include(res.status);
        const response = op.responses[String(res.status)];
        expect(response, `response ${res.status} documented for ${c.method} ${c.op}`).to.be.an('object');

        // Headers the document marks required (directly or through a $ref) must be present and valid.
        for (const [name, h0] of Object.entries<Json>(response.headers ?? {})) {
          const h = h0.$ref ? doc.components.headers[h0.$ref.split('/').pop()] : h0;
          const value = res.headers.get(name);
          if (value === null) {
            if (!h.required) continue;
            expect.fail(`required header ${name} missing on ${c.method} ${url} ${res.status}`);
          }
          if (h.schema?.type === 'integer') expect(value, name).to.match(/^\d+$/);
          if (h.schema?.enum) expect(h.schema.enum, name).to.include(value);
        }

        if (!response.content) {
          expect(raw.length, 'no body').to.equal(0);
          return;
        }
        expect(Object.keys(response.content), 'content type').to.include(type);
        const schemaPtr = pointer('paths', c.op, c.method.toLowerCase(), 'responses', String(res.status), 'content', type, 'schema');
        if (type === 'application/json') {
          const validate = ajv.getSchema(`openapi.json${schemaPtr}`) as ValidateFunction;
          const body = JSON.parse(raw.toString());
          expect(validate(body), `${JSON.stringify(body).slice(0, 300)}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
        } else if (type === 'image/png') {
          expect(raw.subarray(1, 4).toString()).to.equal('PNG');
        } else if (type === 'application/pdf') {
          expect(raw.subarray(0, 5).toString()).to.equal('%PDF-');
        } else if (type === 'image/svg+xml') {
          expect(raw.toString()).to.match(/<svg\b/);
        } else {
          expect(raw.length).to.be.above(0);
        }
      });
    }
  });
});
