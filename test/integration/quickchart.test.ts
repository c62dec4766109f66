// QuickChart's URL API over HTTP: /chart (GET, POST) with every parameter alias, /chart/create and
// /chart/render/{id} with template overrides, /qr, error images, and keyless use when allowed.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { post, startTestServer, type Credentials, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio, isPng } from '../helpers/images.js';

const V4 = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2], backgroundColor: '#36a2eb' }] }, options: { animation: false } };
const V4_TEXT = "{type:'bar',data:{labels:['a','b'],datasets:[{label:'x',data:[1,2],backgroundColor:'#36a2eb'}]},options:{animation:false},}";

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function get(s: TestServer, path: string, params: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  const q = new URLSearchParams(params).toString();
  const res = await fetch(`${s.url}${path}${q ? `?${q}` : ''}`, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

async function postChart(s: TestServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await post(s.url, path, body, headers);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function size(a: Answer): [number, number] {
  expect(isPng(a.body), `a PNG (status ${a.status}, ${a.headers.get('x-quickchart-error')})`).to.equal(true);
  const png = decodePng(a.body);
  return [png.width, png.height];
}

/** A QuickChart-style error: the status, the message header, and an image of the format asked for. */
function expectErrorImage(a: Answer, status: number, message: RegExp, type = 'image/png'): void {
  expect(a.status, a.headers.get('x-quickchart-error') ?? '').to.equal(status);
  expect(a.headers.get('x-quickchart-error')).to.match(message);
  expect(a.headers.get('content-type')).to.equal(type);
  if (type === 'image/png') expect(isPng(a.body)).to.equal(true);
  if (type === 'image/svg+xml') expect(a.body.toString('utf8')).to.match(/^<svg/);
}

async function usageCount(s: TestServer, acct: Credentials): Promise<number> {
  const res = await fetch(`${s.url}/usage/analytics`, { headers: { authorization: `Bearer ${acct.session_token}` } });
  return ((await res.json()) as { currentUsage: { count: number } }).currentUsage.count;
}

describe('QuickChart-compatible routes', function () {
  let s: TestServer;
  let acct: Credentials;

  before(async function () {
    this.timeout(60000);
    s = await startTestServer({ poolSize: 1 });
    acct = await s.account('starter');
  });
  after(async () => s?.stop());

  describe('GET and POST /chart', () => {
    it("answers 200 with QuickChart's Cache-Control; a JavaScript-literal config renders as its JSON twin does", async () => {
      const a = await get(s, '/chart', { c: V4_TEXT, v: '4', devicePixelRatio: '1', key: acct.api_key, ref: 'qc-js' });
      expect(a.status, a.headers.get('x-quickchart-error') ?? '').to.equal(200);
      expect(a.headers.get('cache-control')).to.equal('public, max-age=604800');
      expect(size(a)).to.deep.equal([500, 300]);
      const b = await get(s, '/chart', { chart: JSON.stringify(V4), v: '4', devicePixelRatio: '1', api_key: acct.api_key });
      expect(diffRatio(a.body, b.body)).to.equal(0);
    });

    it('names the Chart.js version that drew each image in X-Chartshot-Renderer', async () => {
      const seen: Record<string, string | null> = {};
      for (const v of ['2', '3', '4']) {
        const a = await get(s, '/chart', { c: V4_TEXT, v, devicePixelRatio: '1', key: acct.api_key });
        expect(a.status, a.headers.get('x-quickchart-error') ?? '').to.equal(200);
        seen[v] = a.headers.get('x-chartshot-renderer');
      }
      expect(seen['2']).to.match(/^chartjs=2\.9\.4; chromium=/);
      expect(seen['3']).to.match(/^chartjs=3\.9\.1; chromium=/);
      expect(seen['4']).to.match(/^chartjs=4\./);
    });

    it('defaults to devicePixelRatio 2: the output is 1000x600; the plan caps apply to output pixels', async () => {
      expect(size(await get(s, '/chart', { c: V4_TEXT, v: '4', key: acct.api_key }))).to.deep.equal([1000, 600]);
      expect(size(await get(s, '/chart', { c: V4_TEXT, v: '4', w: '200', h: '100', devicePixelRatio: '3', key: acct.api_key }))).to.deep.equal([600, 300]);
      // 1500 x 2 = 3000 pixels a side: over the starter plan's 2000
      const over = await get(s, '/chart', { c: V4_TEXT, v: '4', w: '1500', h: '500', key: acct.api_key });
      expectErrorImage(over, 400, /3000x1000/);
    });

    it('every alias: w/width, h/height, bkg/backgroundColor, f/format, v/version, c/chart; a conflict is a 400', async () => {
      const base = { c: V4_TEXT, v: '4', devicePixelRatio: '1', key: acct.api_key };
      expect(size(await get(s, '/chart', { ...base, width: '120', height: '80' }))).to.deep.equal([120, 80]);
      expect(size(await get(s, '/chart', { ...base, w: '120', h: '80', width: '120' }))).to.deep.equal([120, 80]);
      const white = await get(s, '/chart', { ...base, w: '120', h: '80', bkg: 'white' });
      const white2 = await get(s, '/chart', { ...base, w: '120', h: '80', backgroundColor: '#ffffff' });
      expect(diffRatio(white.body, white2.body)).to.equal(0);
      expect(decodePng(white.body).data[3]).to.equal(255);
      const svg = await get(s, '/chart', { ...base, format: 'svg' });
      expect(svg.headers.get('content-type')).to.equal('image/svg+xml');
      expect((await get(s, '/chart', { ...base, f: 'SVG' })).headers.get('content-type')).to.equal('image/svg+xml');
      expect((await get(s, '/chart', { chart: V4_TEXT, version: '4', key: acct.api_key })).status).to.equal(200);
      for (const [k1, k2] of [['w', 'width'], ['h', 'height'], ['bkg', 'backgroundColor'], ['f', 'format'], ['v', 'version']] as const) {
        const values: Record<string, [string, string]> = { w: ['100', '200'], h: ['100', '200'], bkg: ['red', 'blue'], f: ['png', 'svg'], v: ['4', '3'] };
        const [x, y] = values[k1]!;
        // the error image takes the format asked for under either name (svg here, for f/format)
        expectErrorImage(await get(s, '/chart', { ...base, [k1]: x, [k2]: y }), 400, new RegExp(`${k1} and ${k2}`), k1 === 'f' ? 'image/svg+xml' : 'image/png');
      }
      expectErrorImage(await get(s, '/chart', { ...base, c: V4_TEXT, chart: JSON.stringify(V4) }), 400, /c and chart/);
    });

    it('takes the key as key, api_key or X-Api-Key, and in a POST body', async () => {
      const q = { c: V4_TEXT, v: '4', w: '50', h: '50' };
      expect((await get(s, '/chart', { ...q, key: acct.api_key })).status).to.equal(200);
      expect((await get(s, '/chart', { ...q, api_key: acct.api_key })).status).to.equal(200);
      expect((await get(s, '/chart', q, { 'x-api-key': acct.api_key })).status).to.equal(200);
      expect((await postChart(s, '/chart', { ...q, key: acct.api_key })).status).to.equal(200);
      expect((await postChart(s, '/chart', { ...q, chart: V4, c: undefined }, { 'x-api-key': acct.api_key })).status).to.equal(200);
    });

    it('without a key: 401 with the message in X-quickchart-error and an image of it; a bad key likewise', async () => {
      expectErrorImage(await get(s, '/chart', { c: V4_TEXT }), 401, /API key is required/);
      expectErrorImage(await postChart(s, '/chart', { c: V4_TEXT, f: 'svg' }), 401, /API key is required/, 'image/svg+xml');
      expectErrorImage(await get(s, '/chart', { c: V4_TEXT, key: 'live_nope' }), 401, /./);
    });

    it('errors come as images in the requested format: bad config, missing config, bad version, bad ratio, bad encoding', async () => {
      const k = { key: acct.api_key };
      expectErrorImage(await get(s, '/chart', { ...k, c: '{type:' }), 400, /object literal/);
      expectErrorImage(await get(s, '/chart', { ...k }), 400, /c or chart is required/);
      expectErrorImage(await get(s, '/chart', { ...k, c: V4_TEXT, v: 'latest' }), 400, /version/);
      expectErrorImage(await get(s, '/chart', { ...k, c: V4_TEXT, devicePixelRatio: '9' }), 400, /devicePixelRatio/);
      expectErrorImage(await get(s, '/chart', { ...k, c: V4_TEXT, encoding: 'hex' }), 400, /encoding/);
      expectErrorImage(await get(s, '/chart', { ...k, c: V4_TEXT, f: 'gif' }), 400, /format/);
      const svg = await get(s, '/chart', { ...k, c: '{type:', f: 'svg' });
      expectErrorImage(svg, 400, /object literal/, 'image/svg+xml');
      expect(svg.body.toString('utf8')).to.include('object literal');
      // Chart.js refusing the config is the client's mistake, drawn like any other
      expectErrorImage(await get(s, '/chart', { ...k, c: "{type:'nosuchtype',data:{datasets:[]}}", v: '4' }), 400, /nosuchtype|chart type|could not be rendered/);
      expect((await get(s, '/chart', { ...k, c: '{type:', f: 'pdf' })).headers.get('content-type')).to.equal('application/pdf');
    });

    it('refusals before routing are images too: a malformed body, too many query parameters', async () => {
      const res = await fetch(`${s.url}/chart`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"c": ' });
      expectErrorImage({ status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) }, 400, /./);
      const many = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`p${i}`, '1']));
      expectErrorImage(await get(s, '/chart', { ...many, f: 'svg' }), 400, /more than 100 parameters/, 'image/svg+xml');
      // the /v1 routes keep their JSON errors
      const v1 = await fetch(`${s.url}/v1/chart`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"c": ' });
      expect(v1.headers.get('content-type')).to.match(/application\/json/);
    });

    it('encoding=base64 carries the config base64-encoded', async () => {
      const a = await get(s, '/chart', { c: Buffer.from(V4_TEXT).toString('base64'), encoding: 'base64', v: '4', devicePixelRatio: '1', key: acct.api_key });
      const b = await get(s, '/chart', { c: V4_TEXT, v: '4', devicePixelRatio: '1', key: acct.api_key });
      expect(diffRatio(a.body, b.body)).to.equal(0);
    });

    it('each render is a generation of the key’s account; a refused request is none', async () => {
      const fresh = await s.account('starter');
      const before = await usageCount(s, fresh);
      expect((await get(s, '/chart', { c: V4_TEXT, v: '4', w: '60', h: '40', key: fresh.api_key })).status).to.equal(200);
      expect((await postChart(s, '/chart', { c: V4_TEXT, v: '4', w: 61, h: 40, key: fresh.api_key })).status).to.equal(200);
      expect((await get(s, '/chart', { c: '{type:', key: fresh.api_key })).status).to.equal(400);
      expect(await usageCount(s, fresh)).to.equal(before + 2);
    });

    it('a config whose evaluation would write a file in Node writes nothing, with or without a key', async () => {
      const marker = join(tmpdir(), `chartshot-qc-eval-${process.pid}-${Date.now()}`);
      const c = `{type:'bar',data:(require('fs').writeFileSync(${JSON.stringify(marker)},'x'),{datasets:[]})}`;
      const keyed = await get(s, '/chart', { c, v: '4', key: acct.api_key });
      // require is not defined in the page: the config throws, a client mistake (400, not a 500)
      expect(keyed.status).to.equal(400);
      expect(keyed.headers.get('x-quickchart-error')).to.be.a('string');
      expectErrorImage(await postChart(s, '/chart', { c }), 401, /API key/);
      expect(existsSync(marker), 'nothing ran in Node').to.equal(false);
    });
  });

  describe('POST /chart/create and GET /chart/render/{id}', () => {
    it('answers 200 {success, url} with a /chart/render/ URL served without credentials, counted once', async () => {
      const owner = await s.account('starter');
      const before = await usageCount(s, owner);
      const res = await post(s.url, '/chart/create', { chart: V4_TEXT, v: '4', width: 200, height: 100, devicePixelRatio: 1, key: owner.api_key });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { success: boolean; url: string };
      expect(body.success).to.equal(true);
      expect(body.url).to.match(new RegExp(`^${s.config.publicBaseUrl}/chart/render/[A-Za-z0-9_-]{22}$`));
      const path = new URL(body.url).pathname;
      const a = await get(s, path);
      expect(a.status).to.equal(200);
      expect(a.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(size(a)).to.deep.equal([200, 100]);
      await get(s, path);
      expect(await usageCount(s, owner)).to.equal(before + 1);
    });

    it("template overrides draw a variant, cached; a variant is not a generation of the owner's", async () => {
      const owner = await s.account('starter');
      const res = await post(s.url, '/chart/create', { chart: JSON.stringify(V4), v: '4', width: 200, height: 100, devicePixelRatio: 1 }, { 'x-api-key': owner.api_key });
      const path = new URL(((await res.json()) as { url: string }).url).pathname;
      const plain = await get(s, path);
      const before = await usageCount(s, owner);
      const q = { title: 'Hello', labels: 'p,q', data1: '2,1', label1: 'y', backgroundColor1: '#ff0000', borderColor1: 'black' };
      const variant = await get(s, path, q);
      expect(variant.status, variant.headers.get('x-quickchart-error') ?? '').to.equal(200);
      expect(variant.headers.get('x-cache-tier')).to.equal('miss');
      expect(diffRatio(plain.body, variant.body)).to.be.greaterThan(0.01);
      const again = await get(s, path, q);
      expect(again.headers.get('x-cache-tier')).to.equal('edge');
      expect(diffRatio(variant.body, again.body)).to.equal(0);
      expect(size(await get(s, path, { width: '300', height: '150' }))).to.deep.equal([300, 150]);
      expect(await usageCount(s, owner)).to.equal(before);
    });

    it("a JavaScript chart's variants stop once its key is revoked: its code never runs again", async () => {
      const owner = await s.account('starter');
      const js = "{type:'bar',data:{labels:['a'],datasets:[{data:[1]}]},options:{scales:{y:{ticks:{callback:function(v){return v+'%'}}}}}}";
      const res = await post(s.url, '/chart/create', { chart: js, v: '4', width: 100, height: 60 }, { 'x-api-key': owner.api_key });
      const path = new URL(((await res.json()) as { url: string }).url).pathname;
      expect((await get(s, path, { title: 'before' })).status).to.equal(200);
      await s.deps.accounts.revokeKey(owner.key_id);
      expectErrorImage(await get(s, path, { title: 'after' }), 404, /revoked or has expired/);
    });

    it('a bad override, an unknown chart and a missing key are QuickChart-style errors', async () => {
      const res = await post(s.url, '/chart/create', { chart: V4_TEXT, v: '4', width: 100, height: 60 }, { 'x-api-key': acct.api_key });
      const path = new URL(((await res.json()) as { url: string }).url).pathname;
      expectErrorImage(await get(s, path, { data1: '1,x' }), 400, /data1 item 2/);
      expectErrorImage(await get(s, path, { width: '5000' }), 400, /width/);
      expectErrorImage(await get(s, '/chart/render/AAAAAAAAAAAAAAAAAAAAAA'), 404, /no such chart/);
      expectErrorImage(await get(s, '/chart/render/AAAAAAAAAAAAAAAAAAAAAA', { title: 'x', f: 'svg' }), 404, /no such chart/, 'image/svg+xml');
      expectErrorImage(await postChart(s, '/chart/create', { chart: V4_TEXT }), 401, /API key/);
    });
  });

  describe('which requests answer errors as images', () => {
    it("a refusal before routing (the query parser) on a QuickChart route is an image; a path or method no route takes is the error object", async () => {
      const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`p${i}`, '1']));
      expectErrorImage(await get(s, '/chart', { ...many, f: 'svg' }), 400, /parameters/, 'image/svg+xml');
      expectErrorImage(await get(s, '/qr', many), 400, /parameters/);
      const unknown = await get(s, '/chart/nope');
      expect([unknown.status, unknown.headers.get('x-quickchart-error')]).to.deep.equal([404, null]);
      expect(JSON.parse(unknown.body.toString())).to.deep.equal({ error: 'not_found', detail: 'no route for GET /chart/nope' });
      const put = await fetch(`${s.url}/chart`, { method: 'PUT' });
      expect([put.status, put.headers.get('x-quickchart-error'), ((await put.json()) as { error: string }).error]).to.deep.equal([405, null, 'invalid_input']);
    });
  });

  describe('GET /qr', () => {
    it("draws QuickChart's defaults (150 px with a 4-module margin, M, black on white), cacheable", async () => {
      const a = await get(s, '/qr', { key: acct.api_key, text: 'https://example.com/' });
      expect(a.status).to.equal(200);
      expect(a.headers.get('cache-control')).to.equal('public, max-age=604800');
      expect(size(a)).to.deep.equal([150, 150]);
      const png = decodePng(a.body);
      expect([...png.data.subarray(0, 4)]).to.deep.equal([255, 255, 255, 255]);
      expect(size(await get(s, '/qr', { key: acct.api_key, text: 'x', size: '300', margin: '0', ecLevel: 'H' }))).to.deep.equal([300, 300]);
      const dark = decodePng((await get(s, '/qr', { key: acct.api_key, text: 'x', margin: '0', dark: 'ff0000' })).body);
      expect([...dark.data.subarray(0, 3)]).to.deep.equal([255, 0, 0]);
      const svg = await get(s, '/qr', { key: acct.api_key, text: 'x', format: 'svg' });
      expect(svg.headers.get('content-type')).to.equal('image/svg+xml');
      expect(svg.body.toString('utf8')).to.match(/<svg/);
    });

    it('without a key: 401 (QUICKCHART_ANONYMOUS is off), and a QR code is not a generation', async () => {
      expectErrorImage(await get(s, '/qr', { text: 'no key' }), 401, /API key/);
      const before = await usageCount(s, acct);
      expect((await get(s, '/qr', { key: acct.api_key, text: 'not counted' })).status).to.equal(200);
      expect(await usageCount(s, acct)).to.equal(before);
    });

    it('refuses missing or oversized text, sizes past 1000 and bad parameters with an error image', async () => {
      expectErrorImage(await get(s, '/qr', { key: acct.api_key }), 400, /text is required/);
      expectErrorImage(await get(s, '/qr', { key: acct.api_key, text: 'x'.repeat(2049) }), 400, /2048/);
      expectErrorImage(await get(s, '/qr', { key: acct.api_key, text: 'x', size: '5000' }), 400, /size/);
      expectErrorImage(await get(s, '/qr', { key: acct.api_key, text: 'x', ecLevel: 'Z' }), 400, /ecLevel/);
      expectErrorImage(await get(s, '/qr', { key: acct.api_key, text: 'x', format: 'svg', dark: 'nope' }), 400, /dark/, 'image/svg+xml');
    });
  });

  describe('/v1 chart endpoints: devicePixelRatio and the short parameter names', () => {
    it('POST /v1/chart takes devicePixelRatio (default 1) and w, h, bkg, f; JSON errors stay JSON', async () => {
      const auth = { 'x-api-key': acct.api_key };
      const one = await postChart(s, '/v1/chart', { chart: V4, width: 100, height: 60 }, auth);
      expect(size(one)).to.deep.equal([100, 60]);
      expect(size(await postChart(s, '/v1/chart', { chart: V4, w: 100, h: 60, devicePixelRatio: 2 }, auth))).to.deep.equal([200, 120]);
      const svg = await postChart(s, '/v1/chart', { c: V4, w: 100, h: 60, f: 'svg', bkg: 'white' }, auth);
      expect(svg.headers.get('content-type')).to.equal('image/svg+xml');
      const conflict = await postChart(s, '/v1/chart', { chart: V4, width: 100, w: 120, height: 60 }, auth);
      expect(conflict.status).to.equal(400);
      expect(JSON.parse(conflict.body.toString('utf8'))).to.deep.include({ error: 'invalid_input' });
      const ratio = await postChart(s, '/v1/chart', { chart: V4, width: 100, height: 60, devicePixelRatio: 5 }, auth);
      expect(ratio.status).to.equal(400);
      const over = await postChart(s, '/v1/chart', { chart: V4, width: 1500, height: 100, devicePixelRatio: 2 }, auth);
      expect(JSON.parse(over.body.toString('utf8'))).to.deep.include({ error: 'invalid_dimensions' });
    });

    it('GET /v1/chart and POST /v1/chart/create take them too', async () => {
      const a = await get(s, '/v1/chart', { c: JSON.stringify(V4), w: '100', h: '50', devicePixelRatio: '2', api_key: acct.api_key });
      expect(size(a)).to.deep.equal([200, 100]);
      const res = await post(s.url, '/v1/chart/create', { chart: V4, w: 100, h: 50, devicePixelRatio: 2 }, { 'x-api-key': acct.api_key });
      expect(res.status).to.equal(201);
      const url = ((await res.json()) as { url: string }).url;
      expect(size(await get(s, new URL(url).pathname))).to.deep.equal([200, 100]);
    });

    it('the open endpoint takes width, height, backgroundColor and f beside w, h, bkg and format', async () => {
      const a = await get(s, '/v1/open/chart', { c: JSON.stringify(V4), width: '90', height: '40', backgroundColor: 'white', f: 'png' });
      expect(size(a)).to.deep.equal([90, 40]);
      const conflict = await get(s, '/v1/open/chart', { c: JSON.stringify(V4), w: '90', width: '91' });
      expect(conflict.status).to.equal(400);
      expect(JSON.parse(conflict.body.toString('utf8'))).to.deep.include({ error: 'invalid_config' });
    });

    it('the automation endpoints take w, h, bkg and f too; a conflict is a 400', async () => {
      const auth = { 'x-api-key': acct.api_key };
      const res = await post(s.url, '/v1/zapier/bar-chart', { title: 'T', labels: 'a,b', values: '1,2', w: 150, h: '90', f: 'svg', bkg: 'white' }, auth);
      expect(res.status).to.equal(201);
      expect(await res.json()).to.deep.include({ width: 150, height: 90, format: 'svg' });
      const conflict = await post(s.url, '/v1/zapier/bar-chart', { title: 'T', labels: 'a,b', values: '1,2', w: 150, width: 160 }, auth);
      expect(conflict.status).to.equal(400);
    });
  });
});

