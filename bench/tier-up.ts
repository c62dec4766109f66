// How fast a freshly started server warms up, two checkouts side by side: a fresh server per
// run, then blocks of requests, each block's p50 and CPU per render by process. Runs A, B, B, A
// (TIER_RUNS pairs), so neither side always goes first; the table averages each side's runs.
//
//   node --import tsx bench/tier-up.ts <checkout A> <checkout B>
//
// Each checkout must be built. TIER_WORKLOAD=bar (a 100x100 bar at 1 in flight, the default) or
// corpus (the honest corpus at 4 in flight); TIER_BLOCK (500) requests a block, TIER_BLOCKS (10);
// TIER_RUNS (2) runs of each side; AB_ENV_A / AB_ENV_B extra server environment as in ab.ts;
// TIER_NODE_ARGS_A / TIER_NODE_ARGS_B: Node flags for that side's server (V8's, e.g.).
// Results of 2026-11-27: bench/tier-up-2026-11-27.md.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { loadSamples } from './lib.js';
import { posts, barBody } from './compare.js';
import { envSpec, withCheckoutServer } from './server.js';
import { generateCorpus } from './honest/corpus.js';
import { cpuSnapshot, perRender, splitDelta } from './honest/procs.js';

const dirs = { A: resolve(process.argv[2] ?? ''), B: resolve(process.argv[3] ?? '') };
if (!process.argv[2] || !process.argv[3]) {
  console.error('usage: node --import tsx bench/tier-up.ts <checkout A> <checkout B>');
  process.exit(2);
}
const CORPUS = process.env.TIER_WORKLOAD === 'corpus';
const BLOCK = Number(process.env.TIER_BLOCK ?? 500);
const BLOCKS = Number(process.env.TIER_BLOCKS ?? 10);
const RUNS = Number(process.env.TIER_RUNS ?? 2);
const PORT = Number(process.env.BENCH_PORT ?? 18092);
const bodies = CORPUS ? generateCorpus().map((e) => e.body) : [barBody('bar', 100, 100)];
const conc = CORPUS ? 4 : 1;
const r2 = (x: number) => Math.round(x * 100) / 100;
const sideEnv = (side: 'A' | 'B'): Record<string, string> => envSpec(process.env[`AB_ENV_${side}`]);

type Block = { p50: number; node: number; browser: number; renderers: number };
const results: Record<'A' | 'B', Block[][]> = { A: [], B: [] };

async function run(side: 'A' | 'B'): Promise<void> {
  const nodeArgs = (process.env[`TIER_NODE_ARGS_${side}`] ?? '').split(/\s+/).filter(Boolean);
  await withCheckoutServer(dirs[side], PORT, sideEnv(side), nodeArgs, async (server, apiKey) => {
    const make = posts(bodies, { 'x-api-key': apiKey });
    const roots = { server: server.pid!, loadGenerator: process.pid };
    const blocks: Block[] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const before = cpuSnapshot(roots);
      const s = await loadSamples(`http://127.0.0.1:${PORT}`, conc, BLOCK, make);
      const cpu = perRender(splitDelta(before, cpuSnapshot(roots)), BLOCK);
      blocks.push({ p50: s.result.p50Ms, node: cpu['node server']!, browser: cpu['browser process']!, renderers: cpu.renderers! });
    }
    results[side].push(blocks);
  });
}

const load0 = loadavg().map(r2);
for (let k = 0; k < RUNS; k++) for (const side of k % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) await run(side);
const mean = (side: 'A' | 'B', b: number, f: keyof Block) => r2(results[side].reduce((s, run) => s + run[b]![f], 0) / results[side].length);
console.log(`\n${CORPUS ? 'corpus, 4 in flight' : '100x100 bar, 1 in flight'}; A = ${dirs.A}${process.env.AB_ENV_A ? ` (${process.env.AB_ENV_A})` : ''}, B = ${dirs.B}${process.env.AB_ENV_B ? ` (${process.env.AB_ENV_B})` : ''}${process.env.TIER_NODE_ARGS_B ? ` (node ${process.env.TIER_NODE_ARGS_B})` : ''}; ${RUNS} fresh servers each, means; load average ${load0.join(', ')} at start, ${loadavg().map(r2).join(', ')} at end\n`);
console.log('| requests | A p50 ms | B p50 ms | A CPU ms/render (node, browser, renderers) | B CPU ms/render (node, browser, renderers) | B/A CPU |');
console.log('|---|---|---|---|---|---|');
for (let b = 0; b < BLOCKS; b++) {
  const cpu = (side: 'A' | 'B') => r2(mean(side, b, 'node') + mean(side, b, 'browser') + mean(side, b, 'renderers'));
  const split = (side: 'A' | 'B') => `${cpu(side)} (${mean(side, b, 'node')}, ${mean(side, b, 'browser')}, ${mean(side, b, 'renderers')})`;
  console.log(`| ${b * BLOCK + 1}-${(b + 1) * BLOCK} | ${mean('A', b, 'p50')} | ${mean('B', b, 'p50')} | ${split('A')} | ${split('B')} | ${r2(cpu('B') / cpu('A'))} |`);
}
