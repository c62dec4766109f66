// A cluster under mixed traffic for a long while, its memory sampled: several instances
// (dist/cli.js serve) on one PostgreSQL and one Redis behind nginx, the traffic a deployment
// sees (corpus renders, the docs' callbacks, short charts made on one instance and read through
// any, open-endpoint images, cache hits) at a fixed concurrency; every minute each instance's
// RSS (Node and its Chromium processes) and Node's heap (GET /v1/pressure) are sampled. The
// verdict compares each instance's memory at the end with its memory once warm.
// With SOAK_FAULTS=1 (needs root: it mounts a tmpfs), two faults: a quarter of the way in, the
// disk of chartshot1 (its DATA_DIR and TMPDIR, where Chromium's profiles live, on a 64 MB tmpfs)
// is filled to ENOSPC for SOAK_DISK_S (30) seconds while renders, creations and reads are sent
// to it directly; at half way, every instance is restarted in turn (SIGTERM, its drain, start
// again) while PostgreSQL restarts. A 503 with Retry-After is counted as refused (clients retry
// it), anything else over 299 or a broken connection as failed, and every short chart answered
// 201 must still be served at the end.
//   npm run soak:cluster                               # one hour, 3 instances, 4 in flight
//   SOAK_SECONDS=300 SOAK_FAULTS=1 npm run soak:cluster
// Env: SOAK_SECONDS (3600), SOAK_INSTANCES (3), SOAK_CONCURRENCY (4), SOAK_POOL_SIZE (1),
// SOAK_SAMPLE_S (60), SOAK_FAULTS (0), SOAK_DISK_S (30), SOAK_OUT (a JSON file of every sample; default none).
import { spawn, spawnSync, execFile, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { corpus } from './corpus/corpus.js';
import { bodies as callbackBodies } from './corpus/callbacks.js';
import { percentile, request, treeRssMb } from './lib.js';
import { OwnPostgres, freePort, testRedis, stopTestServices } from '../test/helpers/services.js';
import { startNginx } from '../test/helpers/nginx.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);

const SECONDS = num('SOAK_SECONDS', 3600);
const INSTANCES = num('SOAK_INSTANCES', 3);
const CONCURRENCY = num('SOAK_CONCURRENCY', 4);
const POOL_SIZE = num('SOAK_POOL_SIZE', 1);
const SAMPLE_S = num('SOAK_SAMPLE_S', 60);
const FAULTS = process.env.SOAK_FAULTS === '1';
const DISK_S = num('SOAK_DISK_S', 30);

interface Instance {
  name: string;
  port: number;
  proc: ChildProcess;
  dataDir: string;
  exited: Promise<void>;
  onDisk: boolean;
}

interface Sample {
  t: number;
  instances: Array<{ name: string; rssMb: number; heapMb: number; pageResets: number }>;
  requests: number;
}

const log = (...a: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...a);

async function main(): Promise<void> {
  const pg = await OwnPostgres.create();
  const redis = await testRedis();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    MASTER_KEY: randomBytes(32).toString('hex'),
    TRUST_PROXY: 'true',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    POOL_SIZE: String(POOL_SIZE),
    OPEN_RENDERS_PER_HOUR: '1000000',
    DRAIN_GRACE_MS: '2000',
    ACQUIRE_TIMEOUT_MS: '30000',
  };
  const ports = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()));
  const lb = await startNginx(ports, { connectTimeoutMs: 500 });
  env.PUBLIC_BASE_URL = lb.url;

  // the disk that fills: chartshot1's DATA_DIR and TMPDIR
  const disk = FAULTS ? mkdtempSync(join(tmpdir(), 'chartshot-soak-disk-')) : '';
  if (FAULTS && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', disk]).status !== 0) throw new Error('SOAK_FAULTS=1 mounts a tmpfs (run as root)');
  const start = async (name: string, port: number, onDisk = false): Promise<Instance> => {
    const dataDir = mkdtempSync(join(onDisk ? disk : tmpdir(), 'chartshot-soak-'));
    const tmp = join(disk, 'tmp');
    if (onDisk) mkdirSync(tmp, { recursive: true });
    const proc = spawn('node', ['--no-memory-reducer', 'dist/cli.js', 'serve'], { cwd: ROOT, env: { ...env, PORT: String(port), DATA_DIR: dataDir, ...(onDisk ? { TMPDIR: tmp } : {}) }, stdio: ['ignore', 'ignore', 'pipe'] });
    const errors: string[] = [];
    proc.stderr!.on('data', (c: Buffer) => {
      if (onDisk && errors.length < 20) errors.push(...c.toString().split('\n').filter((l) => /ENOSPC|full/i.test(l)).map((l) => l.slice(0, 300)));
    });
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null) throw new Error(`${name} exited at start`);
      if (await fetch(`http://127.0.0.1:${port}/v1/pressure`).then((r) => r.status === 200, () => false)) break;
      if (i > 1800) throw new Error(`${name} did not start`);
      await sleep(100);
    }
    if (onDisk) diskLogs = errors;
    return { name, port, proc, dataDir, exited, onDisk };
  };
  let diskLogs: string[] = [];
  const instances: Instance[] = [];
  for (const [i, port] of ports.entries()) instances.push(await start(`chartshot${i + 1}`, port, FAULTS && i === 0));
  log(`${INSTANCES} instances (POOL_SIZE ${POOL_SIZE}) behind nginx ${lb.url}; ${SECONDS} s at ${CONCURRENCY} in flight${FAULTS ? ', with faults' : ''}`);

  const cli = async (...args: string[]) => (await run('node', ['dist/cli.js', ...args], { cwd: ROOT, env, encoding: 'utf8' })).stdout;
  const account = JSON.parse(await cli('accounts', 'create', '--plan', 'enterprise', '--json')) as { account_id: string; api_key: string };
  await cli('billing', 'set-limits', '--account', account.account_id, '--charts', 'none', '--per-minute', '1000000', '--per-hour', '100000000', '--burst', '1000000');

  // the mix
  const renders = corpus.map((e) => JSON.stringify(e.body));
  const callbacks = callbackBodies().map((p) => JSON.stringify(p.withCallbacks));
  const created: string[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  const headers = { 'x-api-key': account.api_key };
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let requests = 0;
  let failed = 0;
  let refused = 0; // 503 with Retry-After: a clean refusal the client retries, not a failure
  const failures: string[] = [];
  // when each failure and refusal happened (ms since the epoch): the fault report's timeline
  const failedAt: number[] = [];
  const refusedAt: number[] = [];
  const step = async (i: number): Promise<void> => {
    const kind = i % 20;
    const t0 = performance.now();
    let what = '';
    try {
      let r;
      if (kind < 10) {
        what = 'render';
        r = await request(agent, lb.url, 'POST', '/v1/chart', renders[i % renders.length], headers);
      } else if (kind < 12) {
        what = 'callbacks';
        r = await request(agent, lb.url, 'POST', '/v1/chart', callbacks[i % callbacks.length], headers);
      } else if (kind < 14) {
        what = 'create';
        r = await request(agent, lb.url, 'POST', '/v1/chart/create', renders[(i * 7) % renders.length], headers);
        if (r.status === 201) created.push((JSON.parse(r.body.toString()) as { id: string }).id);
      } else if (kind < 17 && created.length > 0) {
        what = 'short chart';
        r = await request(agent, lb.url, 'GET', `/v1/chart/${created[(i * 31) % created.length]}`);
      } else {
        what = 'open';
        const c = encodeURIComponent(JSON.stringify({ type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: `open ${i % 200}`, data: [i % 7, 3, 5] }] } }));
        r = await request(agent, lb.url, 'GET', `/v1/open/chart?c=${c}&w=300&h=150`);
      }
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.status === 503 && r.headers['retry-after']) {
        refused++;
        refusedAt.push(Date.now());
      } else if (r.status >= 300) {
        failed++;
        failedAt.push(Date.now());
        if (failures.length < 50) failures.push(`${what} ${r.status} ${r.body.toString().slice(0, 120)}`);
      }
    } catch (err) {
      failed++;
      failedAt.push(Date.now());
      statuses.error = (statuses.error ?? 0) + 1;
      if (failures.length < 50) failures.push(`${what} ${(err as Error).message}`);
    }
    requests++;
    latencies.push(performance.now() - t0);
  };

  const samples: Sample[] = [];
  const began = Date.now();
  const sample = async () => {
    const rows = [];
    for (const inst of instances) {
      const p = (await fetch(`http://127.0.0.1:${inst.port}/v1/pressure`).then((r) => r.json(), () => null)) as { memory?: { heapUsedBytes: number } } | null;
      const s = (await fetch(`http://127.0.0.1:${inst.port}/v1/status`).then((r) => r.json(), () => null)) as { pageResets?: Record<string, number> } | null;
      const resets = Object.values(s?.pageResets ?? {}).reduce((a, b) => a + b, 0);
      rows.push({ name: inst.name, rssMb: inst.proc.pid ? treeRssMb(inst.proc.pid) : 0, heapMb: Math.round((p?.memory?.heapUsedBytes ?? 0) / 1048576), pageResets: resets });
    }
    samples.push({ t: Math.round((Date.now() - began) / 1000), instances: rows, requests });
    log(`t=${samples.at(-1)!.t}s requests=${requests} failed=${failed} ` + rows.map((r) => `${r.name} rss=${r.rssMb}MB heap=${r.heapMb}MB resets=${r.pageResets}`).join(' | '));
  };

  let faultReport = '';
  let diskReport = '';
  const fullDisk = async () => {
    const onDisk = instances[0]!;
    const before = { requests, failed, refused };
    const madeBefore = created.slice(0, 20);
    const filler = join(disk, 'filler');
    const fd = openSync(filler, 'w');
    const block = Buffer.alloc(64 * 1024, 7);
    for (const size of [block.length, 4096]) {
      try {
        for (;;) writeSync(fd, block, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
    closeSync(fd);
    log(`faults: the disk of ${onDisk.name} is full (ENOSPC); direct requests to it for ${DISK_S} s`);
    const direct: Record<string, number> = {};
    const answers: string[] = [];
    const base = `http://127.0.0.1:${onDisk.port}`;
    const end = Date.now() + DISK_S * 1000;
    for (let i = 0; Date.now() < end; i++) {
      const tries: Array<[string, () => Promise<{ status: number; body: Buffer }>]> = [
        ['render', () => request(agent, base, 'POST', '/v1/chart', renders[i % renders.length], headers)],
        ['create', () => request(agent, base, 'POST', '/v1/chart/create', JSON.stringify({ chart: { type: 'line', data: { labels: ['a', 'b'], datasets: [{ label: `disk ${i}`, data: [i, 2] }] } }, width: 300, height: 150 }), headers)],
        ['read', () => request(agent, base, 'GET', `/v1/chart/${madeBefore[i % Math.max(1, madeBefore.length)] ?? 'none'}`)],
        ['pressure', () => request(agent, base, 'GET', '/v1/pressure')],
      ];
      for (const [what, f] of tries) {
        const r = await f().catch((err: Error) => ({ status: 0, body: Buffer.from(err.message) }));
        direct[`${what} ${r.status}`] = (direct[`${what} ${r.status}`] ?? 0) + 1;
        if (what === 'create' && r.status === 201) created.push((JSON.parse(r.body.toString()) as { id: string }).id);
        if (r.status !== 200 && r.status !== 201 && answers.length < 5) answers.push(`${what} ${r.status} ${r.body.toString().slice(0, 160)}`);
      }
    }
    rmSync(filler, { force: true });
    diskReport = `full disk on ${onDisk.name} for ${DISK_S} s: direct ${JSON.stringify(direct)}; through nginx ${requests - before.requests} requests, ${failed - before.failed} failed, ${refused - before.refused} refused${answers.length ? `; answers: ${answers.join(' | ')}` : ''}${diskLogs.length ? `; its log: ${diskLogs.slice(0, 3).join(' | ')}` : ''}`;
    log(diskReport);
  };
  const faults = async () => {
    await sleep((SECONDS * 1000) / 4);
    await fullDisk();
    await sleep(Math.max(0, began + SECONDS * 500 - Date.now()));
    const before = { requests, failed, refused };
    log('faults: a rolling restart of every instance while PostgreSQL restarts');
    const t0 = Date.now();
    const at = (t: number) => `+${((t - t0) / 1000).toFixed(1)} s`;
    const events: string[] = [];
    const note = (what: string) => {
      events.push(`${at(Date.now())} ${what}`);
      log(what);
    };
    const pgRestart = (async () => {
      await pg.stop();
      note('PostgreSQL stopped');
      await sleep(5000);
      await pg.start();
      note('PostgreSQL is back');
    })();
    for (const [i, inst] of instances.entries()) {
      inst.proc.kill('SIGTERM');
      await inst.exited;
      note(`${inst.name} exited`);
      rmSync(inst.dataDir, { recursive: true, force: true });
      instances[i] = await start(inst.name, inst.port, inst.onDisk);
      note(`${inst.name} restarted`);
    }
    await pgRestart;
    // the timeline: failures and refusals per 5 s from PostgreSQL's stop
    const fails = failedAt.filter((t) => t >= t0);
    const refusals = refusedAt.filter((t) => t >= t0);
    const per5s = (ts: number[]) => {
      const b: Record<string, number> = {};
      for (const t of ts) {
        const k = Math.floor((t - t0) / 5000) * 5;
        b[`${k}-${k + 5}s`] = (b[`${k}-${k + 5}s`] ?? 0) + 1;
      }
      return JSON.stringify(b);
    };
    faultReport =
      `during the faults: ${requests - before.requests} requests, ${failed - before.failed} failed, ${refused - before.refused} refused with 503 + Retry-After` +
      `; failed ${fails.length ? `from ${at(fails[0]!)} to ${at(fails.at(-1)!)}` : 'none'} ${per5s(fails)}` +
      `; refused ${refusals.length ? `from ${at(refusals[0]!)} to ${at(refusals.at(-1)!)}` : 'none'} ${per5s(refusals)}` +
      `; events: ${events.join(', ')}`;
    log(faultReport);
  };

  let next = 0;
  const deadline = began + SECONDS * 1000;
  // with faults, traffic goes on until the last restarted instance is back (a restart on a busy
  // machine can outlast SOAK_SECONDS), so every fault happens under load
  let faulting = FAULTS;
  const worker = async () => {
    while (Date.now() < deadline || faulting) await step(next++);
  };
  await sample();
  const sampler = setInterval(() => void sample(), SAMPLE_S * 1000);
  await Promise.all([...Array.from({ length: CONCURRENCY }, worker), ...(FAULTS ? [faults().finally(() => (faulting = false))] : [])]);
  clearInterval(sampler);
  await sample();

  // every short chart answered 201 is still served
  let lost = 0;
  for (const id of created) if ((await request(agent, lb.url, 'GET', `/v1/chart/${id}`).catch(() => ({ status: 0 }))).status !== 200) lost++;

  // memory: each instance's median of the last fifth against its median once warm (the second fifth)
  const verdicts = instances.map((inst) => {
    const series = samples.map((s) => s.instances.find((r) => r.name === inst.name)!);
    const n = series.length;
    const med = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
    const warm = series.slice(Math.floor(n / 5), Math.max(Math.floor(n / 5) + 1, Math.floor((2 * n) / 5)));
    const end = series.slice(Math.floor((4 * n) / 5));
    const rss = [med(warm.map((r) => r.rssMb)), med(end.map((r) => r.rssMb))] as const;
    const heap = [med(warm.map((r) => r.heapMb)), med(end.map((r) => r.heapMb))] as const;
    return { name: inst.name, rssWarmMb: rss[0], rssEndMb: rss[1], heapWarmMb: heap[0], heapEndMb: heap[1], rssGrowth: Math.round((rss[1] / rss[0] - 1) * 1000) / 10 };
  });
  const sorted = [...latencies].sort((a, b) => a - b);
  const flat = !FAULTS && verdicts.every((v) => v.rssGrowth <= 10 && v.heapEndMb <= v.heapWarmMb * 1.25 + 8);
  const summary = {
    seconds: SECONDS, instances: INSTANCES, poolSize: POOL_SIZE, concurrency: CONCURRENCY, faults: FAULTS,
    requests, failed, refused, statuses, perSecond: Math.round((requests / SECONDS) * 10) / 10,
    p50Ms: Math.round(percentile(sorted, 50)), p99Ms: Math.round(percentile(sorted, 99)),
    shortCharts: created.length, shortChartsLost: lost, memory: verdicts, failures: failures.slice(0, 20), diskReport, faultReport,
  };
  console.log(JSON.stringify(summary, null, 2));
  if (process.env.SOAK_OUT) writeFileSync(process.env.SOAK_OUT, JSON.stringify({ summary, samples }, null, 2));
  console.log(
    FAULTS
      ? `verdict: ${failed === 0 && lost === 0 ? 'nothing failed, nothing lost' : `${failed} failed, ${lost} short charts lost`} (${requests} requests, ${refused} refused with 503 + Retry-After; ${faultReport})`
      : `verdict: memory ${flat ? 'flat' : 'GREW'} over ${SECONDS} s (${verdicts.map((v) => `${v.name} RSS ${v.rssWarmMb}->${v.rssEndMb} MB (${v.rssGrowth}%), heap ${v.heapWarmMb}->${v.heapEndMb} MB`).join('; ')}); ${requests} requests, ${failed} failed, ${lost} short charts lost`,
  );

  for (const inst of instances) {
    inst.proc.kill('SIGTERM');
    await inst.exited;
    rmSync(inst.dataDir, { recursive: true, force: true });
  }
  if (disk) {
    spawnSync('umount', [disk]);
    rmSync(disk, { recursive: true, force: true });
  }
  agent.destroy();
  await lb.stop();
  await pg.remove();
  await stopTestServices();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
