// The pool path alone, A against B: a 100x100 bar (or another small chart) at 1 in flight through
// Renderer.render in this process (no HTTP), next to the in-page floor (draw + encode timed in
// the page), with CPU per render by process (this Node process, Chromium's browser process, its
// renderers). Checkouts alternate per round (A B, then B A) so neither always goes first.
//
//   node --import tsx bench/pool-split.ts <checkout A> <checkout B> [rounds] [renders]
//   KIND=doughnut SIDE=800 LABELS=2000 POOL_SIZE=2 NONCE=0 ...
//
// Each checkout must be built. Prints one line per round and side, then medians and B/A ratios.
import { mkdtempSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { barBody } from './compare.js';
import { cpuSnapshot, splitDelta } from './honest/procs.js';

const dirs = [process.argv[2], process.argv[3]].map((d) => resolve(d ?? '.'));
const ROUNDS = Number(process.argv[4] ?? 3);
const N = Number(process.argv[5] ?? 400);
const kind = (process.env.KIND ?? 'bar') as 'bar';
const size = Number(process.env.SIDE ?? 100);
const body = barBody(kind, size, size);
// LABELS=n: n quoted labels and values (a mid-size config that crosses CDP undeflated)
if (process.env.LABELS) {
  const n = Number(process.env.LABELS);
  const chart = body.chart as { data: { labels: string[]; datasets: { data: number[] }[] } };
  chart.data.labels = Array.from({ length: n }, (_, i) => `label "${i}"`);
  chart.data.datasets[0]!.data = Array.from({ length: n }, (_, i) => i % 17);
}
// every request differs, as the service's traffic does (NONCE=0: the same request every time,
// which lets Chromium reuse its compile of the CDP argument): a key Chart.js ignores
let nonce = 0;
const NONCE = process.env.NONCE !== '0';
const next = () => (NONCE ? { ...req, config: { benchNonce: nonce++, ...body.chart } } : req);
const req = { config: body.chart as Record<string, unknown>, width: size, height: size, format: 'png' as const, backgroundColor: body.backgroundColor ?? null, allowFunctions: false, watermark: null };

const med = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)]!;
};
const r2 = (x: number) => Math.round(x * 100) / 100;

interface Sample { floor: number; render: number; gap: number; node: number; browser: number; renderers: number }
const samples: Sample[][] = [[], []];

async function measure(dir: string): Promise<Sample> {
  const { loadConfig } = (await import(join(dir, 'dist/config.js'))) as typeof import('../src/config.js');
  const { createLogger } = (await import(join(dir, 'dist/log.js'))) as typeof import('../src/log.js');
  const { startPool } = (await import(join(dir, 'dist/main.js'))) as typeof import('../src/main.js');
  const config = loadConfig({ ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'ps-')), POOL_SIZE: process.env.POOL_SIZE ?? '2', LOG_LEVEL: 'silent', PAGE_MAX_RENDERS: '100000' });
  const pool = await startPool(config, createLogger('silent'));
  try {
    for (let i = 0; i < 100; i++) await pool.render(next());
    const fl: number[] = [];
    for (let i = 0; i < N / 2; i++) fl.push((await pool.floor(req, 1)).msPerRender);
    const pr: number[] = [];
    const gaps: number[] = [];
    const before = cpuSnapshot({ server: process.pid, loadGenerator: 1 });
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      const res = await pool.render(next());
      const wall = performance.now() - t;
      pr.push(wall);
      gaps.push(wall - res.ms);
    }
    const d = splitDelta(before, cpuSnapshot({ server: process.pid, loadGenerator: 1 }));
    return { floor: med(fl), render: med(pr), gap: med(gaps), node: d['node server'] / N, browser: d['browser process'] / N, renderers: d.renderers / N };
  } finally {
    await pool.close();
  }
}

console.log(`${kind} ${size}x${size}, ${N} renders a side a round; load average at start ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [0, 1] : [1, 0];
  for (const side of order) {
    const s = await measure(dirs[side]!);
    samples[side]!.push(s);
    console.log(`round ${round + 1} ${'AB'[side]}: floor p50 ${r2(s.floor)} ms, render p50 ${r2(s.render)} ms, render - in-page ms p50 ${r2(s.gap)}; CPU ms/render node ${r2(s.node)}, browser ${r2(s.browser)}, renderers ${r2(s.renderers)}`);
  }
}
const keys: (keyof Sample)[] = ['floor', 'render', 'gap', 'node', 'browser', 'renderers'];
console.log(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
console.log('| | A | B | B/A |\n|---|---|---|---|');
for (const k of keys) {
  const a = med(samples[0]!.map((s) => s[k]));
  const b = med(samples[1]!.map((s) => s[k]));
  console.log(`| ${k} (median of rounds) | ${r2(a)} | ${r2(b)} | ${(b / a).toFixed(2)} |`);
}
const tot = (s: Sample) => s.node + s.browser + s.renderers;
const ta = med(samples[0]!.map(tot));
const tb = med(samples[1]!.map(tot));
console.log(`| CPU total | ${r2(ta)} | ${r2(tb)} | ${(tb / ta).toFixed(2)} |`);
process.exit(0);
