// GET /v1/open/chart and /playground against a real server: real Chromium pages, a real
// SQLite file. The per-IP limit under load is in open-load.test.ts.
import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { post, startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio, isPng, pixel } from '../helpers/images.js';
import { freezeRenderers } from '../helpers/crash.js';
import { poolIdle } from '../helpers/sinks.js';
import { apiKey, bytes, errorOf, type ApiError } from '../helpers/client.js';

const BASE = 'https://charts.example.test';
const CACHE_CONTROL = 'public, max-age=86400, s-maxage=31536000, immutable';
const GOLDEN = 'test/golden/open-watermark.png';
const MAX_DIFF = 0.001;

const CHART = {
  type: 'bar',
  data: {
    labels: ['Q1', 'Q2', 'Q3', 'Q4'],
    datasets: [{ label: 'Revenue', data: [12, 19, 7, 15], backgroundColor: '#3B82F6' }],
  },
  options: { plugins: { title: { display: true, text: 'Open endpoint' } } },
};

const openPath = (params: Record<string, string | number>) =>
  `/v1/open/chart?${new URLSearchParams(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])))}`;

describe('GET /v1/open/chart', function () {
  this.timeout(60000);
  let s: TestServer;
  /** Renders that reached the page pool, by its own counter. */
  const renders = () => s.deps.pool.stats().renders ?? 0;

  before(async () => {
    s = await startTestServer({ poolSize: 1, openRendersPerHour: 1000, publicBaseUrl: BASE });
  });
  after(() => s?.stop());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(s.url + path, { headers });

  /** The error object of the open endpoint, whose errors are never cacheable. */
  async function openError(res: Response): Promise<ApiError> {
    expect(res.headers.get('cache-control'), 'errors are not cacheable').to.equal('no-store');
    expect(res.headers.get('x-cache-tier')).to.equal(null);
    return errorOf(res);
  }

  describe('images and caching', () => {
    it('the shortcut renders a 500x300 PNG on white with every caching header', async () => {
      const res = await get(openPath({ type: 'bar', data: '3,7,5', labels: 'a,b,c' }));
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(res.headers.get('cache-control')).to.equal(CACHE_CONTROL);
      expect(res.headers.get('x-cache-tier')).to.equal('miss');
      expect(res.headers.get('etag')).to.match(/^"[\w-]{10,}"$/);
      const png = decodePng(await bytes(res));
      expect([png.width, png.height]).to.deep.equal([500, 300]);
      expect(pixel(png, 0, 0)).to.deep.equal([255, 255, 255, 255]);
    });

    it('a deeply nested c (3,000 levels, as a JSON string) is 400 invalid_config, never 500', async () => {
      const c = `{"type":"bar","data":{"labels":${'['.repeat(3000)}${']'.repeat(3000)}}}`;
      const res = await get(`/v1/open/chart?c=${c}`);
      const err = await openError(res);
      expect(err.status).to.equal(400);
      expect(err.error).to.equal('invalid_config');
      expect(err.detail).to.match(/nests deeper than 32 levels/);
    });

    it('a 6 KB config keeps every response header under 4 KB: X-Edit-Url and Link become ?id= links that open', async () => {
      const labels = Array.from({ length: 60 }, (_, i) => `Region number ${i} (EUR)`);
      const big = { type: 'bar', data: { labels, datasets: [{ label: 'Sales', data: labels.map((_, i) => i % 17) }] }, options: { plugins: { title: { display: true, text: 'x'.repeat(3500) } } } };
      const c = JSON.stringify(big);
      expect(Buffer.byteLength(c)).to.be.within(5000, 6144);
      for (const format of ['png', 'svg']) {
        const res = await get(openPath({ c, format, bkg: '#eeeeee' }));
        expect(res.status).to.equal(200);
        let headerBytes = 0;
        res.headers.forEach((v, k) => (headerBytes += k.length + v.length + 4));
        expect(headerBytes, 'all response headers').to.be.below(4096);
        const edit = res.headers.get('x-edit-url')!;
        expect(edit).to.match(new RegExp(`^${BASE}/playground\\?id=[A-Za-z0-9_-]{43}$`));
        expect(res.headers.get('link')).to.equal(`<${edit}>; rel="edit"`);
        // the playground page is served for ?id=, and the stored state reopens this image
        const id = new URL(edit).searchParams.get('id')!;
        const page = await get(`/playground?id=${id}`);
        expect(page.status).to.equal(200);
        expect(page.headers.get('content-type')).to.match(/text\/html/);
        const state = await get(`/playground/config/${id}`);
        expect(state.status).to.equal(200);
        expect(await state.json()).to.deep.equal({ c: big, ...(format === 'svg' ? { format } : {}), bkg: '#eeeeee' });
        // a cache hit carries the same short link
        const again = await get(openPath({ c, format, bkg: '#eeeeee' }));
        expect(again.headers.get('x-edit-url')).to.equal(edit);
      }
      const missing = await get(`/playground/config/${'A'.repeat(43)}`);
      expect(missing.status).to.equal(404);
      expect((await missing.json()).error).to.equal('not_found');
      expect((await get('/playground/config/..%2F..%2Fetc')).status).to.equal(404);
    });

    it('X-Edit-Url and Link rel=edit open the same chart in the playground', async () => {
      const res = await get(openPath({ c: JSON.stringify(CHART), w: 320, h: 200 }));
      expect(res.status).to.equal(200);
      const edit = res.headers.get('x-edit-url')!;
      expect(edit.startsWith(`${BASE}/playground?c=`)).to.equal(true);
      const u = new URL(edit);
      expect(JSON.parse(u.searchParams.get('c')!)).to.deep.equal(CHART);
      expect(u.searchParams.get('w')).to.equal('320');
      expect(u.searchParams.get('h')).to.equal('200');
      expect(res.headers.get('link')).to.equal(`<${edit}>; rel="edit"`);
      // the shortcut's link carries the config it was turned into
      const short = await get(openPath({ type: 'pie', data: '1,2', labels: 'x,y' }));
      const cfg = JSON.parse(new URL(short.headers.get('x-edit-url')!).searchParams.get('c')!) as { type: string; data: unknown };
      expect(cfg.type).to.equal('pie');
      expect(cfg.data).to.deep.equal({ labels: ['x', 'y'], datasets: [{ data: [1, 2] }] });
    });

    it('identical URLs give identical bytes: miss, then edge (memory), then r2 (persistent)', async () => {
      const path = openPath({ c: JSON.stringify(CHART), w: 300, h: 180, bkg: '#fafafa' });
      const first = await get(path);
      expect(first.headers.get('x-cache-tier')).to.equal('miss');
      const a = await bytes(first);
      const before = renders();
      const second = await get(path);
      expect(second.headers.get('x-cache-tier')).to.equal('edge');
      expect((await bytes(second)).equals(a)).to.equal(true);
      expect(second.headers.get('etag')).to.equal(first.headers.get('etag'));
      s.deps.imageCache.clearMemory();
      const third = await get(path);
      expect(third.headers.get('x-cache-tier')).to.equal('r2');
      expect(third.headers.get('cache-control')).to.equal(CACHE_CONTROL);
      expect((await bytes(third)).equals(a)).to.equal(true);
      expect(renders(), 'hits never render').to.equal(before);
    });

    it('the cache key is what the page draws: explicit defaults and unknown parameters do not matter, key order does', async () => {
      const c1 = '{"type":"line","data":{"labels":["a","b"],"datasets":[{"data":[1,4]}]}}';
      const c2 = '{"data":{"datasets":[{"data":[1,4]}],"labels":["a","b"]},"type":"line"}';
      const first = await get(openPath({ c: c1 }));
      expect(first.headers.get('x-cache-tier')).to.equal('miss');
      const again = await get(openPath({ c: c1, w: 500, h: 300, format: 'png', bkg: 'white', utm_source: 'mail' }));
      expect(again.status).to.equal(200);
      expect(again.headers.get('x-cache-tier')).to.equal('edge');
      expect((await bytes(again)).equals(await bytes(first))).to.equal(true);
      // the same chart with its keys in another order is another text, so another entry
      const reordered = await get(openPath({ c: c2 }));
      expect(reordered.status).to.equal(200);
      expect(reordered.headers.get('x-cache-tier')).to.equal('miss');
    });

    it('a data object whose keys come in another order is another image, not the first caller\'s (issue 25)', async () => {
      // a data object's keys are its labels, in order: the page draws the points as sent
      const c1 = '{"type":"bar","data":{"datasets":[{"data":{"north":9,"south":1,"east":5}}]}}';
      const c2 = '{"type":"bar","data":{"datasets":[{"data":{"south":1,"east":5,"north":9}}]}}';
      const a = await get(openPath({ c: c1, w: 200, h: 120 }));
      const b = await get(openPath({ c: c2, w: 200, h: 120 }));
      expect(a.status).to.equal(200);
      expect(b.status).to.equal(200);
      expect(b.headers.get('x-cache-tier'), 'not the first URL\'s entry').to.equal('miss');
      expect(b.headers.get('etag')).not.to.equal(a.headers.get('etag'));
      expect((await bytes(b)).equals(await bytes(a))).to.equal(false);
    });

    it('If-None-Match with the ETag gives 304 with the caching headers and no body', async () => {
      const path = openPath({ type: 'line', data: '1,3,2' });
      const res = await get(path);
      const etag = res.headers.get('etag')!;
      for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const r = await get(path, { 'if-none-match': inm });
        expect(r.status, inm).to.equal(304);
        expect(r.headers.get('etag')).to.equal(etag);
        expect(r.headers.get('cache-control')).to.equal(CACHE_CONTROL);
        expect(r.headers.get('x-cache-tier')).to.equal('edge');
        expect(r.headers.get('x-edit-url')).to.match(/\/playground\?c=/);
        expect((await r.arrayBuffer()).byteLength).to.equal(0);
      }
      const stale = await get(path, { 'if-none-match': '"not-it"' });
      expect(stale.status).to.equal(200);
      expect(isPng(await bytes(stale))).to.equal(true);
    });

    it('SVG: a vector image of the requested size, with the watermark as text and a locked-down CSP', async () => {
      const res = await get(openPath({ c: JSON.stringify(CHART), w: 400, h: 240, format: 'svg' }));
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
      expect(res.headers.get('cache-control')).to.equal(CACHE_CONTROL);
      expect(res.headers.get('content-security-policy')).to.match(/default-src 'none'/);
      const svg = await res.text();
      expect(svg).to.match(/<svg[^>]*\swidth="400"/);
      expect(svg).to.match(/<text[^>]*>chartshot<\/text>/);
      expect(svg).to.match(/<path\b/);
    });

    it('HEAD answers with the headers of GET', async () => {
      const path = openPath({ type: 'bar', data: '3,7,5', labels: 'a,b,c' });
      await (await get(path)).arrayBuffer();
      const res = await fetch(s.url + path, { method: 'HEAD' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(res.headers.get('x-cache-tier')).to.equal('edge');
    });
  });

  describe('watermark', () => {
    it('open PNG matches its golden image (look at test/golden/open-watermark.png)', async () => {
      const res = await get(openPath({ c: JSON.stringify(CHART), w: 480, h: 270 }));
      expect(res.status).to.equal(200);
      const png = await bytes(res);
      if (process.env.UPDATE_GOLDEN === '1') {
        mkdirSync('test/golden', { recursive: true });
        writeFileSync(GOLDEN, png);
        return;
      }
      if (!existsSync(GOLDEN)) throw new Error(`no golden ${GOLDEN}: run with UPDATE_GOLDEN=1 and look at it`);
      const ratio = diffRatio(png, readFileSync(GOLDEN));
      if (ratio > MAX_DIFF) {
        mkdirSync('test/output', { recursive: true });
        writeFileSync('test/output/open-watermark.actual.png', png);
      }
      expect(ratio, `${(ratio * 100).toFixed(3)}% of pixels differ (see test/output)`).to.be.at.most(MAX_DIFF);
    });

    /** Bounding box of the pixels that differ between two same-size PNGs. */
    function diffBox(a: Buffer, b: Buffer) {
      const pa = decodePng(a);
      const pb = decodePng(b);
      expect([pa.width, pa.height]).to.deep.equal([pb.width, pb.height]);
      let minX = Infinity, minY = Infinity, maxX = -1, maxY = -1;
      for (let y = 0; y < pa.height; y++) {
        for (let x = 0; x < pa.width; x++) {
          const i = (y * pa.width + x) * 4;
          if (pa.data.readUInt32BE(i) !== pb.data.readUInt32BE(i)) {
            minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
          }
        }
      }
      return { minX, minY, maxX, maxY, width: pa.width, height: pa.height };
    }

    /** The same request rendered by the pool with a blank watermark: same layout (the strip is
     *  kept), nothing drawn in it. */
    async function blankMarked(background: string): Promise<Buffer> {
      const res = await s.deps.pool.render({ config: CHART, width: 480, height: 270, format: 'png', backgroundColor: background, allowFunctions: false, watermark: ' ' });
      return Buffer.from(res.data, 'base64');
    }

    it('is the only difference from the same chart with a blank watermark: small, bottom-right, in its own strip', async () => {
      const open = await bytes(await get(openPath({ c: JSON.stringify(CHART), w: 480, h: 270 })));
      const box = diffBox(open, await blankMarked('white'));
      expect(box.maxX, 'some pixels differ').to.be.at.least(0);
      expect(box.minX, 'right-hand corner').to.be.above(480 - 80);
      expect(box.minY, 'bottom strip').to.be.at.least(270 - 14);
    });

    it('pk_test_ keys render watermarked too (on /v1/chart)', async () => {
      const account = await s.account('starter');
      const test = await s.deps.accounts.createKey(account.account_id, 'test');
      expect(test.api_key.startsWith('pk_test_')).to.equal(true);
      const body = { chart: CHART, width: 480, height: 270, backgroundColor: 'white' };
      const marked = await post(s.url, '/v1/chart', body, apiKey(test.api_key));
      const plain = await post(s.url, '/v1/chart', body, apiKey(account.api_key));
      expect([marked.status, plain.status]).to.deep.equal([200, 200]);
      const markedPng = await bytes(marked);
      expect(markedPng.equals(await bytes(plain)), 'the live key renders without the strip').to.equal(false);
      const box = diffBox(markedPng, await blankMarked('white'));
      expect(box.maxX).to.be.at.least(0);
      expect(box.minX).to.be.above(480 - 120);
      expect(box.minY).to.be.at.least(270 - 14);
    });
  });

  describe('errors carry the open endpoint codes', () => {
    const bad: Array<[string, Record<string, string | number>]> = [
      ['invalid JSON', { c: '{"type": bar}' }],
      ['an unsupported type in c', { c: '{"type":"sunburst","data":{}}' }],
      ['an unsupported shortcut type', { type: 'radar', data: '1,2' }],
      ['neither c nor type', { w: 100 }],
      ['w out of range', { type: 'bar', data: '1', w: 2001 }],
      ['h zero', { type: 'bar', data: '1', h: 0 }],
      ['w not an integer', { type: 'bar', data: '1', w: '12.5' }],
      ['format pdf', { type: 'bar', data: '1', format: 'pdf' }],
      ['bkg not a colour', { type: 'bar', data: '1', bkg: 'expression(alert(1))' }],
      ['501 data points', { type: 'bar', data: Array(501).fill(1).join(',') }],
      ['a function string', { c: JSON.stringify({ ...CHART, options: { scales: { y: { ticks: { callback: '(v) => v + "%"' } } } } }) }],
      // issue 30: strings that parse as arrow functions rendered 200 before acorn read them
      ['a constant arrow as an option value', { c: JSON.stringify({ ...CHART, options: { scales: { y: { ticks: { stepSize: '_ => 0' } } } } }) }],
      ['a scriptable font arrow as an option value', { c: JSON.stringify({ ...CHART, options: { scales: { x: { ticks: { font: 'ctx => ({ size: 12 })' } } } } }) }],
      ['a top-level plugins array', { c: JSON.stringify({ ...CHART, plugins: [{ id: 'x' }] }) }],
      ['a remote image outside data', { c: JSON.stringify({ ...CHART, options: { plugins: { title: { display: true, text: 'see https://evil.example' } } } }) }],
      ['a config Chart.js refuses', { c: JSON.stringify({ ...CHART, options: { scales: { x: { type: 'nonexistent' } } } }) }],
    ];
    for (const [name, params] of bad) {
      it(`400 invalid_config: ${name}`, async () => {
        const e = await openError(await get(openPath(params)));
        expect(e, JSON.stringify(e)).to.include({ status: 400, error: 'invalid_config' });
      });
    }

    it('200: prose with arrows and parentheses in the title is not code', async () => {
      const text = ['a => b is how we write it', 'Sales (EUR) -> up'];
      const res = await get(openPath({ c: JSON.stringify({ ...CHART, options: { plugins: { title: { display: true, text } } } }) }));
      expect(res.status, await res.clone().text()).to.equal(200);
      expect(isPng(await bytes(res))).to.equal(true);
    });

    it('400 invalid_config: a parameter given twice', async () => {
      const e = await openError(await get('/v1/open/chart?type=bar&data=1&data=2'));
      expect(e).to.include({ status: 400, error: 'invalid_config' });
    });

    it('400 config_too_large: c over 6144 bytes', async () => {
      const c = JSON.stringify({ type: 'bar', data: { labels: ['x'.repeat(6200)], datasets: [{ data: [1] }] } });
      const e = await openError(await get(openPath({ c })));
      expect(e).to.include({ status: 400, error: 'config_too_large' });
    });

    it('400 url_too_long: a 9 KB URL reaches the app and is refused; 8 KB is not', async () => {
      const long = `/v1/open/chart?type=bar&data=1&pad=${'x'.repeat(9 * 1024)}`;
      const e = await openError(await get(long));
      expect(e).to.include({ status: 400, error: 'url_too_long' });
      const fits = `/v1/open/chart?type=bar&data=1&pad=`;
      const ok = await get(fits + 'y'.repeat(8192 - fits.length));
      expect(ok.status).to.equal(200);
    });

    it('the request target is measured as received (raw, not decoded)', async () => {
      // 3000 escaped bytes (%41 = 3 bytes each, 1 decoded): 9000+ bytes as received
      const target = `/v1/open/chart?type=bar&data=1&pad=${'%41'.repeat(3000)}`;
      const status = await new Promise<number>((resolve, reject) => {
        const u = new URL(s.url);
        const req = httpRequest({ host: u.hostname, port: u.port, path: target }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).to.equal(400);
    });

    it('500 render_failed when the renderer crashes; 503 when no page is free in time', async () => {
      // Real faults: the one page's renderer process is frozen while a render holds it, a second
      // request waits for a page until ACQUIRE_TIMEOUT_MS (or is refused early), then the frozen
      // renderer is killed under the first.
      const crashedBefore = s.deps.pool.stats().pagesCrashed ?? 0;
      const frozen = await freezeRenderers(s);
      try {
        const crashing = get(openPath({ type: 'bar', data: '9,9,1' }));
        await frozen.lent();
        const busy = await get(openPath({ type: 'bar', data: '9,9,3' }));
        expect(busy.headers.get('retry-after')).to.match(/^\d+$/);
        expect(await openError(busy)).to.include({ status: 503, error: 'service_unavailable' });
        frozen.kill();
        expect(await openError(await crashing)).to.include({ status: 500, error: 'render_failed' });
        expect((s.deps.pool.stats().pagesCrashed ?? 0) - crashedBefore, 'pages the pool saw crash').to.be.at.least(1);
      } finally {
        frozen.kill();
      }
      await poolIdle(() => s.deps.pool.stats()); // the killed page is replaced
      // a failed render is not cached: the same URL renders now
      const again = await get(openPath({ type: 'bar', data: '9,9,1' }));
      expect(again.status).to.equal(200);
      expect(again.headers.get('x-cache-tier')).to.equal('miss');
    });

    it('refused requests never reach the renderer', async () => {
      const before = renders();
      await get(openPath({ c: JSON.stringify({ ...CHART, plugins: [] }) }));
      await get(openPath({ c: '{"type":' }));
      await get(openPath({ type: 'bar', data: '1', w: 0 }));
      expect(renders()).to.equal(before);
    });
  });

  describe('/playground', () => {
    it('serves the page with a strict CSP, and its script and stylesheet', async () => {
      const res = await get('/playground?c=%7B%7D');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).to.include("script-src 'self'");
      expect(csp).to.include("default-src 'none'");
      expect(csp).to.include("connect-src 'self'");
      const html = await res.text();
      expect(html).to.include('<textarea id="config"');
      expect(html).not.to.match(/https?:\/\//); // no external resource
      const js = await get('/playground/playground.js');
      expect(js.status).to.equal(200);
      expect(js.headers.get('content-type')).to.match(/javascript/);
      expect(await js.text()).to.include('/v1/open/chart?');
      const css = await get('/playground/playground.css');
      expect(css.headers.get('content-type')).to.match(/^text\/css/);
    });
  });
});
