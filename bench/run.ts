// npm run bench:service: the real server measured over HTTP, beside the old peer (bench/peer/worker.mjs) and a bare
// node:http server; writes bench/results.json (and the README table between bench:start/bench:end markers, when there are any). BENCH_QUICK=1: a short run;
// BENCH_PEER_ONLY=1: only the comparisons (bench/compare.ts). With DATABASE_URL and REDIS_URL
// set, a second server on them is measured beside the SQLite one (bench/shared.ts);
// BENCH_SHARED_ONLY=1: only that comparison (printed, nothing written).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, totalmem, loadavg } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { load, request, treeRssMb, type LoadResult } from './lib.js';
import { compare, markdown } from './compare.js';
import { benchAccount, startServer as startServerOn, stopServer } from './server.js';
import { sharedStoreRows } from './shared.js';
import { httpVersionBench, versionBench, type HttpVersionBench, type VersionBench } from './versions.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startPool } from '../src/render/renderer.js';
import type { PageRequest } from '../src/render/renderer.js';

const QUICK = process.env.BENCH_QUICK === '1';
const PEER_ONLY = process.env.BENCH_PEER_ONLY === '1';
const SHARED_ONLY = process.env.BENCH_SHARED_ONLY === '1';
const scale = (n: number) => (QUICK ? Math.max(20, Math.round(n / 10)) : n);
const PORT = Number(process.env.BENCH_PORT ?? 18080);
const BASE = `http://127.0.0.1:${PORT}`;
const CORES = cpus().length;
// The shared store's settings serve only the second server: everything else runs on SQLite.
const SHARED = process.env.DATABASE_URL && process.env.REDIS_URL
  ? { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL, MASTER_KEY: process.env.MASTER_KEY || 'ab'.repeat(32) }
  : null;
delete process.env.DATABASE_URL;
delete process.env.REDIS_URL;
delete process.env.MASTER_KEY;

const startServer = (dataDir: string, env: Record<string, string> = {}, port = PORT) => startServerOn(dataDir, port, env);

const BAR_LABELS = ['January', 'February', 'March', 'April', 'May', 'June', 'July'];
/** An 800x400 bar chart; `i` varies one value so no two requests coalesce or hit a cache. */
function bar(i: number) {
  return {
    type: 'bar',
    data: {
      labels: BAR_LABELS,
      datasets: [
        { label: 'Revenue', data: [12, 19, 3, 5, 2, 3, i % 1000], backgroundColor: '#3B82F6' },
        { label: 'Cost', data: [8, 11, 6, 4, 3, 2, 7], backgroundColor: '#EF4444' },
      ],
    },
    options: { plugins: { title: { display: true, text: 'Quarterly revenue' } } },
  };
}

const wave = (i: number) => Array.from({ length: 5000 }, (_, k) => Math.round(500 + 400 * Math.sin(k / 150) + ((k * 7919 + i) % 97)));

/** A 2000x2000 line with 5,000 {x, y} points on a linear x axis: how a long series is usually fed. */
function bigLine(i: number) {
  return {
    type: 'line',
    data: { datasets: [{ label: 'Signal', data: wave(i).map((y, x) => ({ x, y })), borderColor: '#10B981', pointRadius: 0, borderWidth: 1 }] },
    options: { scales: { x: { type: 'linear' } }, plugins: { title: { display: true, text: `5,000 points #${i}` } } },
  };
}

/** The same series as 5,000 category labels: Chart.js itself then measures every label (about 45 ms). */
function bigLineLabels(i: number) {
  const data = wave(i);
  return {
    type: 'line',
    data: { labels: data.map((_, k) => k), datasets: [{ label: 'Signal', data, borderColor: '#10B981', pointRadius: 0, borderWidth: 1 }] },
    options: { plugins: { title: { display: true, text: `5,000 points #${i}` } } },
  };
}

