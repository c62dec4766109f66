// Where the Node server's CPU goes per render (issue 27, the Node side): the server started with
// Node's --cpu-prof, a load of POST /v1/chart (every request a cache miss), the server stopped
// with SIGTERM so the profile is written, then the top self-time functions summed by name.
//   node --import tsx bench/node-profile.ts [bar|corpus] [renders]   (after npm run build)
// Prints the top 40 self-time entries and the server's CPU ms per render from /proc.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSamples } from './lib.js';
import { posts, barBody } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { generateCorpus } from './honest/corpus.js';
import { cpuSnapshot, splitDelta } from './honest/procs.js';

const kind = process.argv[2] ?? 'bar';
const total = Number(process.argv[3] ?? 1000);
const PORT = Number(process.env.BENCH_PORT ?? 18095);
const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-nprof-'));
const profDir = mkdtempSync(join(tmpdir(), 'chartshot-nprof-out-'));
const acct = benchAccount(dataDir);
const server = await startServer(dataDir, PORT, {}, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
const bodies = kind === 'bar' ? [barBody('bar', 100, 100)] : generateCorpus().map((e) => e.body);
const conc = kind === 'bar' ? 1 : 4;
const next = posts(bodies, { 'content-type': 'application/json', 'x-api-key': acct.api_key });
const base = `http://127.0.0.1:${PORT}`;
await loadSamples(base, conc, 50, next);
const t0 = Number(process.hrtime.bigint() / 1000n);
const before = cpuSnapshot({ server: server.pid!, loadGenerator: process.pid });
const r = (await loadSamples(base, conc, total, next)).result;
const d = splitDelta(before, cpuSnapshot({ server: server.pid!, loadGenerator: process.pid }));
const t1 = Number(process.hrtime.bigint() / 1000n);
await stopServer(server);
console.log(`${kind}: ${r.perSecond}/s p50 ${r.p50Ms} ms errors ${r.errors}; server CPU ${(d['node server'] / total).toFixed(2)} ms/render`);

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile written');
const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
// only the load window: V8's profile clock and process.hrtime are both CLOCK_MONOTONIC
let ts = prof.startTime;
for (let i = 0; i < prof.samples.length; i++) {
  ts += prof.timeDeltas[i] ?? 0;
  if (ts < t0 || ts > t1) continue;
  const n = byId.get(prof.samples[i])!;
  const f = n.callFrame;
  const k = `${f.functionName || '(anon)'} ${f.url.replace(/^.*node_modules\//, 'nm/').replace(/^.*\/(dist|src)\//, '$1/')}:${f.lineNumber + 1}`;
  self.set(k, (self.get(k) ?? 0) + (prof.timeDeltas[i] ?? 0));
}
const all = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0);
console.log(`busy samples ${((all - idle) / 1000).toFixed(0)} ms of ${(all / 1000).toFixed(0)} ms`);
for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 45)) {
  console.log(`${((v / (all - idle)) * 100).toFixed(1).padStart(5)}%  ${k}`);
}
rmSync(dataDir, { recursive: true, force: true });
console.log(`profile: ${join(profDir, file)} window ${t0} ${t1}`);
