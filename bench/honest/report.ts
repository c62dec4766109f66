// The markdown summary of one honest bench run (bench/honest/results.md): the headline table with
// ratios and targets, CPU per render by process, and every config beside its floor.
import type { WrkResult } from '../wrk.js';
import type { Floors } from './floor.js';
import type { Layers } from './layers.js';
import type { RoundRatios, SideResult } from './run.js';

interface Pair {
  chartshot: SideResult;
  peer: SideResult;
}

interface Results {
  date: string;
  machine: { cores: number; cpu?: string; node: string };
  quick: boolean;
  seed: number;
  rounds: number;
  /** rounds of the corpus rows (absent before 2026-11-27: `rounds` then) */
  corpusRounds?: number;
  seconds: number;
  loadAverageAtStart: number[];
  loadAverageAtEnd: number[];
  /** % of the machine's CPU time the hypervisor gave other guests during the run (absent before 2026-11-27) */
  stolenPercent?: number | null;
  peer: { mode: string; versions: Record<string, string> };
  corpus: Array<{ name: string; type: string; size: string; sizeClass: string; callbacks: boolean; unicode: boolean }>;
  corpusC1: Pair;
  corpusC4: Pair;
  small: Record<'bar' | 'doughnut', Pair>;
  /** absent before 2026-11-27 */
  smallWarm?: { renders: number; bar: Pair; doughnut: Pair };
  line100k: Pair;
  cacheHits: Record<string, { chartshot: WrkResult; bare: WrkResult & { bytes: number } }>;
  floor: Floors;
  /** absent in results written before the layers were measured */
  layers?: Layers;
  /** chartshot alone over HTTP, the c4 rows' renders in one run (absent before 2026-11-27's afternoon) */
  corpusC4Alone?: SideResult;
  perConfig: Array<{ name: string; callbacks: boolean; unicode: boolean; chartshotMs: number; peerMs: number; ratio: number; floorMs: number }>;
  sums: { chartshotMs: number; peerMs: number; floorMs: number; ratio: number };
  efficiency: { meanFloorMs: number; floorAllowsPerSecond: number; measuredC4PerSecond: number; efficiencyC4: number; peerC4PerSecond: number };
  ratios: { corpusC1: number; corpusC4: number };
  /** absent before 2026-11-27 */
  roundRatios?: { corpusC1: RoundRatios; corpusC4: RoundRatios };
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const SIDE = 'chartshot side (server + Chromium + load generator)';
const yes = (ok: boolean) => (ok ? 'yes' : 'no');
const errs = (s: SideResult) => (s.errors ? `, **${s.errors} errors**` : '');
const rate = (s: SideResult) => `${s.perSecond}/s (p50 ${s.p50Ms} ms${errs(s)})`;

/** CPU time the hypervisor stole (/proc/stat steal): on a shared host it moves every rate, and
 *  chartshot's (several processes handing work to each other) more than the peer's one process. */
function stolenNote(p: number | null | undefined): string {
  if (p === undefined || p === null) return '';
  return `; CPU stolen by the host: ${p}% of the run${p > 5 ? ' (**other guests took the CPU: latencies and rates are not this machine\'s**)' : ''}`;
}

/** The corpus ratios round by round: how far the machine moved them within this run. */
function spread(r: Results): string[] {
  if (!r.roundRatios) return [];
  const line = (k: '1' | '4', x: RoundRatios, whole: number) =>
    `| corpus at ${k} in flight | ${whole} | ${x.median} | ${x.q1} - ${x.q3} | ${x.min} - ${x.max} | ${x.n} |`;
  return [
    "The corpus ratios round by round (chartshot's renders/s over the peer's in the same pair of rounds): the spread is what this machine's changing load does to one ratio within a run. A change in chartshot smaller than the interquartile range is not resolved by one run; bench/ab.ts compares two builds side by side.",
    '',
    '| workload | ratio (all rounds) | median of the rounds | interquartile range | range | rounds |',
    '|---|---|---|---|---|---|',
    line('1', r.roundRatios.corpusC1, r.ratios.corpusC1),
    line('4', r.roundRatios.corpusC4, r.ratios.corpusC4),
    '',
  ];
}

export function summaryMarkdown(r: Results): string {
  const { corpusC1: c1, corpusC4: c4, small, line100k: big } = r;
  const cbCount = r.corpus.filter((e) => e.callbacks).length;
  const sizes = r.corpus.map((e) => e.size.split('x').map(Number) as [number, number]);
  const types = [...new Set(r.corpus.map((e) => e.type))];
  const rows: string[] = [
    '| workload | chartshot | peer / bare | ratio | target | met |',
    '|---|---|---|---|---|---|',
    `| corpus at 1 in flight | ${rate(c1.chartshot)} | ${rate(c1.peer)} | ${r.ratios.corpusC1} | >= 2.0 | ${yes(r.ratios.corpusC1 >= 2)} |`,
    `| corpus at 4 in flight | ${rate(c4.chartshot)} | ${rate(c4.peer)} | ${r.ratios.corpusC4} | >= 2.0 | ${yes(r.ratios.corpusC4 >= 2)} |`,
    ...([['1', c1], ['4', c4]] as const).map(([k, x]) => {
      const c = x.chartshot.cpu[SIDE]!;
      return `| CPU per render, corpus at ${k} in flight (chartshot: server + Chromium + load generator; peer: its process) | ${c} ms | ${x.peer.cpu.peer} ms | ${r2(x.peer.cpu.peer! / c)} (peer/chartshot; moves less with the machine's load than renders/s) | - | - |`;
    }),
    `| per-config medians at 1 in flight, summed | ${r.sums.chartshotMs} ms | ${r.sums.peerMs} ms | ${r.sums.ratio} (peer/chartshot) | - | - |`,
    `| efficiency at 4 in flight (measured / what the in-page floor allows on ${r.machine.cores} cores) | ${r.efficiency.measuredC4PerSecond}/s of ${r.efficiency.floorAllowsPerSecond}/s (floor ${r.efficiency.meanFloorMs} ms per render, mean) | - | ${r.efficiency.efficiencyC4} | >= 0.75 | ${yes(r.efficiency.efficiencyC4 >= 0.75)} |`,
  ];
  for (const t of ['bar', 'doughnut'] as const) {
    const p = small[t];
    const ratio = r2(p.chartshot.p50Ms / p.peer.p50Ms);
    rows.push(`| 100x100 ${t}, 1 in flight, p50 | ${p.chartshot.p50Ms} ms (p95 ${p.chartshot.p95Ms}${errs(p.chartshot)}) | ${p.peer.p50Ms} ms (p95 ${p.peer.p95Ms}) | ${ratio} (chartshot/peer) | <= 1 | ${yes(ratio <= 1)} |`);
  }
  for (const t of ['bar', 'doughnut'] as const) {
    const p = r.smallWarm?.[t];
    if (!p) continue;
    const ratio = r2(p.chartshot.p50Ms / p.peer.p50Ms);
    rows.push(`| 100x100 ${t}, 1 in flight, p50, after each side drew ${r.smallWarm!.renders} of it (steady state for a service of such charts; information) | ${p.chartshot.p50Ms} ms (p95 ${p.chartshot.p95Ms}${errs(p.chartshot)}) | ${p.peer.p50Ms} ms (p95 ${p.peer.p95Ms}) | ${ratio} (chartshot/peer) | - | - |`);
  }
  for (const [name, h] of Object.entries(r.cacheHits)) {
    const ratio = r2(h.chartshot.perSecond / h.bare.perSecond);
    const bad = h.chartshot.non2xx || h.chartshot.socketErrors ? ` **${h.chartshot.non2xx} non-2xx ${h.chartshot.socketErrors ?? ''}**` : '';
    rows.push(`| ${name}, wrk ${h.chartshot.connections} connections, ${h.chartshot.seconds} s in alternating rounds with the bare server | ${h.chartshot.perSecond}/s (p50 ${h.chartshot.p50Ms} ms)${bad} | bare node:http ${h.bare.perSecond}/s (p50 ${h.bare.p50Ms} ms, ${h.bare.bytes} bytes) | ${ratio} | >= 0.6 | ${yes(ratio >= 0.6 && !bad)} |`);
  }
  const lineRatio = r2(big.chartshot.p50Ms / big.peer.p50Ms);
  rows.push(`| 1200x600 line, 100,000 {x,y} points, 1 in flight, p50 | ${big.chartshot.p50Ms} ms${errs(big.chartshot)} | ${big.peer.p50Ms} ms | ${lineRatio} (chartshot/peer) | <= 0.8 | ${yes(lineRatio <= 0.8)} |`);

  const parts = Object.keys(c4.chartshot.cpu);
  const cpuRows = [
    `| CPU ms per render | ${parts.join(' | ')} |`,
    `|---|${parts.map(() => '---').join('|')}|`,
    ...([['chartshot, corpus at 1 in flight', c1.chartshot], ['chartshot, corpus at 4 in flight', c4.chartshot], ['peer, corpus at 1 in flight', c1.peer], ['peer, corpus at 4 in flight', c4.peer], ['chartshot, 100x100 bar', small.bar.chartshot], ['peer, 100x100 bar', small.bar.peer]] as const).map(
      ([label, s]) => `| ${label} | ${parts.map((p) => s.cpu[p]).join(' | ')} |`,
    ),
  ];

  const cfgRows = ['| config | callbacks | unicode | chartshot p50 ms | peer p50 ms | peer/chartshot | in-page floor ms | chartshot - floor ms |', '|---|---|---|---|---|---|---|---|'];
  for (const c of r.perConfig) cfgRows.push(`| ${c.name} | ${c.callbacks ? 'yes' : ''} | ${c.unicode ? 'yes' : ''} | ${c.chartshotMs} | ${c.peerMs} | ${c.ratio} | ${c.floorMs} | ${r2(c.chartshotMs - c.floorMs)} |`);

  return [
    `# Honest bench, ${r.date.slice(0, 16).replace('T', ' ')} UTC${r.quick ? ' (BENCH_QUICK: a short run, to check the bench, not to quote)' : ''}`,
    '',
    `\`npm run bench\` (bench/honest/run.ts), ${r.seconds} s. ${r.machine.cores} cores (${r.machine.cpu ?? '?'}), Node ${r.machine.node}; load average ${r.loadAverageAtStart.join(', ')} at start, ${r.loadAverageAtEnd.join(', ')} at end${r.loadAverageAtStart[0]! > r.machine.cores ? ' (**a busy machine: ratios are not reliable**)' : ''}${stolenNote(r.stolenPercent)}.`,
    `Corpus: ${r.corpus.length} configs generated from seed ${r.seed} (bench/honest/corpus.ts), types ${types.join(', ')}, ${Math.min(...sizes.map((s) => s[0]))}x${Math.min(...sizes.map((s) => s[1]))} to ${Math.max(...sizes.map((s) => s[0]))}x${Math.max(...sizes.map((s) => s[1]))}, ${cbCount} with callbacks, ${r.corpus.filter((e) => e.unicode).length} with unicode labels.`,
    `Peer: ${r.peer.mode} (bench/peer/best.mjs): ${Object.entries(r.peer.versions).map(([k, v]) => `${k} ${v}`).join(', ')}; in one Node process, N in flight = N async loops, PNG encoded on libuv's thread pool.`,
    `Each pair ran in alternating rounds (chartshot first, then peer first, ...): the corpus rows in ${r.corpusRounds ?? r.rounds}, the others in ${r.rounds}, after both were warmed over the corpus 50 times (2,400 renders each: steady state, as a long-running service and peer run; bench/warm-curve.ts). chartshot is measured over HTTP from this process (the load generator, on lean keep-alive connections: bench/rawhttp.ts); the peer renders in its own process with no HTTP.`,
    '',
    rows.join('\n'),
    '',
    ...spread(r),
    '## CPU per render, by process',
    '',
    'From /proc/<pid>/stat deltas around each round. Chromium processes that exited count where they were reaped (as renderers). "box" is the whole machine, other tenants included: on a quiet machine it is close to the sum of the parts.',
    '',
    cpuRows.join('\n'),
    '',
    `In-page floor: 100x100 bar ${r.floor.bar100Ms} ms, 100x100 doughnut ${r.floor.doughnut100Ms} ms, 100,000-point line ${r.floor.line100kMs} ms (${r.floor.rendersEach} renders per config).`,
    '',
    ...layersSection(r),
    '## Per config (1 in flight, medians)',
    '',
    cfgRows.join('\n'),
    '',
  ].join('\n');
}

/** Where a render's cost goes: the headline's HTTP rows beside the same work without HTTP, and the page alone. */
function layersSection(r: Results): string[] {
  const L = r.layers;
  if (!L) return [];
  const c4 = r.corpusC4.chartshot;
  const allows = r.efficiency.floorAllowsPerSecond;
  const eff = (perSecond: number) => r2(perSecond / allows);
  const cpu = (c: Record<string, number | undefined>) => `${c['node server']} / ${c['browser process']} / ${c.renderers}`;
  const httpTotal = c4.cpu[SIDE]!;
  return [
    '## Where the cost goes, layer by layer',
    '',
    `The same corpus at 4 in flight and the same 100x100 bar, measured without the layers above each step (bench/honest/layers.ts): on a Renderer of ${L.service.pages} pages in the bench's own process, after the server and the peer stopped (so not side by side with the peer). The render use case is the service's (RenderService: a keyed caller's budgets, image limit and deadline) with no HTTP, auth, limits or store. "In the page, the corpus in turn" is the floor's measurement with a different config each render, as traffic does (the floor repeats one config, which keeps V8's code for it hot).`,
    '',
    '| layer | corpus at 4 in flight | CPU ms per render: Node / browser / renderers (total) | efficiency (of the floor\'s ' + allows + '/s) | 100x100 bar p50 |',
    '|---|---|---|---|---|',
    `| in the page, per-config floor (one config repeated) | - | renderers' main thread ${r.efficiency.meanFloorMs} (mean) | 1 by definition | ${r.floor.bar100Ms} ms |`,
    `| in the page, the corpus in turn | - | ${cpu(L.inPageMixCpu)} (${L.inPageMixCpu.total}); timed in the page ${L.inPageMixMs} | - | - |`,
    `| render use case, no HTTP (${L.service.renders} renders) | ${L.service.perSecond}/s | ${cpu(L.service.cpu)} (${L.service.cpu.total}) | ${eff(L.service.perSecond)} | ${L.bar100P50Ms} ms |`,
    ...(r.corpusC4Alone
      ? [`| over HTTP, chartshot alone (the same renders in one run, no peer rounds between) | ${r.corpusC4Alone.perSecond}/s | ${cpu(r.corpusC4Alone.cpu)} (${r.corpusC4Alone.cpu[SIDE]}, load generator ${r.corpusC4Alone.cpu['load generator']} included) | ${eff(r.corpusC4Alone.perSecond)} | - |`]
      : []),
    `| over HTTP (the headline rows, in rounds alternating with the peer) | ${c4.perSecond}/s | ${cpu(c4.cpu)} (${httpTotal}, load generator ${c4.cpu['load generator']} included) | ${eff(c4.perSecond)} | ${r.small.bar.chartshot.p50Ms} ms |`,
    '',
    `Efficiency ${'>='} 0.75 needs at most ${r2(r.efficiency.meanFloorMs / 0.75)} ms of CPU per render on these ${r.machine.cores} cores, everything included; the renderers alone spend ${L.inPageMixCpu.renderers} ms per render on the corpus in turn with no CDP answer, no HTTP and no Node work to speak of.`,
    '',
  ];
}
