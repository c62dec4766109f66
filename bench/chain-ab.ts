// The Node server's own CPU per request of the render routes, without Chromium: two built
// checkouts side by side (A then B, then B then A...), each started by bench/stub-serve.mjs (the
// real server with a stub renderer answering a fixed 4 KB PNG), every request a cache miss.
// Reports the server process's CPU µs per request from /proc (user + system), per route and
// concurrency, and B/A. The chain, services and store are all that differ between A and B here.
//   node --import tsx bench/chain-ab.ts <checkout A> <checkout B> [rounds] [requests]
// STUB_DELAY_MS=14: the stub answers after 14 ms, so each request finds Node idle as at a real
// render's pace (the chain costs about three times what it costs back to back:
// bench/host-amd-2026-11-27.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import http from 'node:http';
import { loadSamples, request } from './lib.js';
import { barBody } from './compare.js';
import { benchAccount } from './server.js';

const [dirA, dirB] = [process.argv[2], process.argv[3]].map((d) => (d ? resolve(d) : ''));
if (!dirA || !dirB) {
  console.error('usage: node --import tsx bench/chain-ab.ts <checkout A> <checkout B> [rounds] [requests]');
  process.exit(2);
}
const ROUNDS = Number(process.argv[4] ?? 3);
const N = Number(process.argv[5] ?? 2000);
const PORT = Number(process.env.BENCH_PORT ?? 18190);
const BASE = `http://127.0.0.1:${PORT}`;
const TICK_MS = 10; // CLK_TCK 100

const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const p = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(p[11]) + Number(p[12])) * TICK_MS;
};

type Make = (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> };
const bar = barBody('bar', 100, 100);
const chartText = JSON.stringify(bar.chart);
let nonce = Date.now();
const withNonce = () => `{"benchNonce":${nonce++},` + chartText.slice(1);
const WORKLOADS: Array<{ name: string; concurrency: number; make: (key: string) => Make }> = [
  { name: 'POST /v1/chart', concurrency: 1, make: (key) => () => ({ method: 'POST', path: '/v1/chart', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: `{"chart":${withNonce()},"width":100,"height":100,"backgroundColor":"white"}` }) },
  { name: 'POST /v1/chart', concurrency: 4, make: (key) => () => ({ method: 'POST', path: '/v1/chart', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: `{"chart":${withNonce()},"width":100,"height":100,"backgroundColor":"white"}` }) },
  { name: 'GET /v1/chart', concurrency: 1, make: (key) => () => ({ method: 'GET', path: `/v1/chart?chart=${encodeURIComponent(withNonce())}&width=100&height=100`, headers: { 'x-api-key': key } }) },
  { name: 'GET /v1/open/chart', concurrency: 1, make: () => () => ({ method: 'GET', path: `/v1/open/chart?c=${encodeURIComponent(withNonce())}&w=100&h=100` }) },
  { name: 'GET /chart (QuickChart)', concurrency: 1, make: (key) => () => ({ method: 'GET', path: `/chart?c=${encodeURIComponent(withNonce())}&w=100&h=100&key=${key}` }) },
];

function startStub(dir: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn('node', [join(dirB, 'bench/stub-serve.mjs'), dir], {
    cwd: dir,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', POOL_SIZE: '2', PUBLIC_BASE_URL: BASE, OPEN_RENDERS_PER_HOUR: '1000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return (async () => {
    const deadline = Date.now() + 60000;
    for (;;) {
      if (child.exitCode !== null) throw new Error('stub server exited during start');
      const agent = new http.Agent();
      const up = await request(agent, BASE, 'GET', '/v1/status').then((r) => r.status > 0, () => false);
      agent.destroy();
      if (up) return child;
      if (Date.now() > deadline) throw new Error('stub server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
}

const results = new Map<string, number[]>();
async function measure(side: 'A' | 'B', dir: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chain-ab-'));
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const acct = benchAccount(dataDir);
    const server = await startStub(dir, dataDir);
    try {
      for (const w of WORKLOADS) {
        const make = w.make(acct.api_key);
        await loadSamples(BASE, w.concurrency, Math.max(300, N / 4), make);
        const before = cpuMs(server.pid!);
        const r = (await loadSamples(BASE, w.concurrency, N, make)).result;
        const used = cpuMs(server.pid!) - before;
        if (r.errors) throw new Error(`${side} ${w.name}: ${r.errors} errors ${JSON.stringify(r.statuses)}`);
        const k = `${w.name} c${w.concurrency}|${side}`;
        results.set(k, [...(results.get(k) ?? []), (used * 1000) / N]);
      }
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
  } finally {
    process.chdir(cwd);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const startLoad = loadavg().map(r1);
for (let i = 0; i < ROUNDS; i++) {
  const order: Array<['A' | 'B', string]> = i % 2 === 0 ? [['A', dirA], ['B', dirB]] : [['B', dirB], ['A', dirA]];
  for (const [side, dir] of order) await measure(side, dir);
  console.error(`round ${i + 1} of ${ROUNDS} done`);
}
console.log(`A = ${dirA}, B = ${dirB}; ${ROUNDS} rounds of ${N} requests; load average ${startLoad.join(', ')} at start, ${loadavg().map(r1).join(', ')} at end`);
console.log('\n| route, in flight | A µs/request (rounds) | B µs/request (rounds) | B/A (medians) |\n|---|---|---|---|');
for (const w of WORKLOADS) {
  const k = `${w.name} c${w.concurrency}`;
  const a = results.get(`${k}|A`)!;
  const b = results.get(`${k}|B`)!;
  console.log(`| ${w.name}, ${w.concurrency} | ${r1(median(a))} (${a.map(r1).join(', ')}) | ${r1(median(b))} (${b.map(r1).join(', ')}) | ${(median(b) / median(a)).toFixed(2)} |`);
}
