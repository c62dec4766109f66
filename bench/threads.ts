// CPU per render by Chromium thread name: renders the honest corpus N times on a checkout's
// Renderer (pool of 2, 2 in flight) and sums /proc/<pid>/task/<tid>/stat over every Chromium
// process, by process kind (browser, renderer, gpu/utility) and thread name, and this Node
// process's CPU per render (the pool, the CDP calls). For judging a Chromium flag (add it to
// launchArgs in src/render/browser.ts, npm run build) or a harness change without HTTP:
//
//   node --import tsx bench/threads.ts <checkout> [renders]
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateCorpus } from './honest/corpus.js';

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
const TICK_MS = 10;

function children(): Map<number, number> {
  const parent = new Map<number, number>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const st = readFileSync(`/proc/${p}/stat`, 'utf8');
      parent.set(Number(p), Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  return parent;
}
function snapshot(): Map<string, number> {
  const parent = children();
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, pp] of parent) if (!tree.has(p) && tree.has(pp)) { tree.add(p); grew = true; }
  }
  const out = new Map<string, number>();
  for (const p of tree) {
    let kind = 'browser';
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      const m = /--type=([a-z-]+)/.exec(cmd);
      if (m) kind = m[1] === 'renderer' ? 'renderer' : m[1]!;
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const st = readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8');
        const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')).replace(/[0-9]+$/, '#');
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        const ms = (Number(f[11]) + Number(f[12])) * TICK_MS;
        const key = `${kind} ${name}`;
        out.set(key, (out.get(key) ?? 0) + ms);
      }
    } catch { /* gone */ }
  }
  return out;
}
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
const before = snapshot();
const t0 = Date.now();
const cpu0 = process.cpuUsage();
await Promise.all([loop(N), loop(N)]);
const wall = Date.now() - t0;
const after = snapshot();
const cpu = process.cpuUsage(cpu0);
await r.close();
const rows = [...after].map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / N] as const).filter(([, v]) => v > 0.05).sort((a, b) => b[1] - a[1]);
const total = rows.reduce((s, [, v]) => s + v, 0);
console.log(`${N} renders, ${(wall / N).toFixed(2)} ms wall each; this Node process ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms CPU each; CPU ms per render by thread (10 ms ticks): total ${total.toFixed(2)}`);
for (const [k, v] of rows) console.log(`  ${v.toFixed(2).padStart(6)}  ${k}`);
