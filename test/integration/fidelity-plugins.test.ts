// Fidelity of the Chart.js 4 chart-type plugins: one example per chart type, drawn by chartshot
// and by plain Chart.js 4.6.1 on a plain <canvas> in the same Chromium with only that plugin's
// vendored build loaded (plus the date-fns adapter the financial charts need). The oracle page
// applies, written out here, the settings renderer-page/plugins4.js gives every chart: a word
// cloud seed of 0 (a browser page's first chart), the force-directed layout run to rest at once,
// and Math.random seeded (mulberry32) at each chart. Set PLUGIN_PNG_DIR to keep the images.
import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng } from '../helpers/images.js';
import { PLUGIN_EXAMPLES } from '../helpers/pluginExamples.js';

const vendor = (f: string) => readFileSync(join('renderer-page/vendor', f), 'utf8').replace(/<\/script/gi, '<\\/script');

/** The oracle's own copy of the page's settings (see the header). */
const ORACLE_SETTINGS = `
(function () {
  var d = Chart.defaults.datasets;
  if (d.wordCloud) d.wordCloud.randomRotationSeed = 0;
  if (d.forceDirectedGraph) { d.forceDirectedGraph.simulation.initialIterations = 300; d.forceDirectedGraph.simulation.autoRestart = false; }
  var s = 0x2f6b5c1d;
  window.reseed = function () { s = 0x2f6b5c1d; };
  Math.random = function () {
    s = (s + 0x6d2b79f5) | 0;
    var t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();`;