async function main() {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-bench-'));
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cores: CORES, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, cpu: cpus()[0]?.model },
    quick: QUICK,
    peerOnly: PEER_ONLY,
    loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
  let table = '';
  try {
    const acct = benchAccount(dataDir);
    const headers = { 'x-api-key': acct.api_key };
    let server = await startServer(dataDir);
    const post = (chart: unknown, width: number, height: number, format = 'png') => ({
      method: 'POST',
      path: '/v1/chart',
      body: JSON.stringify({ chart, width, height, format, backgroundColor: 'white' }),
      headers,
    });

    if (SHARED_ONLY && !SHARED) throw new Error('BENCH_SHARED_ONLY=1 needs DATABASE_URL and REDIS_URL');
    if (!SHARED_ONLY) {
      // Warm the server (JIT in Node and in every page).
      await load(BASE, CORES * 2, scale(200), (i) => post(bar(i), 800, 400));
      await load(BASE, CORES * 2, scale(40), (i) => post(bar(i), 800, 400, 'svg'));
    }

    // GET /chart: Chart.js 2 at ratio 2 against Chart.js 4 at ratio 1, while no page has drawn v2 yet
    results.versionsHttp = await httpVersionBench(BASE, acct.api_key, scale(300));
    console.log(`GET /chart v2 ratio 2 / v4 ratio 1 at 1 in flight: ${JSON.stringify(results.versionsHttp)}`);

    // chartshot beside its peer and a bare node:http server, each row with its target.
    const cmp = SHARED_ONLY
      ? { rows: [] as Awaited<ReturnType<typeof compare>>['rows'], peerVersions: null, raw: null }
      : await compare({ base: BASE, serverPid: server.pid!, barePort: PORT + 1, headers, quick: QUICK }).catch(async (err: unknown) => {
          await stopServer(server);
          throw err;
        });
    if (SHARED) {
      // the same service on PostgreSQL + Redis, memory tier off (its cache hits come from Redis)
      const sharedDir = mkdtempSync(join(tmpdir(), 'chartshot-bench-shared-'));
      const sharedEnv = { ...SHARED, MEMORY_CACHE_MB: '0' };
      const other = benchAccount(sharedDir, sharedEnv);
      const second = await startServer(sharedDir, sharedEnv, PORT + 2);
      try {
        const s = await sharedStoreRows({
          sqlite: { base: BASE, pid: server.pid!, headers },
          shared: { base: `http://127.0.0.1:${PORT + 2}`, pid: second.pid!, headers: { 'x-api-key': other.api_key } },
          quick: QUICK,
        });
        cmp.rows.push(...s.rows);
        results.sharedStore = s.raw;
      } finally {
        await stopServer(second);
        rmSync(sharedDir, { recursive: true, force: true });
      }
    }
    results.peer = { versions: cmp.peerVersions, note: 'peer = chartjs-node-canvas in one Node process; "4 in flight" = 4 async loops calling renderToBuffer', rows: cmp.rows, raw: cmp.raw };
    table = markdown(cmp.rows);
    if (SHARED_ONLY) {
      await stopServer(server);
      console.log(JSON.stringify(results.sharedStore, null, 2));
      console.log(table);
      return;
    }
    if (PEER_ONLY) {
      await stopServer(server);
      return finish(results, table);
    }

    const series = async (name: string, make: (i: number) => ReturnType<typeof post>, n: number, conc: number[]) => {
      const out: LoadResult[] = [];
      for (const c of conc) {
        const r = await load(BASE, c, n, make);
        out.push(r);
        console.log(`${name} c=${c}: ${r.perSecond}/s p50 ${r.p50Ms} ms p95 ${r.p95Ms} ms errors ${r.errors}`);
      }
      return out;
    };
    let offset = 10_000;
    const fresh = (f: (i: number) => ReturnType<typeof post>) => (i: number) => f(offset++ + i);
    results.barPng = await series('bar 800x400 png', fresh((i) => post(bar(i), 800, 400)), scale(800), [1, 2, 4, 8]);
    results.barSvg = await series('bar 800x400 svg', fresh((i) => post(bar(i), 800, 400, 'svg')), scale(600), [1, 2, 4, 8]);
    results.bigLinePng = await series('line 2000x2000 5k png', fresh((i) => post(bigLine(i), 2000, 2000)), scale(60), [1, 2, 4, 8]);
    results.bigLineLabelsPng = await series('line 2000x2000 5k labels png', fresh((i) => post(bigLineLabels(i), 2000, 2000)), scale(30), [1]);

    // RSS of server + Chromium over 5,000 renders: flat within 10%?
    const rss: Array<{ renders: number; rssMb: number }> = [{ renders: 0, rssMb: treeRssMb(server.pid!) }];
    const chunk = scale(1000);
    for (let k = 1; k <= 5; k++) {
      await load(BASE, 4, chunk, fresh((i) => post(bar(i), 800, 400)));
      rss.push({ renders: k * chunk, rssMb: treeRssMb(server.pid!) });
      console.log(`rss after ${k * chunk} renders: ${rss.at(-1)!.rssMb} MiB`);
    }
    const after1k = rss[1]!.rssMb;
    const last = rss.at(-1)!.rssMb;
    results.rss = { samples: rss, growthFrom1kPercent: Math.round(((last - after1k) / after1k) * 1000) / 10 };

    // Short charts: memory tier and persistent tier.
    const created = await load(BASE, 1, 1, () => ({ method: 'POST', path: '/v1/chart/create', body: JSON.stringify({ chart: bar(1), width: 800, height: 400 }), headers }));
    if (created.errors === 0) {
      const agent = new http.Agent({ keepAlive: true });
      const res = await request(agent, BASE, 'POST', '/v1/chart/create', JSON.stringify({ chart: bar(2), width: 800, height: 400 }), headers);
      agent.destroy();
      const url = new URL((JSON.parse(res.body.toString()) as { url: string }).url);
      const get = () => ({ method: 'GET', path: url.pathname });
      await load(BASE, 32, scale(2000), get);
      results.shortMemory = await load(BASE, 32, scale(20000), get);
      console.log(`GET /v1/chart/{id} memory tier c=32: ${(results.shortMemory as LoadResult).perSecond}/s`);
      await stopServer(server);
      server = await startServer(dataDir, { MEMORY_CACHE_MB: '0' });
      await load(BASE, 32, scale(1000), get);
      results.shortPersistent = await load(BASE, 32, scale(10000), get);
      console.log(`GET /v1/chart/{id} persistent tier c=32: ${(results.shortPersistent as LoadResult).perSecond}/s`);
    } else {
      results.shortMemory = 'POST /v1/chart/create not available';
    }
    await stopServer(server);

    // The in-page floor: Chart.js build + draw + encode, timed inside the page.
    const config = loadConfig({ ...process.env, DATA_DIR: dataDir, POOL_SIZE: '1', LOG_LEVEL: 'silent' });
    const pool = await startPool(config, createLogger('silent'));
    const floorReq = (chart: Record<string, unknown>, w: number, h: number, format: 'png' | 'svg'): PageRequest => ({
      config: chart, width: w, height: h, format, backgroundColor: 'white', allowFunctions: false, watermark: null,
    });
    await pool.floor(floorReq(bar(1), 800, 400, 'png'), 50);
    const floorBar = (await pool.floor(floorReq(bar(1), 800, 400, 'png'), scale(300))).msPerRender;
    const floorSvg = (await pool.floor(floorReq(bar(1), 800, 400, 'svg'), scale(200))).msPerRender;
    const floorLine = (await pool.floor(floorReq(bigLine(1), 2000, 2000, 'png'), scale(30))).msPerRender;
    await pool.close();
    const c4 = (results.barPng as LoadResult[]).find((r) => r.concurrency === 4)!;
    const floorRate = (CORES * 1000) / floorBar;
    results.floor = {
      barPngMs: floorBar,
      barSvgMs: floorSvg,
      bigLinePngMs: floorLine,
      barPngMaxPerSecondOnAllCores: Math.round(floorRate),
      serviceToFloorRatioAtC4: Math.round((c4.perSecond / floorRate) * 100) / 100,
    };
    console.log(`in-page floor: bar png ${floorBar.toFixed(2)} ms, svg ${floorSvg.toFixed(2)} ms, 5k line ${floorLine.toFixed(1)} ms; ratio at c=4: ${(results.floor as { serviceToFloorRatioAtC4: number }).serviceToFloorRatioAtC4}`);

    // Chart.js 2 at ratio 2 against Chart.js 4 at ratio 1, and the first request of a cold version
    const v = await versionBench({ n: scale(300), coldSamples: QUICK ? 2 : 5 });
    results.versions = v;
    console.log(`v2 bar 1000x600 (ratio 2) / v4 bar 500x300 at 1 in flight: ${v.ratioP50}x by p50; cold version first request max ${v.coldFirstMs.max} ms`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  finish(results, table);
}

function finish(results: Record<string, unknown>, table: string): void {
  results.loadAverageAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  writeFileSync('bench/results.json', JSON.stringify(results, null, 2) + '\n');
  if (!QUICK && !PEER_ONLY) updateReadme(results, table);
  console.log(`\nload average (1, 5, 15 min) at start ${String(results.loadAverageAtStart)}, at end ${String(results.loadAverageAtEnd)}\n`);
  console.log(table);
  console.log('wrote bench/results.json');
}

function versionLine(v: VersionBench, h: HttpVersionBench | null): string {
  const http = h ? ` Over HTTP (GET /chart): p50 ${h.v2Ratio2P50Ms} ms vs ${h.v4Ratio1P50Ms} ms (${h.ratioP50}x), the server's first v2 request ${h.coldFirstMs} ms.` : '';
  return `Chart.js 2 bar at device pixel ratio 2 (1000x600) against the Chart.js 4 bar at ratio 1 (500x300), 1 in flight through the pool: p50 ${v.v2Ratio2.p50Ms} ms vs ${v.v4Ratio1.p50Ms} ms (${v.ratioP50}x); the first request of a version no page had loaded: at most ${v.coldFirstMs.max} ms.${http}`;
}

function updateReadme(r: Record<string, unknown>, peerTable: string): void {
  const row = (name: string, list: LoadResult[]) =>
    list.map((x) => `| ${name} | ${x.concurrency} | ${x.perSecond} | ${x.p50Ms} | ${x.p95Ms} | ${x.errors} |`).join('\n');
  const f = r.floor as Record<string, number>;
  const rss = r.rss as { samples: Array<{ renders: number; rssMb: number }>; growthFrom1kPercent: number };
  const sm = r.shortMemory as LoadResult | string;
  const sp = r.shortPersistent as LoadResult | undefined;
  const table = [
    `Measured ${String(r.date).slice(0, 10)} by \`npm run bench:service\` on this ${CORES}-core machine (server, Chromium and the load generator share the cores; POOL_SIZE=${CORES}).`,
    '',
    '| workload | concurrency | renders/s | p50 ms | p95 ms | errors |',
    '|---|---|---|---|---|---|',
    row('bar 800x400 PNG', r.barPng as LoadResult[]),
    row('bar 800x400 SVG', r.barSvg as LoadResult[]),
    row('line 2000x2000, 5,000 {x,y} points, PNG', r.bigLinePng as LoadResult[]),
    row('line 2000x2000, 5,000 category labels, PNG', r.bigLineLabelsPng as LoadResult[]),
    '',
    `In-page floor (Chart.js build + draw + encode, timed in the page): bar PNG ${f.barPngMs?.toFixed(2)} ms, bar SVG ${f.barSvgMs?.toFixed(2)} ms, 5k-point line PNG ${f.bigLinePngMs?.toFixed(1)} ms; the floor allows ${f.barPngMaxPerSecondOnAllCores} bar PNG/s on ${CORES} cores, and the service reaches ${f.serviceToFloorRatioAtC4} of it at concurrency 4.`,
    '',
    `RSS of server + Chromium over ${rss.samples.at(-1)!.renders} renders (MiB): ${rss.samples.map((s) => s.rssMb).join(' → ')} (${rss.growthFrom1kPercent}% after the first 1,000).`,
    '',
    versionLine(r.versions as VersionBench, r.versionsHttp as HttpVersionBench | null),
    '',
    typeof sm === 'string' ? `Short charts: ${sm}.` : `GET /v1/chart/{id} at concurrency 32: memory tier ${sm.perSecond}/s (p50 ${sm.p50Ms} ms), persistent tier ${sp?.perSecond}/s (p50 ${sp?.p50Ms} ms).`,
    '',
    `Beside the peer (chartjs-node-canvas in one Node process, 4 in flight = 4 async loops) and a bare node:http server, same run; load average ${String(r.loadAverageAtStart)} at start, ${String(r.loadAverageAtEnd)} at end:`,
    '',
    peerTable,
  ].join('\n');
  const readme = readFileSync('README.md', 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const a = readme.indexOf(start);
  const b = readme.indexOf(end);
  if (a < 0 || b < 0) return;
  writeFileSync('README.md', readme.slice(0, a + start.length) + '\n' + table + '\n' + readme.slice(b));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
