// A destroyed chart dies young. Chart.js 3 and 4 build contexts on contexts (Object.create), so
// V8 makes maps for them in the old generation, and those maps kept each chart reachable through
// every young collection until a full one: every chart was promoted (162 KB a render of a
// 100x100 bar, 4-5 MB per scavenge at 13-20 ms each, then a full collection every few scavenges
// that dropped and recompiled the optimised code of ~70 functions). The harness empties the
// contexts other contexts are built on once the chart is destroyed (chart-life.js dispose).
// Measured with V8's sampling heap profiler on the real page: the bytes allocated by renders
// that a young collection did not free.
import { expect } from 'chai';
import type { CDPSession } from 'puppeteer-core';
import { createLogger } from '../../src/log.js';
import { Renderer, type PageRequest } from '../../src/render/renderer.js';
import { loadConfig } from '../../src/config.js';

const labels = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
const data = [12, 19, 3, 5, 2, 9, 14, 7];
const CONFIGS: Array<Record<string, unknown>> = [
  { type: 'bar', data: { labels, datasets: [{ label: 'Sales', data, backgroundColor: '#3B82F6' }, { label: 'Cost', data: data.map((v) => v / 2) }] } },
  { type: 'line', data: { labels, datasets: [{ label: 'Signal', data, borderColor: '#10B981' }] }, options: { plugins: { title: { display: true, text: 'T' } } } },
  { type: 'doughnut', data: { labels, datasets: [{ data }] } },
  { type: 'radar', data: { labels, datasets: [{ label: 'R', data }] } },
];

const request = (config: Record<string, unknown>): PageRequest => ({
  config,
  width: 240,
  height: 160,
  format: 'png',
  backgroundColor: 'white',
  allowFunctions: false,
  watermark: null,
});

interface SamplingNode {
  selfSize: number;
  children: SamplingNode[];
}

const totalSize = (n: SamplingNode): number => n.children.reduce((sum, c) => sum + totalSize(c), n.selfSize);

describe('a destroyed chart dies young', function () {
  this.timeout(120000);
  let pool: Renderer;
  let cdp: CDPSession;

  before(async () => {
    const c = loadConfig({ LOG_LEVEL: 'silent' });
    pool = new Renderer({ chromiumPath: c.chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 20000, maxQueue: 10, pageMaxRenders: 100000 }, createLogger('silent'));
    await pool.start();
    for (let i = 0; i < 40; i++) await pool.render(request(CONFIGS[i % CONFIGS.length]!));
    const [page] = [...pool.livePages()];
    cdp = await page!.page.createCDPSession();
  });

  after(async () => {
    await cdp?.detach().catch(() => {});
    await pool?.close();
  });

  it('what renders allocate and a young collection does not free: a few KB a render, not the chart (162 KB before)', async () => {
    const renders = 400;
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
    for (let i = 0; i < renders; i++) {
      const out = await pool.render(request(CONFIGS[i % CONFIGS.length]!));
      expect(out.data.length).to.be.greaterThan(100);
    }
    const { profile } = await cdp.send('HeapProfiler.stopSampling');
    const perRender = totalSize(profile.head as SamplingNode) / renders;
    if (process.env.DEBUG_GARBAGE) console.log("bytes a render", Math.round(perRender));
    expect(perRender).to.be.below(40 * 1024);
  });

  it("emptying the contexts never calls caller code's setters: a context with a setter that never returns still renders", async () => {
    const trap = `function (chart) {
      var targets = [chart.getContext(), chart.scales.y.getContext(), chart.getDatasetMeta(0).controller.getContext()];
      for (var i = 0; i < targets.length; i++) {
        Object.defineProperty(targets[i], 'trap', { enumerable: true, configurable: true, get: function () { return 1; }, set: function () { for (;;) {} } });
      }
    }`;
    const config = { ...CONFIGS[0]!, plugins: [{ id: 'trap', afterDraw: trap }] };
    const out = await pool.render({ ...request(config), allowFunctions: true });
    expect(out.data.length).to.be.greaterThan(100);
    // and the page goes on drawing
    const next = await pool.render(request(CONFIGS[1]!));
    expect(next.data.length).to.be.greaterThan(100);
  });

  it('a chart whose lists caller code made 2^32-1 long is not walked to the end', async () => {
    const huge = `function (chart) { var a = []; a.length = 4294967295; chart._metasets = a; var s = {}; for (var i = 0; i < 50000; i++) s['k' + i] = null; chart.scales = s; }`;
    const out = await pool.render({ ...request({ ...CONFIGS[0]!, plugins: [{ id: 'huge', afterDraw: huge }] }), allowFunctions: true });
    expect(out.data.length).to.be.greaterThan(100);
  });
});
