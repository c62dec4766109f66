// GET/POST /v1/chart against the real server: real Chromium pages, a real SQLite file.
import { expect } from 'chai';
import { BAR, sharedAccount, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, type Client, errorOf } from '../helpers/client.js';
import { decodePng, pixel } from '../helpers/images.js';

describe('GET and POST /v1/chart', function () {
  let s: TestServer;
  let api: Client;
  let key: string;
  let enterprise: Client;

  before(async () => {
    ({ s, api, key } = await sharedAccount('starter'));
    enterprise = (await s.client('enterprise')).api;
  });

  const render = (body: unknown, headers?: Record<string, string>) => api.post('/v1/chart', body, headers);
  const anonymous = (body: unknown, headers?: Record<string, string>) => api.as().post('/v1/chart', body, headers);

  it('POST renders a PNG of exactly width x height', async () => {
    // api.png: 200, image/png, a PNG signature
    const image = await api.png({ chart: BAR, width: 640, height: 320 });
    expect([image.width, image.height]).to.deep.equal([640, 320]);
  });

  it('accepts c as an alias and the config as a JSON string', async () => {
    expect((await api.png({ c: JSON.stringify(BAR), width: 100, height: 80 })).width).to.equal(100);
  });

  it('GET takes the same fields as query parameters, with api_key in the query', async () => {
    const q = new URLSearchParams({ chart: JSON.stringify(BAR), width: '300', height: '200', api_key: key });
    const res = await fetch(`${s.url}/v1/chart?${q}`);
    expect(res.status).to.equal(200);
    const image = decodePng(await bytes(res));
    expect([image.width, image.height]).to.deep.equal([300, 200]);
  });

  it('transparent by default; backgroundColor fills the canvas', async () => {
    const clear = await api.png({ chart: BAR, width: 200, height: 100 });
    expect(pixel(clear, 0, 0)[3]).to.equal(0);
    const white = await api.png({ chart: BAR, width: 200, height: 100, backgroundColor: 'rgb(255, 0, 0)' });
    expect(pixel(white, 0, 0)).to.deep.equal([255, 0, 0, 255]);
  });

  it('SVG output is a well-formed vector SVG of the requested size', async () => {
    const res = await render({ chart: BAR, width: 500, height: 250, format: 'svg' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    const svg = await res.text();
    expect(svg).to.match(/^(<\?xml[^>]*>\s*)?<svg[^>]*\swidth="500"[^>]*>/);
    expect(svg).to.match(/height="250"/);
    expect(svg).to.match(/<(path|rect)\b/);
    expect(svg).not.to.match(/<image\b/);
    expect(svg.trim().endsWith('</svg>')).to.equal(true);
  });

  it('PDF only for enterprise', async () => {
    const refused = await errorOf(await render({ chart: BAR, width: 200, height: 100, format: 'pdf' }));
    expect(refused).to.include({ status: 400, error: 'invalid_input' });
    const res = await enterprise.post('/v1/chart', { chart: BAR, width: 200, height: 100, format: 'pdf' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect((await bytes(res)).subarray(0, 5).toString()).to.equal('%PDF-');
  });

  describe('errors carry their codes', () => {
    const cases: Array<[string, unknown, number, string]> = [
      ['missing chart', { width: 100, height: 100 }, 400, 'chart_required'],
      ['chart null', { chart: null, width: 100, height: 100 }, 400, 'chart_required'],
      ['chart empty string', { chart: '', width: 100, height: 100 }, 400, 'chart_required'],
      ['missing width', { chart: BAR, height: 100 }, 400, 'invalid_dimensions'],
      ['width 0', { chart: BAR, width: 0, height: 100 }, 400, 'invalid_dimensions'],
      ['height 2001 on starter', { chart: BAR, width: 100, height: 2001 }, 400, 'invalid_dimensions'],
      ['width not a number', { chart: BAR, width: 'wide', height: 100 }, 400, 'invalid_dimensions'],
      ['chart not JSON', { chart: '{type: bar', width: 100, height: 100 }, 400, 'invalid_input'],
      ['chart an array', { chart: [1, 2], width: 100, height: 100 }, 400, 'invalid_input'],
      ['unknown chart type', { chart: { type: 'sunburst', data: { datasets: [] } }, width: 100, height: 100 }, 400, 'invalid_input'],
      ['format jpeg', { chart: BAR, width: 100, height: 100, format: 'jpeg' }, 400, 'invalid_input'],
      ['bad colour', { chart: BAR, width: 100, height: 100, backgroundColor: 'url(http://x)' }, 400, 'invalid_input'],
    ];
    for (const [name, body, status, code] of cases) {
      it(`${name} -> ${status} ${code}`, async () => {
        expect(await api.error('/v1/chart', body)).to.include({ status, error: code });
      });
    }

    it('a body that is not JSON -> 400 invalid_input', async () => {
      expect(await errorOf(await render('{"chart":'))).to.include({ status: 400, error: 'invalid_input' });
    });

    it('a malformed body is judged after the key: X-RateLimit-* on the 400, 401 without a key', async () => {
      const res = await render('{"chart":');
      expect(res.headers.get('x-ratelimit-limit')).to.match(/^\d+$/);
      expect(res.headers.get('x-ratelimit-remaining')).to.match(/^\d+$/);
      expect(res.headers.get('x-ratelimit-reset')).to.match(/^\d+$/);
      expect(await errorOf(res)).to.include({ status: 400, error: 'invalid_input' });
      expect(await errorOf(await anonymous('{"chart":'))).to.include({ status: 401, error: 'unauthorized' });
      const created = await api.post('/v1/chart/create', 'not json');
      expect(created.headers.get('x-ratelimit-limit')).to.match(/^\d+$/);
      expect(await errorOf(created)).to.include({ status: 400, error: 'invalid_input' });
    });

    it('a body over the limit -> 400 invalid_input, without reading it all', async () => {
      const huge = JSON.stringify({ chart: { type: 'bar', data: { labels: ['x'.repeat(s.config.maxBodyBytes)] } }, width: 10, height: 10 });
      expect(await errorOf(await render(huge))).to.include({ status: 400, error: 'invalid_input' });
    });

    it('no key, unknown key, wrong-looking key, other header names -> 401 unauthorized', async () => {
      expect(await errorOf(await anonymous({ chart: BAR, width: 10, height: 10 }))).to.include({ status: 401, error: 'unauthorized' });
      expect(await errorOf(await render({ chart: BAR, width: 10, height: 10 }, apiKey('live_nope')))).to.include({ status: 401, error: 'unauthorized' });
      expect(await errorOf(await render({ chart: BAR, width: 10, height: 10 }, apiKey('sk_something')))).to.include({ status: 401, error: 'unauthorized' });
      expect(await errorOf(await anonymous({ chart: BAR, width: 10, height: 10 }, { authorization: `Bearer ${key}` }))).to.include({ status: 401, error: 'unauthorized' });
    });

    it('a revoked key -> 401', async () => {
      const acct = await s.account('starter');
      await s.deps.accounts.revokeKey(acct.key_id);
      expect(await errorOf(await api.as(acct.api_key).post('/v1/chart', { chart: BAR, width: 10, height: 10 }))).to.include({ status: 401, error: 'unauthorized' });
    });

    it('unknown routes -> 404 not_found error object', async () => {
      expect(await errorOf(await fetch(`${s.url}/v1/nothing`))).to.include({ status: 404, error: 'not_found' });
    });
  });

  it('function strings run for authenticated callers (a tick callback changes the image)', async () => {
    const plain = { type: 'bar', data: BAR.data, options: { scales: { y: { ticks: {} } } } };
    const fn = { type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: "function(v){ return v + ' units'; }" } } } } };
    const a = await bytes(render({ chart: plain, width: 300, height: 200 }));
    const res = await render({ chart: fn, width: 300, height: 200 });
    expect(res.status).to.equal(200);
    const b = await bytes(res);
    expect(a.equals(b)).to.equal(false);
  });

  it('labels and data that look like arrows stay text even for authenticated callers', async () => {
    const arrowLabels = { type: 'bar', data: { labels: ['Revenue => Profit', 'b'], datasets: [{ label: 'x => y', data: [1, 2] }] } };
    const plainLabels = { type: 'bar', data: { labels: ['Revenue => Profit', 'b'], datasets: [{ label: 'x => y', data: [1, 2] }] } };
    const res = await render({ chart: arrowLabels, width: 300, height: 200, format: 'svg' });
    expect(res.status).to.equal(200);
    const svg = await res.text();
    expect(svg).to.contain('Revenue =&gt; Profit');
    expect(svg).to.contain('x =&gt; y');
    expect(plainLabels).to.deep.equal(arrowLabels);
  });

  it('identical requests give byte-identical PNGs', async () => {
    const a = await api.render({ chart: BAR, width: 321, height: 123 });
    const b = await api.render({ chart: BAR, width: 321, height: 123 });
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    expect(a.body.equals(b.body)).to.equal(true);
  });

  it('a pk_test_ key renders with a watermark', async () => {
    const acct = await s.account('starter');
    const test = await s.deps.accounts.createKey(acct.account_id, 'test');
    const live = await bytes(api.as(acct.api_key).post('/v1/chart', { chart: BAR, width: 400, height: 200 }));
    const res = await api.as(test.api_key).post('/v1/chart', { chart: BAR, width: 400, height: 200 });
    expect(res.status).to.equal(200);
    const marked = await bytes(res);
    expect(marked.equals(live)).to.equal(false);
  });
});
