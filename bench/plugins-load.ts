// Cost of the Chart.js 4 chart-type plugins on the page: pool warm-up (browser launch, harness
// load, two warm-up renders per page) and each page's JS heap, with and without the plugin
// bundles in harness.html. Run: node --import tsx bench/plugins-load.ts [rounds]
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Renderer } from '../src/render/renderer.js';
import { defaultHarnessDir } from '../src/render/harness.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';

const rounds = Number(process.argv[2] ?? 3);
const plain = mkdtempSync(join(tmpdir(), 'chartshot-noplugins-'));
cpSync(defaultHarnessDir(), plain, { recursive: true });
const html = readFileSync(join(plain, 'harness.html'), 'utf8').replace(/<script src="(vendor\/chartjs-chart-[^"]+|vendor\/topologies\.js|plugins4\.js|geo4\.js)"><\/script>\n/g, '');
writeFileSync(join(plain, 'harness.html'), html);

async function once(harnessDir: string | undefined): Promise<{ startMs: number; heapMb: number; loadMs: number; scriptMs: number }> {
  const pool = new Renderer(
    { chromiumPath: loadConfig({}).chromiumPath, size: 2, renderTimeoutMs: 10000, acquireTimeoutMs: 10000, maxQueue: 10, pageMaxRenders: 1000, harnessDir },
    createLogger('silent'),
  );
  const t0 = performance.now();
  await pool.start();
  const startMs = performance.now() - t0;
  const pages = [...pool.livePages()];
  const heaps = await Promise.all(pages.map(async (rp) => (await rp.page.metrics()).JSHeapUsedSize ?? 0));
  // a page reset (a harness load on a warm page), sequentially: the cost each reset pays
  const loads: number[] = [];
  const scripts: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    await pages[0]!.load(15000, true);
    loads.push(performance.now() - t);
    // the document's own share: parsing and running its inlined scripts
    scripts.push(await (pages[0] as unknown as { page: { evaluate(f: () => number): Promise<number> } }).page.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return n.domContentLoadedEventStart - n.responseEnd;
    }));
  }
  await pool.close();
  return { startMs, heapMb: heaps.reduce((a, b) => a + b, 0) / heaps.length / 1048576, loadMs: median(loads), scriptMs: median(scripts) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: Record<string, Array<{ startMs: number; heapMb: number; loadMs: number; scriptMs: number }>> = { without: [], with: [] };
for (let i = 0; i < rounds; i++) {
  results.without!.push(await once(plain));
  results.with!.push(await once(undefined));
}
rmSync(plain, { recursive: true, force: true });
for (const [k, rs] of Object.entries(results)) {
  console.log(`${k} plugins: pool of 2 warm in ${median(rs.map((r) => r.startMs)).toFixed(0)} ms (median of ${rs.length}: ${rs.map((r) => r.startMs.toFixed(0)).join(', ')}); JS heap per page ${median(rs.map((r) => r.heapMb)).toFixed(1)} MB; harness reload p50 ${median(rs.map((r) => r.loadMs)).toFixed(1)} ms (per round: ${rs.map((r) => r.loadMs.toFixed(1)).join(', ')}), of which parsing and running its scripts ${median(rs.map((r) => r.scriptMs)).toFixed(1)} ms`);
}
