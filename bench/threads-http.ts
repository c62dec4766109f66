// CPU per render by thread of each process over HTTP (the server's Node, Chromium's browser process and
// renderers, the load generator), from /proc/<pid>/task/<tid>/stat, plus page faults per render
// by process: which thread of which process spends what, e.g. a renderer's main thread against
// the in-page floor, V8's worker threads (ThreadPoolForeg), the IPC threads. bench/threads.ts
// does the same for a checkout's Renderer alone (no HTTP, no server).
// The server is this checkout's build (npm run build), on a data folder of its own; requests
// over HTTP from this process (bench/rawhttp.ts), in bursts of THREADS_BURST renders (default:
// all in one) with THREADS_BETWEEN between them:
//   idle (default): THREADS_GAP_MS of nothing;
//   peer: the peer (bench/peer/best.mjs) renders the same number of the same bodies at the same
//     concurrency, as in the honest bench's alternating rounds;
//   spin: two busy Node processes for THREADS_GAP_MS.
// Run: node --import tsx bench/threads-http.ts [corpus|bar] [in flight]
//   THREADS_WARM (default 2400) renders first; THREADS_N (default 2400) measured;
//   THREADS_ENV='K=V,K=V' for the server (e.g. POOL_SIZE=1).
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { loadSamples } from './lib.js';
import { barBody, posts } from './compare.js';
import { generateCorpus, DEFAULT_SEED } from './honest/corpus.js';
import { benchAccount, envSpec, startServer, stopServer } from './server.js';
import { Peer } from './peer.js';

export type Part = 'node server' | 'browser' | 'renderer' | 'other chromium' | 'load generator';

export interface ThreadSnapshot {
  /** CPU ms by "part: thread name" (the main thread marked), threads of one name summed */
  cpu: Map<string, number>;
  /** minor page faults by part */
  faults: Map<Part, number>;
}

const TICK_MS = 10; // CLK_TCK 100 on Linux

function childrenOf(): Map<number, number[]> {
  const kids = new Map<number, number[]>();
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const s = readFileSync(`/proc/${n}/stat`, 'utf8');
      const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
      const list = kids.get(ppid) ?? [];
      list.push(Number(n));
      kids.set(ppid, list);
    } catch {
      /* ended while we looked */
    }
  }
  return kids;
}

/** A process by its command line: Chromium's by --type (none: the browser process), else Node's. */
function partOf(pid: number, self: number | null): Part | null {
  if (pid === self) return 'load generator';
  let cmd: string;
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
  const type = /--type=([a-z-]+)/.exec(cmd)?.[1];
  if (type) return type === 'renderer' ? 'renderer' : 'other chromium';
  return /chrom/i.test(cmd.split('\0')[0]!) ? 'browser' : 'node server';
}

/**
 * CPU by thread and page faults of the process tree under `root` (the server, or Chromium's
 * browser process) and of `self` (this process, counted as the load generator; null: not counted).
 */
export function threadSnapshot(root: number, self: number | null = process.pid): ThreadSnapshot {
  const kids = childrenOf();
  const pids = [root];
  for (let i = 0; i < pids.length; i++) pids.push(...(kids.get(pids[i]!) ?? []));
  if (self !== null) pids.push(self);
  const cpu = new Map<string, number>();
  const faults = new Map<Part, number>();
  for (const pid of pids) {
    const part = partOf(pid, self);
    if (!part) continue;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const s = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        // thread names end in a number per instance (ThreadPoolForeg, V8 workers): summed by name
        const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')).replace(/\d+$/, '#');
        const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
        const key = `${part}: ${Number(tid) === pid ? '(main) ' : ''}${name}`;
        cpu.set(key, (cpu.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) * TICK_MS);
        faults.set(part, (faults.get(part) ?? 0) + Number(f[7]));
      } catch {
        /* ended while we looked */
      }
    }
  }
  return { cpu, faults };
}

