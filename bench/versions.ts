// Chart.js 2 at device pixel ratio 2 against Chart.js 4 at ratio 1 (one render in flight), and the
// first request for a version no page has loaded yet: through the pool, and over HTTP (GET /chart)
// when given a server. Run alone: node --import tsx bench/versions.ts
// (BENCH_BASE=http://host:port BENCH_KEY=<api key>: the HTTP case against a fresh running server)
import { load, loadSamples } from './lib.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { Renderer, type PageRequest } from '../src/render/renderer.js';

export interface VersionBench {
  /** 1 in flight, ms per render (end to end through the pool: wire, page, PNG). */
  v4Ratio1: { p50Ms: number; meanMs: number; n: number };
  v2Ratio2: { p50Ms: number; meanMs: number; n: number };
  /** v2Ratio2 / v4Ratio1 by p50 (target <= 1.5). */
  ratioP50: number;
  ratioMean: number;
  /** The same two renders timed inside the page (pool.floor: build + draw + PNG encode), ms. */
  inPage: { v4Ratio1Ms: number; v2Ratio2Ms: number; ratio: number };
  /** First request of a version whose pages are all cold (a page switches to it), ms (target < 1000). */
  coldFirstMs: { v2: number[]; v3: number[]; max: number };
}

export interface HttpVersionBench {
  /** GET /chart, 1 in flight: p50 ms of each block of 50, alternating. */
  v4Ratio1P50Ms: number;
  v2Ratio2P50Ms: number;
  ratioP50: number;
  /** The server's first v2 request (its pages all on Chart.js 4), ms. */
  coldFirstMs: number;
}

/** The same comparison over HTTP, on a server that has not drawn Chart.js 2 yet; null when it
 *  has no GET /chart. */
export async function httpVersionBench(base: string, key: string, n = 300): Promise<HttpVersionBench | null> {
  const literal = (i: number) => JSON.stringify(bar(i));
  const get = (v: number, r: number) => (i: number) => ({
    method: 'GET',
    path: `/chart?v=${v}&devicePixelRatio=${r}&w=500&h=300&bkg=white&c=${encodeURIComponent(literal(i))}`,
    headers: { 'x-api-key': key },
  });
  const cold = await loadSamples(base, 1, 1, get(2, 2));
  if (cold.result.errors > 0) return null;
  await load(base, 1, 30, get(4, 1));
  await load(base, 1, 30, get(2, 2));
  const v4: number[] = [];
  const v2: number[] = [];
  let offset = 1000;
  for (let b = 0; b < 6; b++) {
    v4.push(...(await loadSamples(base, 1, Math.ceil(n / 6), (i) => get(4, 1)(offset++ + i))).latencies);
    v2.push(...(await loadSamples(base, 1, Math.ceil(n / 6), (i) => get(2, 2)(offset++ + i))).latencies);
  }
  const a = stats(v4).p50Ms;
  const c = stats(v2).p50Ms;
  return { v4Ratio1P50Ms: a, v2Ratio2P50Ms: c, ratioP50: Math.round((c / a) * 100) / 100, coldFirstMs: Math.round(cold.latencies[0]!) };
}

function bar(i: number): Record<string, unknown> {
  return {
    type: 'bar',
    data: {
      labels: ['January', 'February', 'March', 'April', 'May', 'June', 'July'],
      datasets: [
        { label: 'Revenue', data: [12, 19, 3, 5, 2, 3, i % 1000], backgroundColor: '#3B82F6' },
        { label: 'Cost', data: [8, 11, 6, 4, 3, 2, 7], backgroundColor: '#EF4444' },
      ],
    },
  };
}

function page(i: number, chartjs: 2 | 3 | 4, devicePixelRatio: number): PageRequest {
  return { config: bar(i), width: 500, height: 300, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null, chartjs, devicePixelRatio };
}

function stats(ms: number[]): { p50Ms: number; meanMs: number; n: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  return { p50Ms: r(sorted[Math.floor(sorted.length / 2)]!), meanMs: r(ms.reduce((a, b) => a + b, 0) / ms.length), n: ms.length };
}

async function timed(pool: Renderer, req: PageRequest): Promise<number> {
  const t = performance.now();
  await pool.render(req);
  return performance.now() - t;
}

export async function versionBench(opts: { n?: number; coldSamples?: number } = {}): Promise<VersionBench> {
  const n = opts.n ?? 300;
  const cfg = loadConfig({});
  const pool = new Renderer(
    { chromiumPath: cfg.chromiumPath, size: 2, renderTimeoutMs: 10000, acquireTimeoutMs: 30000, maxQueue: 100, pageMaxRenders: 100000, versionIdleMs: 300 },
    createLogger('warn'),
  );
  await pool.start();
  try {
    // cold first: every page is on Chart.js 4; the first v2 (v3) request loads that version on one
    const cold = { v2: [] as number[], v3: [] as number[] };
    for (let k = 0; k < (opts.coldSamples ?? 5); k++) {
      for (const v of [2, 3] as const) {
        const deadline = Date.now() + 20000;
        while ((pool.stats().versions?.[v] ?? 0) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        cold[`v${v}`].push(Math.round(await timed(pool, page(k, v, 1))));
      }
    }
    // alternate blocks so both versions see the same machine state; warm each first
    for (let i = 0; i < 30; i++) {
      await timed(pool, page(i, 4, 1));
      await timed(pool, page(i, 2, 2));
    }
    const v4: number[] = [];
    const v2: number[] = [];
    for (let b = 0; b < 6; b++) {
      for (let i = 0; i < n / 6; i++) v4.push(await timed(pool, page(1000 + b * n + i, 4, 1)));
      for (let i = 0; i < n / 6; i++) v2.push(await timed(pool, page(1000 + b * n + i, 2, 2)));
    }
    const a = stats(v4);
    const c = stats(v2);
    const f4 = (await pool.floor(page(1, 4, 1), n)).msPerRender;
    const f2 = (await pool.floor(page(1, 2, 2), n)).msPerRender;
    const r2 = (x: number) => Math.round(x * 100) / 100;
    return {
      v4Ratio1: a,
      v2Ratio2: c,
      ratioP50: Math.round((c.p50Ms / a.p50Ms) * 100) / 100,
      ratioMean: Math.round((c.meanMs / a.meanMs) * 100) / 100,
      inPage: { v4Ratio1Ms: r2(f4), v2Ratio2Ms: r2(f2), ratio: r2(f2 / f4) },
      coldFirstMs: { ...cold, max: Math.max(...cold.v2, ...cold.v3) },
    };
  } finally {
    await pool.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.env.BENCH_BASE && process.env.BENCH_KEY) {
    const h = await httpVersionBench(process.env.BENCH_BASE, process.env.BENCH_KEY, Number(process.env.BENCH_N ?? 300));
    console.log(h ? JSON.stringify(h) : 'GET /chart is not served there');
  }
  const r = await versionBench({ n: Number(process.env.BENCH_N ?? 300) });
  console.log(JSON.stringify(r, null, 2));
  console.log(`v2 bar 1000x600 (ratio 2) / v4 bar 500x300: ${r.ratioP50}x by p50 (target <= 1.5), ${r.inPage.ratio}x in the page; cold first request max ${r.coldFirstMs.max} ms (target < 1000)`);
}
