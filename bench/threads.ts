// CPU per render by Chromium thread name: renders the honest corpus N times on a checkout's
// Renderer (pool of 2, 2 in flight) and sums /proc/<pid>/task/<tid>/stat over every Chromium
// process, by process kind (browser, renderer, other chromium) and thread name (threads-http.ts's
// threadSnapshot), and this Node process's CPU per render (the pool, the CDP calls). For judging a Chromium flag (add it to
// launchArgs in src/render/browser.ts, npm run build) or a harness change without HTTP:
//
//   node --import tsx bench/threads.ts <checkout> [renders]
import { join, resolve } from 'node:path';
import { generateCorpus } from './honest/corpus.js';
import { perRenderBetween, threadSnapshot } from './threads-http.js';

const dir = resolve(process.argv[2] ?? '.');
const N = Number(process.argv[3] ?? 480);
const { Renderer } = (await import(join(dir, 'dist/render/renderer.js'))) as typeof import('../src/render/renderer.js');
const { loadConfig } = (await import(join(dir, 'dist/config.js'))) as typeof import('../src/config.js');
const { createLogger } = (await import(join(dir, 'dist/log.js'))) as typeof import('../src/log.js');
const cfg = loadConfig({});
const r = new Renderer(
  { chromiumPath: cfg.chromiumPath, size: 2, renderTimeoutMs: 20000, acquireTimeoutMs: 60000, maxQueue: 100, pageMaxRenders: 100000, harnessDir: join(dir, 'renderer-page') },
  createLogger('silent'),
);
await r.start();
const root = r.currentLaunch()!.pid!;
const corpus = generateCorpus().map((e) => e.body as { chart: Record<string, unknown>; width: number; height: number; backgroundColor: string });
let i = 0;
async function loop(n: number): Promise<void> {
  while (i < n) {
    const b = corpus[i++ % corpus.length]!;
    await r.render({ config: b.chart, width: b.width, height: b.height, backgroundColor: b.backgroundColor, allowFunctions: true, format: 'png', watermark: null } as never);
  }
}
await Promise.all([loop(96), loop(96)]);
i = 0;
const before = threadSnapshot(root, null).cpu;
const t0 = Date.now();
const cpu0 = process.cpuUsage();
await Promise.all([loop(N), loop(N)]);
const wall = Date.now() - t0;
const after = threadSnapshot(root, null).cpu;
const cpu = process.cpuUsage(cpu0);
await r.close();
const rows = perRenderBetween(before, after, N, 0.05);
const total = rows.reduce((s, [, v]) => s + v, 0);
console.log(`${N} renders, ${(wall / N).toFixed(2)} ms wall each; this Node process ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms CPU each; CPU ms per render by thread (10 ms ticks): total ${total.toFixed(2)}`);
for (const [k, v] of rows) console.log(`  ${v.toFixed(2).padStart(6)}  ${k}`);
