// Cache hits of two checkouts side by side, and a bare node:http server sending the same bytes
// and headers: wrk (2 threads, 32 connections) on GET /v1/chart/{id} (memory tier) and
// GET /v1/open/chart (a hit), with the server's CPU per hit from /proc as well as hits/s
// (CPU per hit moves less with the machine's load than hits/s).
//   node --import tsx bench/hits-ab.ts <checkout A> <checkout B> [rounds] [seconds]
// Each checkout must be built. Rounds alternate which side goes first. Prints a markdown table.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from './lib.js';
import { barBody } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { fetchOnce, wrk } from './wrk.js';

const [dirA, dirB] = [process.argv[2], process.argv[3]].map((d) => (d ? resolve(d) : ''));
if (!dirA || !dirB) {
  console.error('usage: node --import tsx bench/hits-ab.ts <checkout A> <checkout B> [rounds] [seconds]');
  process.exit(2);
}
const ROUNDS = Number(process.argv[4] ?? 3);
const SECONDS = Number(process.argv[5] ?? 4);
const PORT = Number(process.env.BENCH_PORT ?? 18070);
const BASE = `http://127.0.0.1:${PORT}`;
const TICK_MS = 10; // CLK_TCK 100 on Linux

/** utime + stime of one process, ms. */
function cpuMs(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

type Cell = { perSecond: number[]; cpuUs: number[] };
const cells = new Map<string, Cell>();
const cell = (k: string) => cells.get(k) ?? (cells.set(k, { perSecond: [], cpuUs: [] }), cells.get(k)!);

function measureWrk(key: string, url: string, pid: number): void {
  wrk(url, 1); // warm
  const before = cpuMs(pid);
  const r = wrk(url, SECONDS);
  const used = cpuMs(pid) - before;
  const c = cell(key);
  c.perSecond.push(r.perSecond);
  c.cpuUs.push((used * 1000) / (r.perSecond * SECONDS));
}

async function targets(headers: Record<string, string>): Promise<Array<[string, string]>> {
  const agent = new http.Agent({ keepAlive: true });
  const created = await request(agent, BASE, 'POST', '/v1/chart/create', JSON.stringify(barBody('bar', 800, 400)), headers);
  agent.destroy();
  if (created.status !== 201) throw new Error(`create answered ${created.status}`);
  const id = new URL((JSON.parse(created.body.toString()) as { url: string }).url).pathname;
  const openChart = JSON.stringify({ type: 'bar', data: { labels: ['A', 'B', 'C'], datasets: [{ label: 'Open', data: [3, 1, 2] }] } });
  return [
    ['GET /v1/chart/{id}', `${BASE}${id}`],
    ['GET /v1/open/chart', `${BASE}/v1/open/chart?w=500&h=300&c=${encodeURIComponent(openChart)}`],
  ];
}

const OWN = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
async function bare(name: string, url: string): Promise<void> {
  const reply = await fetchOnce(url);
  const headers = Object.fromEntries(Object.entries(reply.headers).filter(([k]) => !OWN.has(k)));
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-bare-'));
  const file = join(dir, 'reply.json');
  writeFileSync(file, JSON.stringify({ status: reply.status, headers, body: reply.body.toString('base64') }));
  const child = spawn('node', [fileURLToPath(new URL('./bare-server.mjs', import.meta.url)), file, String(PORT + 1)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((res, rej) => {
      child.stdout!.once('data', () => res());
      child.once('exit', (code) => rej(new Error(`bare server exited with ${code}`)));
    });
    const u = new URL(url);
    measureWrk(`${name}|bare`, `http://127.0.0.1:${PORT + 1}${u.pathname}${u.search}`, child.pid!);
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function side(label: 'A' | 'B', dir: string, withBare: boolean): Promise<void> {
  const cwd = process.cwd();
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-hits-'));
  process.chdir(dir);
  try {
    const acct = benchAccount(dataDir);
    const server = await startServer(dataDir, PORT);
    try {
      for (const [name, url] of await targets({ 'content-type': 'application/json', 'x-api-key': acct.api_key })) {
        const first = await fetchOnce(url);
        if (first.status !== 200) throw new Error(`${label} ${name}: ${first.status}`);
        measureWrk(`${name}|${label}`, url, server.pid!);
        if (withBare) await bare(name, url);
      }
    } finally {
      await stopServer(server);
    }
  } finally {
    process.chdir(cwd);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const r2 = (x: number) => Math.round(x * 100) / 100;
const startLoad = loadavg().map((x) => Math.round(x * 10) / 10);
for (let i = 0; i < ROUNDS; i++) {
  const order: Array<['A' | 'B', string]> = i % 2 === 0 ? [['A', dirA], ['B', dirB]] : [['B', dirB], ['A', dirA]];
  for (const [label, dir] of order) await side(label, dir, label === 'B');
  console.error(`round ${i + 1} of ${ROUNDS} done`);
}
const endLoad = loadavg().map((x) => Math.round(x * 10) / 10);
console.log(`A = ${dirA}, B = ${dirB}; ${ROUNDS} rounds, wrk -t2 -c32 ${SECONDS} s each; load average ${startLoad.join(', ')} at start, ${endLoad.join(', ')} at end\n`);
console.log('| cache hit | A hits/s | B hits/s | bare hits/s | B/A | B/bare | A CPU µs/hit | B CPU µs/hit | bare CPU µs/hit | B/A CPU |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const name of ['GET /v1/chart/{id}', 'GET /v1/open/chart']) {
  const a = cell(`${name}|A`), b = cell(`${name}|B`), x = cell(`${name}|bare`);
  const [ra, rb, rx] = [median(a.perSecond), median(b.perSecond), median(x.perSecond)];
  const [ca, cb, cx] = [median(a.cpuUs), median(b.cpuUs), median(x.cpuUs)];
  console.log(`| ${name} | ${ra} | ${rb} | ${rx} | ${r2(rb / ra)} | ${r2(rb / rx)} | ${r2(ca)} | ${r2(cb)} | ${r2(cx)} | ${r2(cb / ca)} |`);
}
