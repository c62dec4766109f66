// The real quickchart-js client against a started server: only the host changes.
import { expect } from 'chai';
import QuickChartModule from 'quickchart-js';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio, isPng } from '../helpers/images.js';

// the package's types describe a CommonJS default export; the ESM build's default is the class itself
type QuickChart = InstanceType<typeof QuickChartModule.default>;
const QuickChart = ((QuickChartModule as unknown as { default?: unknown }).default ?? QuickChartModule) as typeof QuickChartModule.default;

/** Chart.js 2 configs (horizontalBar, yAxes) are outside the client's Chart.js 4 typings. */
const config = (c: object) => c as Parameters<QuickChart['setConfig']>[0];

const V2_BAR = {
  type: 'bar',
  data: { labels: ['Q1', 'Q2', 'Q3'], datasets: [{ label: 'Users', data: [50, 60, 70], backgroundColor: '#4e79a7' }] },
};

function client(s: TestServer, key: string | undefined): QuickChart {
  const qc = new QuickChart(key);
  const { host } = new URL(s.url);
  return qc.setHost(host).setScheme('http');
}

const dims = (buf: Buffer): [number, number] => {
  expect(isPng(buf), 'a PNG').to.equal(true);
  const png = decodePng(buf);
  return [png.width, png.height];
};

describe('quickchart-js against chartshot', function () {
  let s: TestServer;
  let acct: Credentials;

  before(async function () {
    this.timeout(60000);
    s = await startTestServer({ poolSize: 1 });
    acct = await s.account('starter');
  });
  after(async () => s?.stop());

  it('toBinary POSTs /chart: its default ratio 1 gives 500x300; setDevicePixelRatio(2) gives 1000x600', async () => {
    const qc = client(s, acct.api_key).setConfig(config(V2_BAR));
    expect(dims(await qc.toBinary())).to.deep.equal([500, 300]);
    expect(dims(await qc.setDevicePixelRatio(2).toBinary())).to.deep.equal([1000, 600]);
  });

  it("getUrl's URL fetched: ratio 1 is left out of the URL, so the server's default 2 applies (as on QuickChart)", async () => {
    const url = client(s, acct.api_key).setConfig(config(V2_BAR)).setWidth(300).setHeight(200).getUrl();
    expect(url).to.include('ref=qc-js').and.include('v=2.9.4').and.not.include('devicePixelRatio');
    const res = await fetch(url);
    expect(res.status, res.headers.get('x-quickchart-error') ?? '').to.equal(200);
    expect(dims(Buffer.from(await res.arrayBuffer()))).to.deep.equal([600, 400]);
  });

  it('versions 2, 3 and 4: each draws, and a Chart.js 2-only type draws on 2 only', async () => {
    for (const v of ['2.9.4', '3.9.1', '4']) {
      const buf = await client(s, acct.api_key).setConfig(config(V2_BAR)).setVersion(v).setDevicePixelRatio(1).toBinary();
      expect(dims(buf), v).to.deep.equal([500, 300]);
    }
    const horizontal = { ...V2_BAR, type: 'horizontalBar' };
    expect(dims(await client(s, acct.api_key).setConfig(config(horizontal)).setVersion('2.9.4').toBinary())).to.deep.equal([500, 300]);
    let refused: Error | null = null;
    await client(s, acct.api_key).setConfig(config(horizontal)).setVersion('4').toBinary().catch((e: Error) => (refused = e));
    expect(refused, 'v4 has no horizontalBar').to.not.equal(null);
    expect(String(refused)).to.match(/400/);
  });

  it('SVG through toBinary', async () => {
    const buf = await client(s, acct.api_key).setConfig(config(V2_BAR)).setFormat('svg').toBinary();
    expect(buf.toString('utf8')).to.match(/^<svg/);
  });

  it('a function tick callback runs in the page (v2 and v4)', async () => {
    for (const [v, scales] of [
      ['2.9.4', { yAxes: [{ ticks: { callback: (value: number) => `${value} units` } }] }],
      ['4', { y: { ticks: { callback: (value: number) => `${value} units` } } }],
    ] as const) {
      const plain = await client(s, acct.api_key).setConfig(config(V2_BAR)).setVersion(v).setDevicePixelRatio(1).toBinary();
      const withFn = await client(s, acct.api_key).setConfig(config({ ...V2_BAR, options: { scales } })).setVersion(v).setDevicePixelRatio(1).toBinary();
      expect(dims(withFn), v).to.deep.equal([500, 300]);
      expect(diffRatio(plain, withFn), `${v}: the callback changed the labels`).to.be.greaterThan(0.001);
    }
  });

  // getShortUrl itself refuses any host but quickchart.io: its body (getPostData) is POSTed here as it would send it
  async function create(qc: QuickChart): Promise<Response> {
    return fetch(`${s.url}/chart/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(qc.getPostData()) });
  }

  it("getShortUrl's request creates a chart whose /chart/render URL serves it without a key; a missing key is refused", async () => {
    const res = await create(client(s, acct.api_key).setConfig(config(V2_BAR)).setWidth(200).setHeight(100));
    expect(res.status).to.equal(200);
    const { success, url } = (await res.json()) as { success: boolean; url: string };
    expect(success).to.equal(true);
    expect(url).to.match(/\/chart\/render\/[A-Za-z0-9_-]{22}$/);
    const img = await fetch(url.replace(s.config.publicBaseUrl, s.url));
    expect(img.status).to.equal(200);
    expect(dims(Buffer.from(await img.arrayBuffer()))).to.deep.equal([200, 100]);
    const refused = await create(client(s, undefined).setConfig(config(V2_BAR)));
    expect(refused.status).to.equal(401);
    expect(refused.headers.get('x-quickchart-error')).to.match(/API key/);
  });

  it("a JavaScript config's template overrides are applied in the page", async () => {
    const fn = { ...V2_BAR, options: { scales: { yAxes: [{ ticks: { callback: (value: number) => `${value}%` } }] } } };
    const created = await create(client(s, acct.api_key).setConfig(config(fn)).setWidth(200).setHeight(100));
    const path = new URL(((await created.json()) as { url: string }).url).pathname;
    const plain = Buffer.from(await (await fetch(`${s.url}${path}`)).arrayBuffer());
    const res = await fetch(`${s.url}${path}?title=Hello&data1=10,5,1`);
    expect(res.status, res.headers.get('x-quickchart-error') ?? '').to.equal(200);
    const variant = Buffer.from(await res.arrayBuffer());
    expect(dims(variant)).to.deep.equal([200, 100]);
    expect(diffRatio(plain, variant)).to.be.greaterThan(0.01);
  });
});