describe('keyless /chart', function () {
  it('is 401 unless QUICKCHART_ANONYMOUS is set (covered above); with it, data configs render without an account', async function () {
    this.timeout(60000);
    const s = await startTestServer({ poolSize: 1, quickchartAnonymous: true, openRendersPerHour: 2 });
    try {
      const acct = await s.account('starter');
      const q = { c: V4_TEXT, v: '4', w: '120', h: '80', devicePixelRatio: '1' };
      const anon = await get(s, '/chart', q);
      expect(anon.status, anon.headers.get('x-quickchart-error') ?? '').to.equal(200);
      // no watermark: the same pixels as a key holder's render
      const keyed = await get(s, '/chart', { ...q, key: acct.api_key });
      expect(diffRatio(anon.body, keyed.body)).to.equal(0);
      // the security gate and no functions
      expectErrorImage(await get(s, '/chart', { ...q, c: "{type:'bar',data:{datasets:[]},options:{plugins:{title:{text:function(){return 1}}}}}" }), 400, /API key/);
      expectErrorImage(await get(s, '/chart', { ...q, c: "{type:'bar',data:{datasets:[]},options:{title:{text:'function(){return 1}'}}}" }), 400, /./);
      // the cache answers the same request again without spending the address's window
      expect((await get(s, '/chart', q)).status).to.equal(200);
      // the per-address window (2 renders an hour here): the second new chart is the last one
      expect((await get(s, '/chart', { ...q, w: '121' })).status).to.equal(200);
      const limited = await get(s, '/chart', { ...q, w: '122' });
      expectErrorImage(limited, 429, /per hour/);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      // a key holder is not held by the address's window
      expect((await get(s, '/chart', { ...q, w: '123', key: acct.api_key })).status).to.equal(200);
      // keyless /chart/create draws in the same window (its own tests: quickchart-create-keyless)
      expectErrorImage(await postChart(s, '/chart/create', { c: V4_TEXT }), 429, /per hour/);
    } finally {
      await s.stop();
    }
  });
});
