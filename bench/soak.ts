// npm run soak: does memory stay flat under steady load? The real server (bench/soak-serve.mjs:
// `chartshot serve` plus a GC on request over IPC) takes the honest bench's generated corpus
// (bench/honest/corpus.ts, each request unique) at 4 in flight for an hour; every 30 s it records
// Node's heap after a full collection, Node's RSS and the RSS (and PSS, which counts shared pages
// once) of Chromium's whole process tree from /proc, one JSON line each, and ends with a verdict:
// flat when no figure's median over the last third after the warm-up is more than 10% above its
// median over the first third.
// Settings: SOAK_SECONDS (3600), SOAK_INTERVAL_SECONDS (30), SOAK_WARMUP_SECONDS (300, at most a
// quarter of the run), SOAK_IN_FLIGHT (4), SOAK_OUT (bench/soak-samples.jsonl), SOAK_CHECKOUT
// (another built checkout to soak, e.g. an older commit), BENCH_PORT (18070), BENCH_SEED,
// BENCH_NO_BUILD=1.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RawConnection, requestHead } from './rawhttp.js';
import { posts } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { DEFAULT_SEED, generateCorpus } from './honest/corpus.js';

const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const SECONDS = num('SOAK_SECONDS', 3600);
const INTERVAL_S = num('SOAK_INTERVAL_SECONDS', 30);
const WARMUP_S = Math.min(num('SOAK_WARMUP_SECONDS', 300), SECONDS / 4);
const IN_FLIGHT = num('SOAK_IN_FLIGHT', 4);
const OUT = resolve(process.env.SOAK_OUT ?? 'bench/soak-samples.jsonl');
const CHECKOUT = resolve(process.env.SOAK_CHECKOUT ?? '.');
const PORT = num('BENCH_PORT', 18070);
const SEED = num('BENCH_SEED', DEFAULT_SEED);
const FLAT_WITHIN = 0.1;
const MB = 1024 * 1024;

