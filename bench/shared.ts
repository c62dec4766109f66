// With DATABASE_URL and REDIS_URL set: the cost of the shared store beside SQLite, in the same
// run. A second server on PostgreSQL + Redis (memory tier off, so cache hits come from Redis)
// against the SQLite server the rest of the bench measures.
import http from 'node:http';
import { loadSamples, request, summarize, treeCpuMs, type LoadResult } from './lib.js';
import { wrk, fetchOnce, type WrkResult } from './wrk.js';

export interface SharedCtx {
  /** The SQLite server and an enterprise key on it. */
  sqlite: { base: string; pid: number; headers: Record<string, string> };
  /** The PostgreSQL + Redis server and an enterprise key on it. */
  shared: { base: string; pid: number; headers: Record<string, string> };
  quick: boolean;
}

export interface SharedRow {
  workload: string;
  chartshot: string;
  other: string;
  ratio: number;
  ratioMeaning: string;
  target: string;
  met: boolean | null;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

/** Rounds of equal length as one: mean rate, mean of the rounds' percentiles, errors summed. */
function merged(rs: WrkResult[]): WrkResult {
  const mean = (f: (r: WrkResult) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
  return {
    url: rs[0]!.url,
    connections: rs[0]!.connections,
    seconds: rs.reduce((a, r) => a + r.seconds, 0),
    perSecond: Math.round(mean((r) => r.perSecond)),
    p50Ms: r2(mean((r) => r.p50Ms)),
    p99Ms: r2(mean((r) => r.p99Ms)),
    non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
    socketErrors: rs.map((r) => r.socketErrors).find((e) => e !== null) ?? null,
  };
}

/** 100x100 bars, each with its own nonce (nothing coalesces or hits a cache). */
function bars(headers: Record<string, string>) {
  return (i: number) => ({
    method: 'POST',
    path: '/v1/chart',
    body: JSON.stringify({ chart: { nonce: `s${i}-${Math.random()}`, type: 'bar', data: { labels: ['A', 'B', 'C'], datasets: [{ data: [3, 1, 2] }] } }, width: 100, height: 100, backgroundColor: 'white' }),
    headers: { ...headers, 'content-type': 'application/json' },
  });
}

export async function sharedStoreRows(ctx: SharedCtx): Promise<{ rows: SharedRow[]; raw: Record<string, unknown> }> {
  const total = ctx.quick ? 60 : 400;
  const sides = [ctx.sqlite, ctx.shared] as const;
  // warm both
  for (const s of sides) await loadSamples(s.base, 1, 50, bars(s.headers));
  // alternating rounds at 1 in flight, as the peer comparisons run (eight: the load of a shared machine drifts)
  const lat: number[][] = [[], []];
  const secs = [0, 0];
  const errs = [0, 0];
  const cpu = [0, 0];
  for (let k = 0; k < 8; k++) {
    for (const j of k % 2 === 0 ? [0, 1] : [1, 0]) {
      const s = sides[j]!;
      const c0 = treeCpuMs(s.pid);
      const r = await loadSamples(s.base, 1, Math.round(total / 8), bars(s.headers));
      cpu[j]! += treeCpuMs(s.pid) - c0;
      lat[j]!.push(...r.latencies);
      secs[j]! += r.result.seconds;
      errs[j]! += r.result.errors;
    }
  }
  const [a, b] = [0, 1].map((j) => summarize(1, lat[j]!, secs[j]!, errs[j]!, {})) as [LoadResult, LoadResult];
  const diff = r2(b.p50Ms - a.p50Ms);
  const fmt = (r: LoadResult, j: number) => `p50 ${r.p50Ms} ms (p95 ${r.p95Ms} ms, CPU ${r2(cpu[j]! / lat[j]!.length)} ms/render)${r.errors ? `, ${r.errors} errors` : ''}`;
  const rows: SharedRow[] = [
    {
      workload: '100x100 bar, 1 in flight: PostgreSQL + Redis vs SQLite',
      chartshot: fmt(b, 1),
      other: `SQLite ${fmt(a, 0)}`,
      ratio: diff,
      ratioMeaning: 'ms added at p50',
      target: '<= 1 ms',
      met: diff <= 1 && a.errors === 0 && b.errors === 0,
    },
  ];

  // cache hits: the short chart's image from Redis (shared server, memory tier off) vs the memory tier (SQLite server)
  const agent = new http.Agent({ keepAlive: true });
  const hits: string[] = [];
  for (const s of sides) {
    const body = JSON.stringify({ chart: { type: 'bar', data: { labels: ['A', 'B'], datasets: [{ data: [1, 2] }] } }, width: 800, height: 400 });
    const res = await request(agent, s.base, 'POST', '/v1/chart/create', body, { ...s.headers, 'content-type': 'application/json' });
    const path = new URL((JSON.parse(res.body.toString()) as { url: string }).url).pathname;
    hits.push(`${s.base}${path}`);
  }
  agent.destroy();
  const seconds = ctx.quick ? 4 : 8;
  for (const url of hits) {
    await fetchOnce(url);
    wrk(url, 1);
  }
  // alternating rounds (memory, Redis, Redis, memory), as the renders above: a machine whose load
  // drifts during the run weighs on both sides alike
  const rounds: WrkResult[][] = [[], []];
  for (let k = 0; k < 4; k++) {
    for (const j of k % 2 === 0 ? [0, 1] : [1, 0]) rounds[j]!.push(wrk(hits[j]!, seconds / 4));
  }
  const [memory, redis] = rounds.map(merged) as [WrkResult, WrkResult];
  const tier = (await fetchOnce(hits[1]!)).headers['x-cache-tier'];
  rows.push({
    workload: `GET /v1/chart/{id}: Redis tier (memory tier off) vs memory tier, wrk 32 connections, 4 alternating rounds of ${seconds / 4} s`,
    chartshot: `${redis.perSecond}/s (p50 ${redis.p50Ms} ms, X-Cache-Tier ${String(tier)})${redis.non2xx ? `, ${redis.non2xx} non-2xx` : ''}`,
    other: `memory tier ${memory.perSecond}/s (p50 ${memory.p50Ms} ms)`,
    ratio: r2(redis.perSecond / memory.perSecond),
    ratioMeaning: 'Redis/memory req/s',
    target: '>= 0.5',
    met: redis.perSecond / memory.perSecond >= 0.5 && redis.non2xx === 0,
  });
  return { rows, raw: { renders: { sqlite: a, shared: b }, cacheHits: { memory, redis } } };
}
