// Keyless POST /chart/create (QUICKCHART_ANONYMOUS): keyless /chart's rules, its image kept in
// the open cache under a digest id (same config, same URL), 404 once evicted; keyless /qr.
import { expect } from 'chai';
import { post, startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, isPng } from '../helpers/images.js';

const BAR = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2] }] } };
const FN = "{type:'bar',data:{datasets:[]},options:{plugins:{title:{text:function(){return 1}}}}}";
const KEYLESS_URL = /\/chart\/render\/(o[A-Za-z0-9_-]{43})$/;

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const get = async (s: TestServer, path: string): Promise<Answer> => answer(await fetch(`${s.url}${path}`));
const create = async (s: TestServer, body: unknown): Promise<Answer> => answer(await post(s.url, '/chart/create', body));

function created(a: Answer): string {
  expect(a.status, a.headers.get('x-quickchart-error') ?? '').to.equal(200);
  const json = JSON.parse(a.body.toString('utf8')) as { success: boolean; url: string };
  expect(json.success).to.equal(true);
  return json.url;
}

function expectErrorImage(a: Answer, status: number, message: RegExp): void {
  expect(a.status, a.headers.get('x-quickchart-error') ?? '').to.equal(status);
  expect(a.headers.get('x-quickchart-error')).to.match(message);
  expect(a.headers.get('content-type')).to.equal('image/png');
  expect(isPng(a.body)).to.equal(true);
}

describe('keyless POST /chart/create', function () {
  this.timeout(60000);
  let open: TestServer;
  let closed: TestServer;

  before(async () => {
    [open, closed] = await Promise.all([
      startTestServer({ poolSize: 1, quickchartAnonymous: true, openRendersPerHour: 2 }),
      startTestServer({ poolSize: 1 }),
    ]);
  });
  after(async () => Promise.all([open?.stop(), closed?.stop()]));

  it('answers {success, url}; the URL serves the PNG without credentials; the same config gets the same URL; eviction makes it 404', async () => {
    const body = { chart: BAR, v: '4', width: 120, height: 80, devicePixelRatio: 1 };
    const url = created(await create(open, body));
    expect(url.startsWith(`${open.config.publicBaseUrl}/chart/render/`)).to.equal(true);
    expect(url).to.match(KEYLESS_URL);
    const path = new URL(url).pathname;
    const img = await get(open, path);
    expect(img.status, img.headers.get('x-quickchart-error') ?? '').to.equal(200);
    const png = decodePng(img.body);
    expect([png.width, png.height]).to.deep.equal([120, 80]);
    // a cache hit: the same id, and no render spent (the window of 2 is checked below)
    expect(created(await create(open, body))).to.equal(url);
    // keyed and keyless ids are apart: a key holder's create of the same body is its own stored
    // chart (22 characters), and the store knows no keyless id
    const acct = await open.account('starter');
    const keyed = created(await answer(await post(open.url, '/chart/create', { ...body, key: acct.api_key })));
    expect(keyed).to.match(/\/chart\/render\/[A-Za-z0-9_-]{22}$/);
    expect((await get(open, new URL(keyed).pathname)).status).to.equal(200);
    expect((await get(open, `/v1/chart/${KEYLESS_URL.exec(url)![1]}`)).status).to.equal(404);
    // keyless charts have no variants (no stored request): refused, not ignored
    expectErrorImage(await get(open, `${path}?title=x`), 400, /API key/);
    // evicted from the open cache (what OPEN_CACHE_MAX_MB's trim does), every tier
    await open.deps.store.images.trimOpenCache(0);
    open.deps.imageCache.clearMemory();
    expectErrorImage(await get(open, path), 404, /no such chart/);
    // a keyed chart is not in the open budget: still served
    expect((await get(open, new URL(keyed).pathname)).status).to.equal(200);
  });

  it('a config with a function is the QuickChart error image (400, X-quickchart-error), no URL', async () => {
    expectErrorImage(await create(open, { chart: FN, v: '4' }), 400, /API key/);
  });

  it("counts each new image in the address's window with keyless /chart: past it, 429", async () => {
    // the first test drew one image; this one draws the second of 2
    created(await create(open, { chart: BAR, v: '4', width: 121, height: 80, devicePixelRatio: 1 }));
    const limited = await create(open, { chart: BAR, v: '4', width: 122, height: 80, devicePixelRatio: 1 });
    expectErrorImage(limited, 429, /per hour/);
    expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    // /chart shares the window
    expectErrorImage(await get(open, `/chart?w=123&h=80&v=4&c=${encodeURIComponent(JSON.stringify(BAR))}`), 429, /per hour/);
  });

  it('a well-formed keyless id that was never made is 404', async () => {
    expectErrorImage(await get(open, `/chart/render/o${'A'.repeat(43)}`), 404, /no such chart/);
  });

  it('without QUICKCHART_ANONYMOUS a keyless create is 401', async () => {
    expectErrorImage(await create(closed, { chart: BAR, v: '4' }), 401, /API key/);
  });

  it('keyless GET /qr draws a code with QUICKCHART_ANONYMOUS, and is 401 without it (CONTRACT: keyless requests on the QuickChart-compatible routes, /qr among them)', async () => {
    const qr = await get(open, '/qr?text=hello&size=21&margin=0');
    expect(qr.status, qr.headers.get('x-quickchart-error') ?? '').to.equal(200);
    expect(isPng(qr.body)).to.equal(true);
    expectErrorImage(await get(closed, '/qr?text=hello&size=21&margin=0'), 401, /API key/);
  });
});