interface Sample {
  /** seconds since the load started */
  t: number;
  renders: number;
  errors: number;
  rendersPerSecond: number;
  heapAfterGcMb: number;
  externalAfterGcMb: number;
  heapLimitMb: number;
  nodeRssMb: number;
  chromiumRssMb: number;
  /** null where smaps_rollup cannot be read */
  chromiumPssMb: number | null;
  chromiumProcesses: number;
  loadAverage: number;
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** kB fields of a /proc file ("VmRSS:  1234 kB"), or null when it cannot be read. */
function kb(path: string, field: string): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(path, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The server's own RSS, and its descendants' (Chromium's whole tree) RSS and PSS, MB. */
function treeMemory(serverPid: number): { nodeRssMb: number; chromiumRssMb: number; chromiumPssMb: number | null; chromiumProcesses: number } {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      /* ended while we looked */
    }
  }
  let rss = 0;
  let pss: number | null = 0;
  let n = 0;
  const stack = [...(children.get(serverPid) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    stack.push(...(children.get(pid) ?? []));
    const r = kb(`/proc/${pid}/status`, 'VmRSS');
    if (r === null) continue; // gone, or a zombie
    n++;
    rss += r;
    const p = kb(`/proc/${pid}/smaps_rollup`, 'Pss');
    pss = pss === null || p === null ? null : pss + p;
  }
  return { nodeRssMb: r1((kb(`/proc/${serverPid}/status`, 'VmRSS') ?? 0) / 1024), chromiumRssMb: r1(rss / 1024), chromiumPssMb: pss === null ? null : r1(pss / 1024), chromiumProcesses: n };
}

/** Node's memory after a full collection, asked of the server over IPC. */
function nodeMemory(server: ChildProcess): Promise<{ heapUsed: number; external: number; heapLimit: number }> {
  const id = Math.random();
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => done(new Error('the server did not answer the memory request in 60 s')), 60_000);
    const onMessage = (m: { id?: number; heapUsed: number; external: number; heapLimit: number }) => {
      if (m?.id === id) done(null, m);
    };
    const done = (err: Error | null, m?: { heapUsed: number; external: number; heapLimit: number }) => {
      clearTimeout(timer);
      server.off('message', onMessage);
      if (err) reject(err);
      else resolvePromise(m!);
    };
    server.on('message', onMessage);
    server.send({ type: 'memory', id });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Trend {
  first: number;
  last: number;
  /** last / first - 1 */
  change: number;
}

/** A figure's median over the first and the last third of the samples after the warm-up. */
function trend(samples: Sample[], warmupS: number, pick: (s: Sample) => number | null): Trend | null {
  const xs = samples.filter((s) => s.t >= warmupS).map(pick).filter((x): x is number => x !== null);
  if (xs.length < 3) return null;
  const third = Math.floor(xs.length / 3);
  const first = median(xs.slice(0, third));
  const last = median(xs.slice(xs.length - third));
  return { first: r1(first), last: r1(last), change: first > 0 ? last / first - 1 : 0 };
}

const FIGURES: Array<[string, (s: Sample) => number | null]> = [
  ['Node heap after GC', (s) => s.heapAfterGcMb],
  ['Node RSS', (s) => s.nodeRssMb],
  ['Chromium RSS', (s) => s.chromiumRssMb],
  ['Chromium PSS', (s) => s.chromiumPssMb],
];

/** The verdict line: flat when no figure grew by more than FLAT_WITHIN after the warm-up. */
function verdict(samples: Sample[], warmupS: number): string {
  const parts: string[] = [];
  let flat = true;
  for (const [name, pick] of FIGURES) {
    const t = trend(samples, warmupS, pick);
    if (!t) continue;
    if (t.change > FLAT_WITHIN) flat = false;
    parts.push(`${name} ${t.first} -> ${t.last} MB (${t.change >= 0 ? '+' : ''}${(t.change * 100).toFixed(1)}%)`);
  }
  if (parts.length === 0) return `verdict: none (too few samples after the ${warmupS} s warm-up)`;
  return `verdict: ${flat ? 'FLAT' : 'GROWING'} (within ${FLAT_WITHIN * 100}% after the ${warmupS} s warm-up, medians of the first and last third): ${parts.join('; ')}`;
}

async function main() {
  if (process.env.BENCH_NO_BUILD !== '1') execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const base = `http://127.0.0.1:${PORT}`;
  const bodies = generateCorpus(SEED).map((e) => e.body);
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-soak-'));
  const here = process.cwd();
  process.chdir(CHECKOUT); // the checkout's own CLI makes the account
  let server: ChildProcess;
  let apiKey: string;
  try {
    apiKey = benchAccount(dataDir).api_key;
    server = await startServer(dataDir, PORT, {}, ['--expose-gc'], [join(here, 'bench/soak-serve.mjs'), CHECKOUT], true);
  } finally {
    process.chdir(here);
  }
  writeFileSync(OUT, '');
  console.log(`soak: ${SECONDS} s of the corpus (${bodies.length} configs, seed ${SEED}) at ${IN_FLIGHT} in flight against ${CHECKOUT}, POOL_SIZE ${cpus().length}; a sample every ${INTERVAL_S} s to ${OUT}`);
  console.log('    t  renders   r/s  heap-after-GC  node-RSS  chromium-RSS  chromium-PSS  procs  load');

  const make = posts(bodies, { 'x-api-key': apiKey });
  let renders = 0;
  let errors = 0;
  let stop = false;
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const worker = async () => {
    const conn = new RawConnection('127.0.0.1', PORT);
    let i = 0;
    while (!stop) {
      const r = make(i++);
      try {
        const res = await conn.send(requestHead(r.method, r.path, `127.0.0.1:${PORT}`, r.headers ?? {}, r.body), r.body);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 400) errors++;
        else renders++;
      } catch {
        errors++;
        statuses.error = (statuses.error ?? 0) + 1;
      }
    }
    conn.close();
  };
  const load = Array.from({ length: IN_FLIGHT }, worker);

  const samples: Sample[] = [];
  let lastRenders = 0;
  let lastT = 0;
  const sample = async () => {
    const m = await nodeMemory(server);
    const t = (performance.now() - started) / 1000;
    const tree = treeMemory(server.pid!);
    const s: Sample = {
      t: Math.round(t),
      renders,
      errors,
      rendersPerSecond: r1((renders - lastRenders) / Math.max(1e-9, t - lastT)),
      heapAfterGcMb: r1(m.heapUsed / MB),
      externalAfterGcMb: r1(m.external / MB),
      heapLimitMb: Math.round(m.heapLimit / MB),
      ...tree,
      loadAverage: r1(loadavg()[0]!),
    };
    lastRenders = renders;
    lastT = t;
    samples.push(s);
    appendFileSync(OUT, JSON.stringify(s) + '\n');
    const pad = (x: unknown, n: number) => String(x).padStart(n);
    console.log(`${pad(s.t, 5)} ${pad(s.renders, 8)} ${pad(s.rendersPerSecond, 5)} ${pad(s.heapAfterGcMb, 14)} ${pad(s.nodeRssMb, 9)} ${pad(s.chromiumRssMb, 13)} ${pad(s.chromiumPssMb ?? '-', 13)} ${pad(s.chromiumProcesses, 6)} ${pad(s.loadAverage, 5)}`);
  };
  try {
    await sample();
    for (let next = INTERVAL_S; next <= SECONDS; next += INTERVAL_S) {
      const wait = started + next * 1000 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await sample();
    }
  } finally {
    stop = true;
    await Promise.all(load);
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`renders ${renders}, errors ${errors}, statuses ${JSON.stringify(statuses)}`);
  console.log(verdict(samples, WARMUP_S));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
