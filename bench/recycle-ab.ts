// What page recycling costs: two servers side by side, one per PAGE_MAX_RENDERS value (LIMITS,
// default 2000,20000), the honest corpus at 4 in flight in alternating blocks of W renders (960),
// CPU per render by process from /proc; the mean leaves out the first block (both cold). Both
// servers live for the whole run, so each block also pays the other's idle Chromium.
//
//   [LIMITS=2000,20000] [BLOCKS=12] [W=960] node --import tsx bench/recycle-ab.ts   (after npm run build)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSamples } from './lib.js';
import { posts } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { generateCorpus, DEFAULT_SEED } from './honest/corpus.js';
import { cpuSnapshot, splitDelta, perRender } from './honest/procs.js';
const corpus = generateCorpus(DEFAULT_SEED);
const limits = (process.env.LIMITS ?? '2000,20000').split(',');
const W = Number(process.env.W ?? 960);
const sides: Array<{ lim: string; dataDir: string; server: Awaited<ReturnType<typeof startServer>>; base: string; make: ReturnType<typeof posts>; tot: { cpu: number; n: number } }> = [];
for (const [i, lim] of limits.entries()) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cs-rab-'));
  const acct = benchAccount(dataDir);
  const port = 18100 + i;
  const server = await startServer(dataDir, port, { PAGE_MAX_RENDERS: lim }, []);
  sides.push({ lim, dataDir, server, base: `http://127.0.0.1:${port}`, make: posts(corpus.map((c) => c.body), { 'x-api-key': acct.api_key }), tot: { cpu: 0, n: 0 } });
}
for (let k = 0; k < Number(process.env.BLOCKS ?? 12); k++) {
  const line: string[] = [];
  for (const s of k % 2 ? [...sides].reverse() : sides) {
    const before = cpuSnapshot({ server: s.server.pid!, loadGenerator: process.pid });
    const r = await loadSamples(s.base, 4, W, s.make);
    const p = perRender(splitDelta(before, cpuSnapshot({ server: s.server.pid!, loadGenerator: process.pid })), W);
    const tot = p['chartshot side (server + Chromium + load generator)']!;
    if (k > 0) { s.tot.cpu += tot; s.tot.n++; }
    line.push(`${s.lim}: ${r.result.perSecond}/s ${tot} ms (node ${p['node server']} br ${p['browser process']} rend ${p.renderers})`);
  }
  console.log(`${(k + 1) * W}: ${line.join(' | ')}`);
}
for (const s of sides) console.log(`${s.lim}: mean total CPU per render over blocks 2-: ${(s.tot.cpu / s.tot.n).toFixed(2)} ms`);
for (const s of sides) { await stopServer(s.server); rmSync(s.dataDir, { recursive: true, force: true }); }
