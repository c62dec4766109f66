// A/B of two checkouts of chartshot side by side in one run: did a change cost CPU or speed?
//
//   node --import tsx bench/ab.ts <checkout A> <checkout B> [rounds]
//
// Each checkout must be built (npm run build there). Per round, A then B (then B then A next
// round, so neither always goes first), each server started fresh from its own checkout on its
// own data folder: the honest bench's corpus (bench/honest/corpus.ts) at 4 in flight, a 100x100
// bar at 1 in flight, a 100,000-point line at 1 in flight. Every request is a cache miss (a nonce
// in the config). Reports renders/s, p50 and CPU ms per render split by process (server,
// browser, renderers), and the B/A ratios. The load generator is this process, in both sides.
// Prints a markdown table; nothing is written. Quote it with the load average it prints.
//
//   AB_ENV_A='POOL_SIZE=3 X=y', AB_ENV_B=...: extra environment for that side's server (one
//   checkout can then be set against itself with another setting); AB_WARM=n: n warm-up renders
//   of the corpus per round instead of 480 (more pages need more to warm: each page's V8 warms
//   on its own renders); AB_ONLY=corpus|bar|line: that workload alone.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { loadSamples } from './lib.js';
import { posts, barBody, xyLine } from './compare.js';
import { envSpec, withCheckoutServer } from './server.js';
import { generateCorpus } from './honest/corpus.js';
import { cpuSnapshot, splitDelta, type Split } from './honest/procs.js';
import type { Body } from './corpus/gen.js';

const [dirA, dirB] = [process.argv[2], process.argv[3]].map((d) => (d ? resolve(d) : ''));
if (!dirA || !dirB) {
  console.error('usage: node --import tsx bench/ab.ts <checkout A> <checkout B> [rounds]');
  process.exit(2);
}
const ROUNDS = Number(process.argv[4] ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 18090);

interface Workload { name: string; bodies: Body[]; concurrency: number; warm: number; total: number }
const WORKLOADS: Workload[] = [
  // warm-ups long enough for V8 to have optimised the server's and the pages' code (Node's CPU
  // per render falls by half over the first ~1,000 renders)
  { name: 'corpus, 4 in flight', bodies: generateCorpus().map((e) => e.body), concurrency: 4, warm: Number(process.env.AB_WARM ?? 480), total: 240 },
  { name: '100x100 bar, 1 in flight', bodies: [barBody('bar', 100, 100)], concurrency: 1, warm: 500, total: 200 },
  { name: '100,000-point line, 1 in flight', bodies: [xyLine(100000)], concurrency: 1, warm: 2, total: 8 },
];

if (process.env.AB_ONLY) WORKLOADS.splice(0, WORKLOADS.length, ...WORKLOADS.filter((w) => w.name.includes(process.env.AB_ONLY!)));

type Row = { perSecond: number[]; p50: number[]; cpu: Split[] };
const results = new Map<string, Row>();
/** AB_ENV_A / AB_ENV_B: 'K=v K2=v2' */
const sideEnv = (side: 'A' | 'B'): Record<string, string> => envSpec(process.env[`AB_ENV_${side}`]);
const row = (key: string) => results.get(key) ?? (results.set(key, { perSecond: [], p50: [], cpu: [] }), results.get(key)!);

async function measure(side: 'A' | 'B', dir: string): Promise<void> {
  await withCheckoutServer(dir, PORT, sideEnv(side), [], async (server, apiKey) => {
    const base = `http://127.0.0.1:${PORT}`;
    for (const w of WORKLOADS) {
      const next = posts(w.bodies, { 'content-type': 'application/json', 'x-api-key': apiKey });
      await loadSamples(base, w.concurrency, w.warm, next);
      const before = cpuSnapshot({ server: server.pid!, loadGenerator: process.pid });
      const sum = (await loadSamples(base, w.concurrency, w.total, next)).result;
      const d = splitDelta(before, cpuSnapshot({ server: server.pid!, loadGenerator: process.pid }));
      if (sum.errors) throw new Error(`${side} ${w.name}: ${sum.errors} errors ${JSON.stringify(sum.statuses)}`);
      const r = row(`${w.name}|${side}`);
      r.perSecond.push(sum.perSecond);
      r.p50.push(sum.p50Ms);
      r.cpu.push(Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v / w.total])) as Split);
    }
  });
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const r1 = (x: number) => Math.round(x * 10) / 10;
const startLoad = loadavg().map(r1);
for (let i = 0; i < ROUNDS; i++) {
  const order: Array<['A' | 'B', string]> = i % 2 === 0 ? [['A', dirA], ['B', dirB]] : [['B', dirB], ['A', dirA]];
  for (const [side, dir] of order) await measure(side, dir);
  console.error(`round ${i + 1} of ${ROUNDS} done`);
}

const cpuCell = (r: Row) => {
  const m = (k: keyof Split) => r1(median(r.cpu.map((c) => c[k])));
  return `${r1(median(r.cpu.map((c) => c['node server'] + c['browser process'] + c.renderers + c['gpu/utility'])))} (node ${m('node server')}, browser ${m('browser process')}, renderers ${m('renderers')})`;
};
console.log(`A: ${dirA} ${process.env.AB_ENV_A ?? ''}\nB: ${dirB} ${process.env.AB_ENV_B ?? ''}\n${ROUNDS} rounds, medians; load average ${startLoad.join(', ')} at start, ${loadavg().map(r1).join(', ')} at end\n`);
console.log('| workload | A renders/s | B renders/s | A p50 ms | B p50 ms | A CPU ms/render | B CPU ms/render | B/A CPU |');
console.log('|---|---|---|---|---|---|---|---|');
for (const w of WORKLOADS) {
  const a = row(`${w.name}|A`);
  const b = row(`${w.name}|B`);
  const cpu = (r: Row) => median(r.cpu.map((c) => c['node server'] + c['browser process'] + c.renderers + c['gpu/utility']));
  console.log(`| ${w.name} | ${r1(median(a.perSecond))} | ${r1(median(b.perSecond))} | ${r1(median(a.p50))} | ${r1(median(b.p50))} | ${cpuCell(a)} | ${cpuCell(b)} | ${(cpu(b) / cpu(a)).toFixed(2)} |`);
}