/** ms (or faults) per render between two snapshots, largest first; threads under 0.005 ms left out. */
export function perRenderBetween<K>(a: Map<K, number>, b: Map<K, number>, renders: number, min = 0.005): [K, number][] {
  return [...b]
    .map(([k, v]) => [k, Math.round(((v - (a.get(k) ?? 0)) / renders) * 1000) / 1000] as [K, number])
    .filter(([, v]) => v >= min)
    .sort((x, y) => y[1] - x[1]);
}

async function main() {
  const [workload = 'corpus', inFlightArg = '4'] = process.argv.slice(2);
  const inFlight = Number(inFlightArg);
  const warm = Number(process.env.THREADS_WARM ?? 2400);
  const n = Number(process.env.THREADS_N ?? 2400);
  const burst = Number(process.env.THREADS_BURST ?? n);
  const between = process.env.THREADS_BETWEEN ?? 'idle';
  const gapMs = Number(process.env.THREADS_GAP_MS ?? 0);
  const port = Number(process.env.THREADS_PORT ?? 18090);
  const dir = mkdtempSync(join(tmpdir(), 'threads-'));
  const acct = benchAccount(dir);
  const server = await startServer(dir, port, envSpec(process.env.THREADS_ENV));
  const bodies = workload === 'bar' ? [barBody('bar', 100, 100)] : generateCorpus(DEFAULT_SEED).map((e) => e.body);
  const make = posts(bodies, { 'x-api-key': acct.api_key });
  const peer = between === 'peer' ? await Peer.start({ worker: 'best.mjs', env: { PEER_MODE: 'plain' } }) : null;
  const peerBodies = bodies.map((b) => JSON.stringify(b));
  let errors = 0;
  const go = async (count: number) => {
    const r = await loadSamples(`http://127.0.0.1:${port}`, inFlight, count, make);
    errors += r.result.errors;
  };
  const spinFor = async (ms: number) => {
    const code = `const end = Date.now() + ${ms}; let x = 0; while (Date.now() < end) x = Math.sqrt(x + 1);`;
    const ps = [0, 1].map(() => spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
    await Promise.all(ps.map((p) => new Promise((r) => p.once('exit', r))));
  };
  try {
    await go(warm);
    if (peer) await peer.run(peerBodies, inFlight, warm);
    const a = threadSnapshot(server.pid!);
    let wall = 0;
    for (let done = 0; done < n; done += burst) {
      if (done > 0) {
        if (peer) await peer.run(peerBodies, inFlight, Math.min(burst, n - done));
        else if (between === 'spin') await spinFor(gapMs);
        else if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
      const t = performance.now();
      await go(Math.min(burst, n - done));
      wall += performance.now() - t;
    }
    const b = threadSnapshot(server.pid!);
    const threads = perRenderBetween(a.cpu, b.cpu, n);
    const faults = perRenderBetween(a.faults, b.faults, n, 0.5);
    const byPart: Record<string, number> = {};
    for (const [k, v] of threads) {
      const part = k.slice(0, k.indexOf(':'));
      byPart[part] = Math.round(((byPart[part] ?? 0) + v) * 1000) / 1000;
    }
    console.log(`${workload} at ${inFlight} in flight, ${n} renders after ${warm} (bursts of ${burst}, ${between} between): ${(n / (wall / 1000)).toFixed(1)}/s, ${errors} errors`);
    console.log('CPU ms per render by thread:');
    for (const [k, v] of threads) console.log(`  ${v.toFixed(3).padStart(7)}  ${k}`);
    console.log('page faults per render:', faults.map(([k, v]) => `${k} ${Math.round(v)}`).join(', '));
    console.log(JSON.stringify({ workload, inFlight, renders: n, warm, burst, between, perSecond: Math.round((n / (wall / 1000)) * 10) / 10, errors, cpuMsPerRender: byPart, threads: Object.fromEntries(threads), faultsPerRender: Object.fromEntries(faults) }));
  } finally {
    await peer?.stop();
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
