// Benchmark helpers: a keep-alive HTTP client, closed-loop load at a fixed concurrency (on
// bench/rawhttp.ts's lean connections, so the load generator takes little of the server's CPU),
// percentiles, and the RSS of a process tree (server + its Chromium processes).
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { RawConnection, requestHead } from './rawhttp.js';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export function request(agent: http.Agent, base: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> {
  const u = new URL(base + path);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

export interface LoadResult {
  concurrency: number;
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Closed-loop load: `concurrency` workers, `total` requests; make(i) builds request i. */
export async function load(
  base: string,
  concurrency: number,
  total: number,
  make: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
): Promise<LoadResult> {
  return (await loadSamples(base, concurrency, total, make)).result;
}

/** A load's result and every latency it measured (ms), so rounds can be merged exactly. */
export interface Samples {
  result: LoadResult;
  latencies: number[];
}

export async function loadSamples(
  base: string,
  concurrency: number,
  total: number,
  make: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
): Promise<Samples> {
  const u = new URL(base);
  const conns = Array.from({ length: concurrency }, () => new RawConnection(u.hostname, Number(u.port)));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    conns.map(async (conn) => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const r = make(i);
        const t = performance.now();
        try {
          const res = await conn.send(requestHead(r.method, r.path, u.host, r.headers ?? {}, r.body), r.body);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status >= 400) errors++;
        } catch {
          errors++;
          statuses.error = (statuses.error ?? 0) + 1;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const c of conns) c.close();
  return { result: summarize(concurrency, latencies, seconds, errors, statuses), latencies };
}

/** The LoadResult of `latencies` (ms) measured over `seconds` at `concurrency`. */
export function summarize(concurrency: number, latencies: number[], seconds: number, errors: number, statuses: Record<string, number>): LoadResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    concurrency,
    requests: sorted.length,
    errors,
    statuses,
    seconds: round(seconds),
    perSecond: round(sorted.length / seconds, 1),
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    p99Ms: round(percentile(sorted, 99)),
  };
}

/** Resident memory (MiB) of a process and all its descendants, from /proc. */
export function treeRssMb(rootPid: number): number {
  // VmRSS in kB
  const kb = sumOverTree(rootPid, (pid) => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { ppid: Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0), value: Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) };
  });
  return round(kb / 1024, 1);
}

/** Sums `read(pid).value` over a process and all its live descendants, as /proc shows them now. */
function sumOverTree(rootPid: number, read: (pid: number) => { ppid: number; value: number }): number {
  const children = new Map<number, number[]>();
  const values = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const { ppid, value } = read(Number(name));
      values.set(Number(name), value);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      /* the process ended while we looked */
    }
  }
  let total = 0;
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop()!;
    total += values.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

let ticksPerSecond = 0;

/**
 * CPU time (ms, user + system) used so far by a process and all its live descendants, from
 * /proc/<pid>/stat. Unlike wall time, it hardly changes with what else the machine runs.
 */
export function treeCpuMs(rootPid: number): number {
  if (!ticksPerSecond) ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const ticks = sumOverTree(rootPid, (pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // after the command name (which may hold spaces and parentheses): state ppid ... utime stime
    // cutime cstime; the last two hold the children it has reaped, so a renderer that exited
    // between two samples (a recycled page) still counts and the sum never goes down
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), value: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  });
  return (ticks * 1000) / ticksPerSecond;
}
