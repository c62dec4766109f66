// Memory per page and per pool, to size a deployment's requests and limits: the server
// (dist/cli.js serve, SQLite) with POOL_SIZE 1, 2 and 4, the bench corpus (its callbacks
// included) at two requests in flight per page for a while, the RSS of Node and all its
// Chromium processes sampled every two seconds as PSS (what a container's cgroup is charged;
// summed RSS counts Chromium's shared pages once per process). Prints, per pool size, PSS idle
// after start, its median and peak under load (summed RSS beside), and the slope per page.
//   node --import tsx bench/pool-memory.ts            # POOL_SIZES=1,2,4 MEMORY_SECONDS=60
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { corpus } from './corpus/corpus.js';
import { percentile, request, treeRssMb } from './lib.js';
import { freePort } from '../test/helpers/services.js';

const ROOT = join(import.meta.dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SIZES = (process.env.POOL_SIZES ?? '1,2,4').split(',').map(Number);
const SECONDS = Number(process.env.MEMORY_SECONDS ?? 60);

/** Proportional set size (MiB) of a process tree: shared pages split between the processes
 *  that share them, so unlike summed RSS it adds up to what a cgroup (a container) charges. */
function treePssMb(root: number): number {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      parent.set(Number(name), Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      /* gone */
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, i = 0; p > 1 && i < 64; p = parent.get(p) ?? 0, i++) if (p === root) return true;
    return false;
  };
  let kb = 0;
  for (const pid of parent.keys()) {
    if (!inTree(pid)) continue;
    try {
      kb += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return Math.round(kb / 102.4) / 10;
}

async function measure(size: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-poolmem-'));
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', POOL_SIZE: String(size), ACQUIRE_TIMEOUT_MS: '60000' };
  const key = (JSON.parse(execFileSync('node', ['dist/cli.js', 'accounts', 'create', '--plan', 'enterprise', '--json'], { cwd: ROOT, env, encoding: 'utf8' })) as { api_key: string }).api_key;
  const proc = spawn('node', ['--no-memory-reducer', 'dist/cli.js', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; !(await fetch(`${url}/v1/pressure`).then((r) => r.ok, () => false)); i++) {
    if (i > 1800 || proc.exitCode !== null) throw new Error('server did not start');
    await sleep(100);
  }
  await sleep(2000);
  const idle = treePssMb(proc.pid!);
  const idleRss = treeRssMb(proc.pid!);
  const agent = new http.Agent({ keepAlive: true });
  const bodies = corpus.flatMap((e) => [JSON.stringify(e.body), ...(e.plain ? [JSON.stringify(e.plain)] : [])]);
  const rss: number[] = [];
  const pss: number[] = [];
  const deadline = Date.now() + SECONDS * 1000;
  let n = 0;
  let failed = 0;
  const sampler = setInterval(() => {
    rss.push(treeRssMb(proc.pid!));
    pss.push(treePssMb(proc.pid!));
  }, 2000);
  await Promise.all(
    Array.from({ length: size * 2 }, async () => {
      while (Date.now() < deadline) {
        const r = await request(agent, url, 'POST', '/v1/chart', bodies[n++ % bodies.length], { 'x-api-key': key }).catch(() => ({ status: 0 }));
        if (r.status !== 200) failed++;
      }
    }),
  );
  clearInterval(sampler);
  agent.destroy();
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  const sorted = [...pss].sort((a, b) => a - b);
  const rssSorted = [...rss].sort((a, b) => a - b);
  return { poolSize: size, idleMb: idle, medianMb: percentile(sorted, 50), peakMb: sorted.at(-1)!, rssIdleMb: idleRss, rssPeakMb: rssSorted.at(-1)!, renders: n, failed };
}

const rows = [];
for (const size of SIZES) {
  const row = await measure(size);
  rows.push(row);
  console.log(JSON.stringify(row));
}
if (rows.length > 1) {
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const perPage = (last.peakMb - first.peakMb) / (last.poolSize - first.poolSize);
  console.log(`per page (peak, POOL_SIZE ${first.poolSize} -> ${last.poolSize}): ${Math.round(perPage)} MB; base (peak minus pages): ${Math.round(first.peakMb - perPage * first.poolSize)} MB`);
}
