// Does pinning Chromium's processes to cores shorten a small chart's trip on this VM? Each hop of
// a render (Node -> browser -> renderer and back) wakes a thread; one woken on the other, idle
// vCPU costs the hypervisor a wake-up. This runs the real server (2 pages) and, in alternating
// blocks at 1 in flight, a 100x100 bar with:
//   free:             no pinning (what the service does);
//   renderers split:  each pool page's renderer process (all its threads) on a core of its own
//                     (the two busiest renderers after the warm-up: Chromium keeps spare ones);
//   tree on core 0:   the server, the browser and every Chromium process on core 0, this load
//                     generator on core 1;
// and the honest bench's peer (bench/peer/best.mjs, unpinned) between the blocks. Then the
// honest corpus at 4 and at 1 in flight, free against renderers split. taskset (util-linux).
//   node --import tsx bench/affinity.ts [blocks]   (after npm run build; about 3 minutes)
// Results: bench/affinity-2026-11-27.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { barBody, posts } from './compare.js';
import { generateCorpus } from './honest/corpus.js';
import { loadSamples } from './lib.js';
import { Peer } from './peer.js';
import { benchAccount, startServer, stopServer } from './server.js';

const PORT = Number(process.env.BENCH_PORT ?? 18561);
const BASE = `http://127.0.0.1:${PORT}`;
const BLOCKS = Number(process.argv[2] ?? 8);

/** The pid and every descendant's. */
function tree(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
      const list = kids.get(ppid) ?? [];
      list.push(Number(d));
      kids.set(ppid, list);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    const p = todo.pop()!;
    out.push(p);
    todo.push(...(kids.get(p) ?? []));
  }
  return out;
}
const isRenderer = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
};
/** utime + stime in clock ticks. */
const ticks = (pid: number) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
};
/** Every thread of pid on `cpus`. */
const pinTo = (pid: number, cpus: string) => {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  } catch {
    /* gone */
  }
};

const dir = mkdtempSync(join(tmpdir(), 'affinity-'));
const acct = benchAccount(dir);
const srv = await startServer(dir, PORT);
const headers = { 'x-api-key': acct.api_key };
const bar = barBody('bar', 100, 100);
const bars = posts([bar], headers);
const corpus = posts(generateCorpus().map((e) => e.body), headers);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const r2 = (x: number) => Math.round(x * 100) / 100;

// warm-up: both pages draw bars and the corpus, so both renderers are busy ones
await loadSamples(BASE, 4, 1500, corpus);
await loadSamples(BASE, 1, 3000, bars);
const busy = tree(srv.pid!).filter(isRenderer).sort((a, b) => ticks(b) - ticks(a)).slice(0, 2);

type Mode = 'free' | 'renderers split' | 'tree on core 0';
function apply(mode: Mode) {
  for (const p of tree(srv.pid!)) {
    const i = busy.indexOf(p);
    pinTo(p, mode === 'tree on core 0' ? '0' : mode === 'renderers split' && i >= 0 ? String(i % 2) : '0-1');
  }
  pinTo(process.pid, mode === 'tree on core 0' ? '1' : '0-1');
}

const peer = await Peer.start({ worker: 'best.mjs', env: { PEER_MODE: 'plain' } });
const json = [JSON.stringify(bar)];
await peer.run(json, 1, 1000);
const barP50: Record<string, number[]> = {};
for (let k = 0; k < BLOCKS; k++) {
  for (const mode of ['free', 'renderers split', 'tree on core 0'] as Mode[]) {
    apply(mode);
    (barP50[mode] ??= []).push(r2(p50((await loadSamples(BASE, 1, 300, bars)).latencies)));
  }
  apply('free');
  (barP50['peer (one process)'] ??= []).push(r2(p50((await peer.run(json, 1, 300)).latencies)));
}
await peer.stop();

const perSecond: Record<string, number[]> = {};
for (const concurrency of [4, 1]) {
  for (let k = 0; k < 4; k++) {
    for (const mode of ['free', 'renderers split'] as Mode[]) {
      apply(mode);
      const t = performance.now();
      const res = await loadSamples(BASE, concurrency, 480, corpus);
      if (res.result.errors) throw new Error(`${res.result.errors} errors`);
      (perSecond[`${mode}, ${concurrency} in flight`] ??= []).push(Math.round(480 / ((performance.now() - t) / 1000)));
    }
  }
}
apply('free');
await stopServer(srv);
rmSync(dir, { recursive: true, force: true });

console.log(`100x100 bar at 1 in flight, p50 ms of each block of 300 (${BLOCKS} alternations):`);
for (const [mode, xs] of Object.entries(barP50)) console.log(`  ${mode}: ${xs.join(' ')}  median ${r2(p50(xs))}`);
console.log('honest corpus, renders/s of each block of 480:');
for (const [mode, xs] of Object.entries(perSecond)) console.log(`  ${mode}: ${xs.join(' ')}  median ${p50(xs)}`);
