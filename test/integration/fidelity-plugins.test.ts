// Fidelity of the Chart.js 4 chart-type plugins: one example per chart type, drawn by chartshot
// and by plain Chart.js 4.6.1 on a plain <canvas> in the same Chromium with only that plugin's
// vendored build loaded (plus the date-fns adapter the financial charts need). The oracle page
// applies, written out here, the settings renderer-page/plugins4.js gives every chart: a word
// cloud seed of 0 (a browser page's first chart), the force-directed layout run to rest at once,
// and Math.random seeded (mulberry32) at each chart. Set PLUGIN_PNG_DIR to keep the images.
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, differingPixels, inkedPixels } from '../helpers/images.js';
import { PLUGIN_EXAMPLES } from '../helpers/pluginExamples.js';
import { FidelityOracle } from '../helpers/oracle.js';

/**
 * The oracle's own copy of the page's settings (see the header), and a geo config written as a
 * browser page writes it: GeoJSON features made with ChartGeo.topojson from the same topology
 * files, loaded as data (a browser would fetch them).
 */
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
  window.oraclePrepare = function (cfg) {
    var geo = window.ChartGeo, texts = window.ChartshotTopologies;
    if (geo && texts) {
      var topos = {};
      Object.keys(texts).forEach(function (k) { topos[k] = JSON.parse(texts[k]); });
      cfg.data.datasets.forEach(function (ds) {
        if (typeof ds.outline === 'string') {
          var parts = ds.outline.split(':'), topo = topos[parts[0]];
          ds.outline = geo.topojson.feature(topo, topo.objects[parts[1]]).features[0];
        }
        if (typeof ds.topology === 'string') {
          var t = topos[ds.topology];
          var all = geo.topojson.feature(t, t.objects[ds.topology.indexOf('us-atlas') === 0 ? 'states' : 'countries']).features;
          ds.data = ds.data.map(function (d) {
            return Object.assign({}, d, { feature: all.find(function (f) { return f.properties.name === d.feature || f.id === d.feature; }) });
          });
          delete ds.topology;
        }
      });
    }
    window.reseed();
  };
})();`;

describe('fidelity of the Chart.js 4 chart-type plugins with plain Chart.js pages', function () {
  this.timeout(180000);
  let s: TestServer;
  let oracle: FidelityOracle;
  const dumpDir = process.env.PLUGIN_PNG_DIR;

  before(async () => {
    s = await startTestServer({ poolSize: 1 });
    oracle = await FidelityOracle.launch();
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  });
  after(async () => {
    await oracle?.close();
    await s?.stop();
  });

  /** Plain Chart.js 4.6.1 with only this plugin's build (and the date-fns adapter; geo: the topologies too), after 4 frames. */
  async function reference(bundle: string, chart: Record<string, unknown>, width: number, height: number): Promise<Buffer> {
    const scripts = ['chart.umd.js', 'chartjs-adapter-date-fns.js', bundle, ...(bundle === 'chartjs-chart-geo.js' ? ['topologies.js'] : [])];
    return oracle.draw(await oracle.page(scripts, ORACLE_SETTINGS), chart, { width, height, background: '#ffffff', frames: 4 });
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
      expect([ref.width, ref.height], 'the oracle\'s size').to.deep.equal([width, height]);
      const differing = differingPixels(ours, ref);
      expect(differing, `${differing} pixels differ`).to.equal(0);
      // the chart drew something of its own (not a blank or a refusal)
      expect(inkedPixels(ours), 'pixels drawn').to.be.greaterThan(ex.minInk ?? 2000);
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