describe('fidelity of the Chart.js 4 chart-type plugins with plain Chart.js pages', function () {
  this.timeout(180000);
  let s: TestServer;
  let lb: LaunchedBrowser;
  const oracles = new Map<string, Page>();
  const dumpDir = process.env.PLUGIN_PNG_DIR;

  before(async () => {
    s = await startTestServer({ poolSize: 1 });
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  });
  after(async () => {
    await lb?.close();
    await s?.stop();
  });

  async function oracleFor(bundle: string): Promise<Page> {
    let page = oracles.get(bundle);
    if (page) return page;
    page = await lb.browser.newPage();
    // geo: the same topology files, as data (a browser would fetch them)
    const files = ['chart.umd.js', 'chartjs-adapter-date-fns.js', bundle, ...(bundle === 'chartjs-chart-geo.js' ? ['topologies.js'] : [])];
    const scripts = files.map((f) => `<script>${vendor(f)}</script>`).join('');
    await page.setContent(`<!doctype html><html><body style="margin:0">${scripts}<script>${ORACLE_SETTINGS}</script></body></html>`);
    oracles.set(bundle, page);
    return page;
  }

  async function reference(bundle: string, chart: Record<string, unknown>, width: number, height: number): Promise<Buffer> {
    const page = await oracleFor(bundle);
    const b64 = await page.evaluate(
      async (cfgText: string, w: number, h: number) => {
        const cfg = JSON.parse(cfgText);
        cfg.options = Object.assign({}, cfg.options, { responsive: false, animation: false, devicePixelRatio: 1 });
        // a geo config as a browser page writes it: GeoJSON features made with ChartGeo.topojson
        const geo = (window as unknown as { ChartGeo?: { topojson: { feature(t: unknown, o: unknown): { features?: unknown[] } } } }).ChartGeo;
        const texts = (window as unknown as { ChartshotTopologies?: Record<string, string> }).ChartshotTopologies;
        const topos = texts && Object.fromEntries(Object.entries(texts).map(([k, v]) => [k, JSON.parse(v) as { objects: Record<string, unknown> }]));
        for (const ds of cfg.data.datasets as Array<Record<string, unknown>>) {
          if (!geo || !topos) break;
          if (typeof ds.outline === 'string') {
            const [name, object] = (ds.outline as string).split(':');
            const topo = topos[name!]!;
            ds.outline = geo.topojson.feature(topo, topo.objects[object!]).features![0];
          }
          if (typeof ds.topology === 'string') {
            const topo = topos[ds.topology]!;
            const all = geo.topojson.feature(topo, topo.objects[ds.topology.startsWith('us-atlas') ? 'states' : 'countries']).features as Array<{ id: string; properties: { name: string } }>;
            ds.data = (ds.data as Array<{ feature: string; value: number }>).map((d) => ({ ...d, feature: all.find((f) => f.properties.name === d.feature || f.id === d.feature) }));
            delete ds.topology;
          }
        }
        cfg.plugins = [
          {
            id: 'bg',
            beforeDraw(c: { ctx: CanvasRenderingContext2D; width: number; height: number }) {
              c.ctx.save();
              c.ctx.globalCompositeOperation = 'destination-over';
              c.ctx.fillStyle = '#ffffff';
              c.ctx.fillRect(0, 0, c.width, c.height);
              c.ctx.restore();
            },
          },
        ];
        const canvas = document.createElement('canvas');
        canvas.width = w;
        canvas.height = h;
        document.body.appendChild(canvas);
        const win = window as unknown as { Chart: new (c: HTMLCanvasElement, cfg: unknown) => { destroy(): void }; reseed(): void };
        win.reseed();
        const chart = new win.Chart(canvas, cfg);
        // what a browser shows once its frames have run (chartjs-chart-graph lays out on them)
        for (let i = 0; i < 4; i++) await new Promise((r) => requestAnimationFrame(r));
        const url = canvas.toDataURL('image/png');
        chart.destroy();
        canvas.remove();
        return url.slice(url.indexOf(',') + 1);
      },
      JSON.stringify(chart),
      width,
      height,
    );
    return Buffer.from(b64, 'base64');
  }

  for (const ex of PLUGIN_EXAMPLES) {
    it(`${ex.type} (${ex.bundle}): identical pixels`, async () => {
      const [width, height] = [500, 300];
      const body = (await s.deps.renderer.render({ config: structuredClone(ex.config), width, height, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null })).body;
      const refBuf = await reference(ex.bundle, ex.config, width, height);
      if (dumpDir) {
        writeFileSync(join(dumpDir, `${ex.type.replace(/\W+/g, '-')}.png`), body);
        writeFileSync(join(dumpDir, `${ex.type.replace(/\W+/g, '-')}.oracle.png`), refBuf);
      }
      const ours = decodePng(body);
      const ref = decodePng(refBuf);
      expect([ours.width, ours.height]).to.deep.equal([width, height]);
      let differing = 0;
      let inked = 0;
      for (let i = 0; i < ours.data.length; i += 4) {
        if (ours.data[i] !== ref.data[i] || ours.data[i + 1] !== ref.data[i + 1] || ours.data[i + 2] !== ref.data[i + 2] || ours.data[i + 3] !== ref.data[i + 3]) differing++;
        if (ours.data[i] !== 255 || ours.data[i + 1] !== 255 || ours.data[i + 2] !== 255) inked++;
      }
      expect(differing, `${differing} pixels differ`).to.equal(0);
      // the chart drew something of its own (not a blank or a refusal)
      expect(inked, 'pixels drawn').to.be.greaterThan(ex.minInk ?? 2000);
    });
  }

  it('a geo config naming a topology or feature the page does not have is refused, naming what it has', async () => {
    const geo = (topology: string, feature: string) => ({
      config: { type: 'choropleth', data: { datasets: [{ topology, data: [{ feature, value: 1 }] }] }, options: { scales: { projection: { axis: 'x', projection: 'equalEarth' } } } },
      width: 300, height: 200, format: 'png' as const, backgroundColor: '#ffffff', allowFunctions: false, watermark: null,
    });
    const why = async (req: ReturnType<typeof geo>) => {
      try {
        await s.deps.renderer.render(req);
      } catch (err) {
        const e = err as { status?: number; detail?: string; message: string };
        expect(e.status).to.equal(400);
        return e.detail ?? e.message;
      }
      return 'rendered';
    };
    expect(await why(geo('world-atlas/countries-110m', 'Atlantis'))).to.match(/no feature "Atlantis" in world-atlas\/countries-110m/);
    expect(await why(geo('world-atlas/countries-10m', 'France'))).to.match(/unknown topology "world-atlas\/countries-10m": one of world-atlas\/countries-110m, us-atlas\/states-10m/);
    expect(await why(geo('world-atlas/countries-110m', 'France'))).to.equal('rendered');
  });

  it('the same word cloud twice on one page: the same bytes (the seed does not follow the chart count)', async () => {
    const ex = PLUGIN_EXAMPLES.find((e) => e.type === 'wordCloud')!;
    const req = () => ({ config: structuredClone(ex.config), width: 400, height: 300, format: 'png' as const, backgroundColor: '#ffffff', allowFunctions: false, watermark: null });
    const a = (await s.deps.renderer.render(req())).body;
    const b = (await s.deps.renderer.render(req())).body;
    expect(a.equals(b)).to.equal(true);
  });
});
