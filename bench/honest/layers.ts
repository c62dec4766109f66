// Where a render's cost goes, layer by layer (issue 27): the same corpus and bar as the headline
// rows, measured without the layers above each step, on a Renderer in this process after the
// server and the peer have stopped:
//   - in the page, the corpus in turn: each config once per cycle, timed in the page (the floor
//     repeats one config, which keeps V8's code for it hot; real traffic changes config each time);
//   - the render use case (RenderService: the budgets, image limit and deadline of a keyed caller)
//     with no HTTP, at 4 in flight on the server's number of pages: the pool, CDP and the page;
//   - the 100x100 bar at 1 in flight through the same, p50.
// Against the HTTP rows of the same run, the difference is what HTTP, auth, limits and the store
// cost. Not side by side with the peer: a decomposition, not a ratio.
import { cpus } from 'node:os';
import { loadConfig, type Config } from '../../src/config.js';
import type { Renderer } from '../../src/render/renderer.js';
import { createLogger } from '../../src/log.js';
import { startPool } from '../../src/render/renderer.js';
import { RenderService } from '../../src/services/render.js';
import { deadlinesFor } from '../../src/render/budgets.js';
import type { RenderRequest } from '../../src/chart/request.js';
import type { PageRequest } from '../../src/render/wire.js';
import { barBody } from '../compare.js';
import type { Body } from '../corpus/gen.js';
import type { CorpusEntry } from './corpus.js';
import { cpuSnapshot, perRender, splitDelta } from './procs.js';

export interface Layers {
  /** in-page ms per render, the corpus in turn (mean over cycles) */
  inPageMixMs: number;
  /** CPU ms per render by process while the page ran the corpus in turn (node = this process) */
  inPageMixCpu: Record<string, number>;
  /** the render use case with no HTTP, corpus at 4 in flight */
  service: { concurrency: number; pages: number; renders: number; perSecond: number; cpu: Record<string, number> };
  /** the 100x100 bar at 1 in flight through the render use case, p50 ms */
  bar100P50Ms: number;
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** A keyed (paid) caller's request, as the server makes it from a POST /v1/chart body. */
export function renderRequest(b: Body): RenderRequest {
  return { config: b.chart as RenderRequest['config'], width: b.width, height: b.height, format: 'png', backgroundColor: b.backgroundColor ?? null, allowFunctions: true, watermark: null };
}

function pageRequest(e: CorpusEntry): PageRequest {
  const b = e.body;
  return { config: b.chart, width: b.width, height: b.height, format: 'png', backgroundColor: b.backgroundColor, allowFunctions: e.callbacks, watermark: null };
}

/** The render use case as the server builds it for a keyed caller: budgets, image limit, deadlines. */
export function keyedRenderService(pool: Renderer, config: Config): RenderService {
  return new RenderService(pool, undefined, { maxImageBytes: config.maxImageBytes, deadlines: deadlinesFor(config.renderTimeoutMs, config.anonymousRenderTimeoutMs, config.trialRenderTimeoutMs) });
}

export async function measureLayers(dataDir: string, corpus: CorpusEntry[], cycles: number, renders: number, warmCycles: number): Promise<Layers> {
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, POOL_SIZE: String(cpus().length), LOG_LEVEL: 'silent' });
  const pool = await startPool(config, createLogger('silent'));
  const roots = { server: process.pid, loadGenerator: process.pid };
  try {
    const service = keyedRenderService(pool, config);
    const reqs = corpus.map((e) => renderRequest(e.body));
    const run = async (n: number, conc: number) => {
      let next = 0;
      await Promise.all(Array.from({ length: conc }, async () => {
        while (next < n) {
          const i = next++;
          await service.render(reqs[i % reqs.length]!, 'bench');
        }
      }));
    };
    // warm the pages and this process over the corpus as the server was warmed (50 times)
    await run(corpus.length * warmCycles, 4);
    const before = cpuSnapshot(roots);
    const t0 = performance.now();
    await run(renders, 4);
    const seconds = (performance.now() - t0) / 1000;
    const serviceCpu = withoutLoadGenerator(perRender(splitDelta(before, cpuSnapshot(roots)), renders));

    const bar = renderRequest(barBody('bar', 100, 100));
    for (let i = 0; i < 30; i++) await service.render(bar, 'bench');
    const barMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await service.render(bar, 'bench');
      barMs.push(performance.now() - t);
    }

    // the page alone, the corpus in turn (one lease per render: floor(req, 1))
    const page = corpus.map(pageRequest);
    for (const p of page) await pool.floor(p, 1);
    let inPage = 0;
    const mixBefore = cpuSnapshot(roots);
    for (let c = 0; c < cycles; c++) for (const p of page) inPage += (await pool.floor(p, 1)).msPerRender;
    const mixCpu = withoutLoadGenerator(perRender(splitDelta(mixBefore, cpuSnapshot(roots)), cycles * page.length));
    return {
      inPageMixMs: r2(inPage / (cycles * page.length)),
      inPageMixCpu: mixCpu,
      service: { concurrency: 4, pages: config.poolSize, renders, perSecond: r2(renders / seconds), cpu: serviceCpu },
      bar100P50Ms: r2(median(barMs)),
    };
  } finally {
    await pool.close();
  }
}

/** This process is both the "server" and the load generator here: its CPU is the node part. */
function withoutLoadGenerator(cpu: Record<string, number>): Record<string, number> {
  const { 'load generator': _lg, peer: _p, 'box (all processes on the machine)': box, 'chartshot side (server + Chromium + load generator)': _side, ...rest } = cpu;
  const total = r2(Object.values(rest).reduce((s, v) => s + v, 0));
  return { ...rest, total, box: box! };
}
