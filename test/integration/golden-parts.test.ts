// The chart part boxes the page measures for golden tests (renderer-page/harness/parts.js):
// from Chart.js's own layout on the Chart.js 2, 3 and 4 pages, PNG and SVG, in output pixels;
// only when a render asks for them; never anything but numbers, whatever caller code did; through
// a server in the X-Chartshot-Parts header when asked.
import { expect } from 'chai';
import { Renderer, type PageRequest } from '../../src/render/renderer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { Chartshot } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, post } from '../helpers/client.js';

const chart = (extra: Record<string, unknown> = {}) => ({
  type: 'bar',
  data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'one', data: [3, 5, 2] }, { label: 'two', data: [1, 2, 4] }] },
  ...extra,
});
const V4 = chart({ options: { plugins: { title: { display: true, text: 'Title' }, subtitle: { display: true, text: 'Sub' } }, scales: { y1: { position: 'right' } } } });
const V3 = chart({ options: { plugins: { title: { display: true, text: 'Title' } } } });
const V2 = chart({ options: { title: { display: true, text: 'Title' } } });

describe('chart part boxes for golden tests (Chart.js 2, 3 and 4)', function () {
  this.timeout(300_000);
  let pool: Renderer;
  before(async () => {
    pool = new Renderer({ chromiumPath: loadConfig({}).chromiumPath, size: 1, renderTimeoutMs: 20_000, acquireTimeoutMs: 120_000, maxQueue: 50, pageMaxRenders: 1000 }, createLogger('silent'));
    await pool.start();
  });
  after(() => pool.close());
  const req = (config: Record<string, unknown>, chartjs: 2 | 3 | 4, over: Partial<PageRequest> = {}): PageRequest => ({
    config,
    width: 600,
    height: 300,
    format: 'png',
    backgroundColor: '#fff',
    allowFunctions: true,
    watermark: null,
    chartjs,
    parts: true,
    ...over,
  });
  const inside = (b: { x: number; y: number; width: number; height: number }, w: number, h: number) => b.x >= 0 && b.y >= 0 && b.x + b.width <= w && b.y + b.height <= h && b.width > 0 && b.height > 0;

  it('Chart.js 4: title, subtitle, legend, chartArea and every scale by id, stacked top to bottom as drawn', async () => {
    const r = await pool.render(req(V4, 4));
    const p = r.parts!;
    expect(Object.keys(p).sort()).to.deep.equal(['chartArea', 'legend', 'subtitle', 'title', 'x', 'y', 'y1']);
    for (const b of Object.values(p)) expect(inside(b, 600, 300), JSON.stringify(b)).to.equal(true);
    expect(p.title!.y).to.be.below(p.subtitle!.y);
    expect(p.subtitle!.y).to.be.below(p.legend!.y);
    expect(p.legend!.y + p.legend!.height).to.be.at.most(p.chartArea!.y + 1);
    expect(p.y!.x + p.y!.width).to.be.at.most(p.chartArea!.x + 1);
    expect(p.y1!.x).to.be.at.least(p.chartArea!.x + p.chartArea!.width - 1);
    expect(p.x!.y).to.be.at.least(p.chartArea!.y + p.chartArea!.height - 1);
  });

  it('a render that does not ask gets no boxes; a hidden legend or title is no part; boxes scale by the device pixel ratio', async () => {
    expect((await pool.render(req(V4, 4, { parts: undefined }))).parts).to.equal(undefined);
    const hidden = chart({ options: { plugins: { legend: { display: false } } } });
    expect(Object.keys((await pool.render(req(hidden, 4))).parts!).sort()).to.deep.equal(['chartArea', 'x', 'y']);
    const one = (await pool.render(req(V4, 4))).parts!;
    const two = (await pool.render(req(V4, 4, { devicePixelRatio: 2 }))).parts!;
    expect(two.chartArea!.x).to.be.within(one.chartArea!.x * 2 - 1, one.chartArea!.x * 2 + 1);
    expect(two.chartArea!.width).to.be.within(one.chartArea!.width * 2 - 2, one.chartArea!.width * 2 + 2);
  });

  it('Chart.js 3 and 2: the same names from their layouts (2: its scales as the page names them)', async () => {
    const p3 = (await pool.render(req(V3, 3))).parts!;
    expect(Object.keys(p3).sort()).to.deep.equal(['chartArea', 'legend', 'title', 'x', 'y']);
    const p2 = (await pool.render(req(V2, 2))).parts!;
    expect(p2).to.have.property('chartArea');
    expect(p2).to.have.property('legend');
    expect(Object.keys(p2).length).to.be.at.least(4);
    for (const b of [...Object.values(p3), ...Object.values(p2)]) expect(inside(b, 600, 300)).to.equal(true);
  });

  it('SVG renders measure the same boxes as PNG', async () => {
    const png = (await pool.render(req(V4, 4))).parts;
    const svg = (await pool.render(req(V4, 4, { format: 'svg' }))).parts;
    expect(svg).to.deep.equal(png);
  });

  it('caller code that replaces the layout objects leaves only numbers: a part made of anything else is dropped', async () => {
    // a plugin swaps chartArea for getters that throw and the legend for strings after drawing
    const hostile = chart({
      plugins: [
        {
          id: 'swap',
          afterDraw: "function (c) { Object.defineProperty(c, 'chartArea', { get: function () { throw new Error('no'); } }); c.legend.left = 'x'; c.legend.top = { valueOf: function () { return 5; } }; }",
        },
      ],
    });
    const r = await pool.render(req(hostile, 4));
    expect(r.ok).to.equal(true);
    const p = r.parts!;
    expect(p).not.to.have.property('chartArea');
    expect(p).not.to.have.property('legend');
    // a throwing part stops only itself: the scales after it are still measured
    expect(Object.keys(p).sort()).to.deep.equal(['x', 'y']);
    for (const b of Object.values(p)) for (const v of Object.values(b)) expect(v).to.be.a('number');
  });
});

describe('chart part boxes through a server (X-Chartshot-Parts)', function () {
  this.timeout(300_000);
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startTestServer({ poolSize: 1 });
    key = (await s.account('enterprise')).api_key;
  });
  after(() => s.stop());

  it('POST /v1/chart answers the boxes in a header when asked, the same the page measures offline; not asked, no header', async () => {
    const body = { chart: V4, width: 600, height: 300, backgroundColor: 'white' };
    const plain = await post(s.url, '/v1/chart', body, apiKey(key));
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('x-chartshot-parts')).to.equal(null);
    const asked = await post(s.url, '/v1/chart', body, { ...apiKey(key), 'x-chartshot-parts': '1' });
    expect(asked.status).to.equal(200);
    const parts = JSON.parse(asked.headers.get('x-chartshot-parts')!) as Record<string, unknown>;
    expect(Object.keys(parts).sort()).to.deep.equal(['chartArea', 'legend', 'subtitle', 'title', 'x', 'y', 'y1']);
    // the same image either way, and the typed client reads the boxes
    expect((await bytes(asked)).equals(await bytes(plain))).to.equal(true);
    const viaClient = await new Chartshot({ baseUrl: s.url, apiKey: key }).render(body, { parts: true });
    expect(viaClient.parts).to.deep.equal(parts);
  });
});
