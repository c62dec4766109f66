// The comparison workloads: chartshot beside its peer (chartjs-node-canvas in one Node process)
// or a bare node:http server, measured in the same run, each row with the ratio it should reach.
import http from 'node:http';
import { loadSamples, request, summarize, treeCpuMs, type LoadResult, type Samples } from './lib.js';
import { corpus } from './corpus/corpus.js';
import type { Body } from './corpus/gen.js';
import { Peer } from './peer.js';
import { fetchOnce, wrk, wrkBare, type WrkResult } from './wrk.js';

export interface Row {
  workload: string;
  chartshot: string;
  other: string;
  ratio: number;
  /** chartshot/peer (higher is better), cost ratio (lower is better)... as the target states it. */
  ratioMeaning: string;
  target: string;
  met: boolean | null;
}

interface Ctx {
  base: string;
  /** The chartshot server's pid: its process tree (with Chromium) is what a render's CPU time counts. */
  serverPid: number;
  barePort: number;
  headers: Record<string, string>;
  quick: boolean;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Request i of a workload: the body with a nonce as the chart's first key, so no two requests
 * coalesce or hit a cache (Chart.js ignores the key). Serialised once; the nonce is spliced in.
 */
export function posts(bodies: Body[], headers: Record<string, string>) {
  const tails = bodies.map((b) => {
    const { chart, ...rest } = b;
    return ',' + JSON.stringify(chart).slice(1) + ',' + JSON.stringify(rest).slice(1);
  });
  let nonce = Date.now();
  return (i: number) => ({ method: 'POST', path: '/v1/chart', headers, body: `{"chart":{"benchNonce":${nonce++}` + tails[i % tails.length] });
}

const json = (bodies: Body[]) => bodies.map((b) => JSON.stringify(b));

export function barBody(type: 'bar' | 'doughnut', w: number, h: number): Body {
  const data = [12, 19, 3, 5, 2];
  const labels = ['A', 'B', 'C', 'D', 'E'];
  const chart = type === 'bar'
    ? { type, data: { labels, datasets: [{ label: 'Sales', data, backgroundColor: '#3B82F6' }] } }
    : { type, data: { labels, datasets: [{ data, backgroundColor: ['#3B82F6', '#EF4444', '#10B981', '#F59E0B', '#8B5CF6'] }] } };
  return { chart, width: w, height: h, backgroundColor: 'white' };
}

/** A 1200x600 line of n {x, y} points on a linear axis. */
export function xyLine(n: number): Body {
  const data = Array.from({ length: n }, (_, x) => ({ x, y: Math.round(500 + 400 * Math.sin(x / 150) + ((x * 7919) % 97)) }));
  return {
    chart: { type: 'line', data: { datasets: [{ label: 'Signal', data, borderColor: '#10B981', pointRadius: 0, borderWidth: 1 }] }, options: { scales: { x: { type: 'linear' } } } },
    width: 1200,
    height: 600,
    backgroundColor: 'white',
  };
}

const cpu = (r: LoadResult & { cpuMsPerRender?: number }) => (r.cpuMsPerRender === undefined ? '' : `, CPU ${r.cpuMsPerRender} ms/render`);
const fmtRate = (r: LoadResult) => `${r.perSecond}/s (p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms${cpu(r)})${r.errors ? `, ${r.errors} errors` : ''}`;
const fmtP50 = (r: LoadResult) => `p50 ${r.p50Ms} ms (p95 ${r.p95Ms} ms${cpu(r)})${r.errors ? `, ${r.errors} errors` : ''}`;
const fmtWrk = (r: WrkResult) => `${r.perSecond}/s (p50 ${r.p50Ms} ms)${r.non2xx ? `, ${r.non2xx} non-2xx` : ''}${r.socketErrors ? `, ${r.socketErrors}` : ''}`;

/** A side of a comparison: runs `total` requests; `pid` roots the process tree doing the work. */
type Run = { pid: number; go: (total: number) => Promise<Samples> };
type Measured = LoadResult & { cpuMsPerRender: number };
const ROUNDS = 3;

/**
 * Runs a and b for `total` requests each in alternating rounds (a b, b a, a b), so a change in
 * the shared machine's load hits both alike, and merges each side's rounds exactly. Also the CPU
 * time each side's process tree spent per render, which other load on the machine hardly moves.
 */
async function alternate(name: [string, string], conc: number, a: Run, b: Run, total: number): Promise<[Measured, Measured]> {
  const acc = [a, b].map(() => ({ latencies: [] as number[], seconds: 0, errors: 0, cpuMs: 0, statuses: {} as Record<string, number> }));
  const per = Math.max(1, Math.round(total / ROUNDS));
  for (let k = 0; k < ROUNDS; k++) {
    for (const j of k % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = j === 0 ? a : b;
      const cpu = treeCpuMs(side.pid);
      const s = await side.go(per);
      const x = acc[j]!;
      x.cpuMs += treeCpuMs(side.pid) - cpu;
      x.latencies.push(...s.latencies);
      x.seconds += s.result.seconds;
      x.errors += s.result.errors;
      for (const [code, count] of Object.entries(s.result.statuses ?? {})) x.statuses[code] = (x.statuses[code] ?? 0) + count;
    }
  }
  const [ra, rb] = acc.map((x) => ({ ...summarize(conc, x.latencies, x.seconds, x.errors, x.statuses), cpuMsPerRender: r2(x.cpuMs / x.latencies.length) })) as [Measured, Measured];
  console.log(`${name[0]} c=${conc}: ${fmtRate(ra)}\n${name[1]} c=${conc}: ${fmtRate(rb)}`);
  return [ra, rb];
}

export async function compare(ctx: Ctx): Promise<{ rows: Row[]; raw: Record<string, unknown>; peerVersions: Record<string, string> }> {
  const n = (full: number, quick: number) => (ctx.quick ? quick : full);
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  const peer = await Peer.start();
  // One runner per side and workload; a chartshot runner keeps its nonce sequence across rounds.
  const cs = (bodies: Body[], conc: number): Run => {
    const make = posts(bodies, ctx.headers);
    return { pid: ctx.serverPid, go: (total) => loadSamples(ctx.base, conc, total, make) };
  };
  const pr = (bodies: Body[], conc: number): Run => {
    const list = json(bodies);
    const go = async (total: number) => {
      const r = await peer.run(list, conc, total);
      if (r.firstError) console.log(`peer error: ${r.firstError}`);
      return { result: r, latencies: r.latencies };
    };
    return { pid: peer.pid, go };
  };
  const vsPeer = (label: string, bodies: Body[], conc: number, total: number) =>
    alternate([`chartshot ${label}`, `peer ${label}`], conc, cs(bodies, conc), pr(bodies, conc), total);
  try {
    const all = corpus.map((e) => e.body);
    const withCb = corpus.filter((e) => e.plain).map((e) => e.body);
    const twins = corpus.filter((e) => e.plain).map((e) => e.plain!);
    const noCb = corpus.filter((e) => !e.plain).map((e) => e.body);
    console.log(`corpus: ${all.length} configs, ${withCb.length} with callbacks`);

    // Warm both sides over the whole corpus (JIT, fonts, one renderer per size in the peer).
    await cs(all, 4).go(all.length);
    await pr(all, 4).go(all.length);

    // 1. Corpus mix at 4 in flight.
    const [mixC, mixP] = await vsPeer('corpus mix', all, 4, n(6, 1) * all.length);
    const [plainMixC, plainMixP] = await vsPeer('corpus without callbacks', noCb, 4, n(3, 1) * noCb.length);
    raw.corpusMix = { chartshot: mixC, peer: mixP, withoutCallbacks: { chartshot: plainMixC, peer: plainMixP } };
    rows.push({ workload: `corpus mix (${all.length} configs, ${withCb.length} with callbacks), 4 in flight`, chartshot: fmtRate(mixC), other: fmtRate(mixP), ratio: r2(mixC.perSecond / mixP.perSecond), ratioMeaning: 'chartshot/peer renders/s', target: '>= 2.0', met: mixC.perSecond / mixP.perSecond >= 2 });
    rows.push({ workload: `corpus mix, CPU time per render (server + Chromium tree vs the peer's process)`, chartshot: `${mixC.cpuMsPerRender} ms`, other: `${mixP.cpuMsPerRender} ms`, ratio: r2(mixP.cpuMsPerRender / mixC.cpuMsPerRender), ratioMeaning: 'peer CPU / chartshot CPU, less load-sensitive', target: '-', met: null });
    rows.push({ workload: `corpus without callbacks (${noCb.length}), 4 in flight`, chartshot: fmtRate(plainMixC), other: fmtRate(plainMixP), ratio: r2(plainMixC.perSecond / plainMixP.perSecond), ratioMeaning: 'chartshot/peer renders/s', target: '-', met: null });

    // 2. Callback configs against the same configs without callbacks, on chartshot (and the peer at 1).
    raw.callbacks = {};
    for (const conc of [1, 4]) {
      const total = n(12, 2) * withCb.length;
      const [cb, plain] = await alternate(['chartshot callback configs', 'chartshot the same without callbacks'], conc, cs(withCb, conc), cs(twins, conc), total);
      const cost = plain.perSecond / cb.perSecond;
      (raw.callbacks as Record<string, unknown>)[`c${conc}`] = { withCallbacks: cb, without: plain };
      rows.push({ workload: `${withCb.length} callback configs vs the same without callbacks, ${conc} in flight`, chartshot: `with ${fmtRate(cb)}`, other: `without ${fmtRate(plain)}`, ratio: r2(cost), ratioMeaning: 'cost with/without, chartshot', target: '<= 1.3', met: cost <= 1.3 });
    }
    const [cbPeer, twinPeer] = await alternate(['peer callback configs', 'peer the same without callbacks'], 1, pr(withCb, 1), pr(twins, 1), n(6, 2) * withCb.length);
    (raw.callbacks as Record<string, unknown>).peerC1 = { withCallbacks: cbPeer, without: twinPeer };
    rows.push({ workload: `the same on the peer, 1 in flight (for reference)`, chartshot: '-', other: `with ${fmtRate(cbPeer)}; without ${fmtRate(twinPeer)}`, ratio: r2(twinPeer.perSecond / cbPeer.perSecond), ratioMeaning: 'cost with/without, peer', target: '-', met: null });

    // 3. Small charts at 1 in flight: the fixed cost per request.
    raw.small = {};
    for (const type of ['bar', 'doughnut'] as const) {
      const b = [barBody(type, 100, 100)];
      await cs(b, 1).go(20);
      const [c, p] = await vsPeer(`100x100 ${type}`, b, 1, n(300, 40));
      (raw.small as Record<string, unknown>)[type] = { chartshot: c, peer: p };
      rows.push({ workload: `100x100 ${type}, 1 in flight`, chartshot: fmtP50(c), other: fmtP50(p), ratio: r2(c.p50Ms / p.p50Ms), ratioMeaning: 'chartshot p50 / peer p50', target: type === 'bar' ? 'chartshot p50 <= 3 ms' : '-', met: type === 'bar' ? c.p50Ms <= 3 : null });
    }

    // 4. Big data: a 1200x600 line of 1k, 10k, 100k {x, y} points at 1 in flight.
    raw.bigLine = {};
    for (const [points, total] of [[1000, n(60, 6)], [10000, n(30, 6)], [100000, n(12, 3)]] as const) {
      const b = [xyLine(points)];
      await cs(b, 1).go(2);
      await pr(b, 1).go(2);
      const [c, p] = await vsPeer(`line 1200x600 ${points} points`, b, 1, total);
      (raw.bigLine as Record<string, unknown>)[points] = { chartshot: c, peer: p };
      const ratio = c.p50Ms / p.p50Ms;
      rows.push({ workload: `1200x600 line, ${points.toLocaleString('en')} {x,y} points, 1 in flight`, chartshot: fmtP50(c), other: fmtP50(p), ratio: r2(ratio), ratioMeaning: 'chartshot p50 / peer p50', target: points === 100000 ? '<= 0.8' : 'linear growth', met: points === 100000 ? ratio <= 0.8 : null });
    }
  } finally {
    await peer.stop();
  }

  // 5. Cache hits with wrk, chartshot and a bare node:http server with the same bytes and headers.
  const secs = n(5, 2);
  const agent = new http.Agent({ keepAlive: true });
  const created = await request(agent, ctx.base, 'POST', '/v1/chart/create', JSON.stringify(barBody('bar', 800, 400)), ctx.headers);
  agent.destroy();
  const hits: Array<[string, string]> = [];
  if (created.status === 201) hits.push(['GET /v1/chart/{id} (memory tier)', (JSON.parse(created.body.toString()) as { url: string }).url]);
  else console.log(`POST /v1/chart/create answered ${created.status}: short-chart hit skipped`);
  const openChart = JSON.stringify({ type: 'bar', data: { labels: ['A', 'B', 'C'], datasets: [{ label: 'Open', data: [3, 1, 2] }] } });
  hits.push(['GET /v1/open/chart cache hit', `${ctx.base}/v1/open/chart?w=500&h=300&c=${encodeURIComponent(openChart)}`]);
  raw.cacheHits = {};
  for (const [name, url] of hits) {
    const path = new URL(url);
    const local = `${ctx.base}${path.pathname}${path.search}`; // PUBLIC_BASE_URL may differ from where it listens
    const first = await fetchOnce(local); // fills the cache (one miss)
    if (first.status !== 200) console.log(`${name}: first request answered ${first.status}`);
    wrk(local, 1); // warms the route
    const c = wrk(local, secs);
    const b = await wrkBare(local, ctx.barePort, secs);
    console.log(`${name}: chartshot ${fmtWrk(c)}, bare node:http ${fmtWrk(b)} (${b.bytes} bytes)`);
    (raw.cacheHits as Record<string, unknown>)[name] = { chartshot: c, bare: b };
    rows.push({ workload: `${name}, wrk ${c.connections} connections ${secs} s`, chartshot: fmtWrk(c), other: `bare node:http ${fmtWrk(b)}`, ratio: r2(c.perSecond / b.perSecond), ratioMeaning: 'chartshot/bare req/s', target: '>= 0.5', met: c.perSecond / b.perSecond >= 0.5 && c.non2xx === 0 });
  }
  return { rows: checked(rows), raw, peerVersions: peer.versions };
}

/** A workload that had errors measured something else: it meets no target. */
function checked(rows: Row[]): Row[] {
  return rows.map((r) => (/errors|non-2xx|Socket errors/.test(r.chartshot + r.other) && r.met ? { ...r, met: false } : r));
}

export function markdown(rows: Row[]): string {
  const lines = ['| workload | chartshot | peer / bare | ratio | target | met |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.workload} | ${r.chartshot} | ${r.other} | ${r.ratio} (${r.ratioMeaning}) | ${r.target} | ${r.met === null ? '-' : r.met ? 'yes' : 'no'} |`);
  return lines.join('\n');
}
