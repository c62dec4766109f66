// npm run load: a mixed load at 4x the pool size against the real server on loopback; errors by
// status, p50/p99 per kind, RSS every 5 s, into bench/load-results.json. LOAD_SECONDS=10 npm run load
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { percentile, request, treeRssMb } from './lib.js';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const PORT = Number(process.env.LOAD_PORT ?? 18090);
const BASE = `http://127.0.0.1:${PORT}`;
const POOL = cpus().length;
const WORKERS = POOL * 4;

function cli(dataDir: string, args: string[]): string {
  return execFileSync('node', ['dist/cli.js', ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
}

async function waitUp(child: ChildProcess): Promise<void> {
  const agent = new http.Agent();
  const deadline = Date.now() + 60000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited');
    try {
      await request(agent, BASE, 'GET', '/v1/status');
      agent.destroy();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const chart = (i: number, type = 'bar') => ({
  type,
  data: { labels: ['A', 'B', 'C', 'D', 'E'], datasets: [{ label: `Series ${i % 97}`, data: [3, 7, 4, (i * 13) % 10, 5] }] },
});

type Kind = 'render' | 'shortHit' | 'openHit' | 'openMiss' | 'create' | 'zapier';

// The mix: direct renders, short-chart cache hits, the open endpoint with hits and misses,
// short-chart creation, automation; LOAD_SECONDS defaults to 60.
async function main() {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-load-'));
  const acct = JSON.parse(cli(dataDir, ['accounts', 'create', '--plan', 'enterprise', '--json'])) as { api_key: string; account_id: string };
  cli(dataDir, ['billing', 'set-limits', '--account', acct.account_id, '--per-minute', '10000000', '--per-hour', '1000000000', '--burst', '10000000']);
  const server = spawn('node', ['--no-memory-reducer', 'dist/cli.js', 'serve'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', POOL_SIZE: String(POOL), TRUST_PROXY: 'true', PUBLIC_BASE_URL: BASE },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const json = { 'content-type': 'application/json', 'x-api-key': acct.api_key };
  const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS });
  const lat: Record<Kind, number[]> = { render: [], shortHit: [], openHit: [], openMiss: [], create: [], zapier: [] };
  const statuses: Record<string, number> = {};
  const unexpected: string[] = [];
  const rss: number[] = [];
  try {
    await waitUp(server);
    // Short charts to hit, and open URLs to hit.
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await request(agent, BASE, 'POST', '/v1/chart/create', JSON.stringify({ chart: chart(i), width: 400, height: 200 }), json);
      ids.push(new URL((JSON.parse(r.body.toString()) as { url: string }).url).pathname);
    }
    const openHot = Array.from({ length: 10 }, (_, i) => `/v1/open/chart?c=${encodeURIComponent(JSON.stringify(chart(i, 'line')))}`);
    let n = 0;
    const pick = (i: number): { kind: Kind; method: string; path: string; body?: string; headers?: Record<string, string> } => {
      const r = i % 20;
      const ip = { 'x-forwarded-for': `10.${(i >> 8) & 255}.${i & 255}.${r}` };
      if (r < 8) return { kind: 'render', method: 'POST', path: '/v1/chart', body: JSON.stringify({ chart: chart(i), width: 600, height: 300 }), headers: json };
      if (r < 13) return { kind: 'shortHit', method: 'GET', path: ids[i % ids.length]! };
      if (r < 15) return { kind: 'openHit', method: 'GET', path: openHot[i % openHot.length]!, headers: ip };
      if (r < 17) return { kind: 'openMiss', method: 'GET', path: `/v1/open/chart?type=bar&data=${i % 50},${(i * 7) % 30},5&labels=a,b,c&w=${300 + (i % 200)}`, headers: ip };
      if (r < 19) return { kind: 'create', method: 'POST', path: '/v1/chart/create', body: JSON.stringify({ chart: chart(i + 100000), width: 500, height: 250 }), headers: json };
      return { kind: 'zapier', method: 'POST', path: '/v1/zapier/bar-chart', body: JSON.stringify({ title: `Load ${i}`, labels: 'a,b,c', values: `${i % 9},2,3` }), headers: json };
    };
    const end = Date.now() + SECONDS * 1000;
    const sampler = setInterval(() => rss.push(treeRssMb(server.pid!)), 5000);
    rss.push(treeRssMb(server.pid!));
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (Date.now() < end) {
          const i = n++;
          const q = pick(i);
          const t = performance.now();
          try {
            const res = await request(agent, BASE, q.method, q.path, q.body, q.headers);
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            if (res.status >= 400 && res.status !== 429 && res.status !== 503) unexpected.push(`${q.kind} ${res.status} ${res.body.toString().slice(0, 120)}`);
          } catch (err) {
            statuses.error = (statuses.error ?? 0) + 1;
            unexpected.push(`${q.kind} ${(err as Error).message}`);
          }
          lat[q.kind].push(performance.now() - t);
        }
      }),
    );
    clearInterval(sampler);
    rss.push(treeRssMb(server.pid!));
    const total = Object.values(statuses).reduce((a, b) => a + b, 0);
    const kinds = Object.fromEntries(
      (Object.keys(lat) as Kind[]).map((k) => {
        const s = lat[k].sort((a, b) => a - b);
        return [k, { requests: s.length, p50Ms: Math.round(percentile(s, 50) * 10) / 10, p99Ms: Math.round(percentile(s, 99) * 10) / 10 }];
      }),
    );
    const all = Object.values(lat).flat().sort((a, b) => a - b);
    const afterWarm = rss[1] ?? rss[0]!;
    const result = {
      date: new Date().toISOString(),
      seconds: SECONDS,
      workers: WORKERS,
      poolSize: POOL,
      requests: total,
      perSecond: Math.round(total / SECONDS),
      statuses,
      unexpectedErrors: unexpected.length,
      firstUnexpected: unexpected.slice(0, 5),
      p99Ms: Math.round(percentile(all, 99)),
      kinds,
      rssMb: rss,
      rssGrowthAfterFirstSamplePercent: Math.round(((rss.at(-1)! - afterWarm) / afterWarm) * 1000) / 10,
    };
    writeFileSync('bench/load-results.json', JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result, null, 2));
    if (unexpected.length) process.exitCode = 1;
  } finally {
    agent.destroy();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
