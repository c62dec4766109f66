// The in-page floor: what drawing and encoding alone cost, timed inside a renderer page
// (window.chartshot.floor(req, n): parse, clean, Chart.js build + draw, PNG encode, n times in one
// call, no CDP or HTTP inside the timing). A pool of one page, in this process, after the server
// stopped: the floor is drawing's best case on this machine.
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startPool } from '../../src/render/renderer.js';
import type { PageRequest } from '../../src/render/wire.js';
import { barBody, xyLine } from '../compare.js';
import type { Body } from '../corpus/gen.js';
import type { CorpusEntry } from './corpus.js';

export interface Floors {
  /** ms per render, by corpus index */
  perConfigMs: number[];
  bar100Ms: number;
  doughnut100Ms: number;
  line100kMs: number;
  rendersEach: number;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

function pageRequest(b: Body, allowFunctions: boolean): PageRequest {
  return { config: b.chart, width: b.width, height: b.height, format: 'png', backgroundColor: b.backgroundColor, allowFunctions, watermark: null };
}

export async function measureFloors(dataDir: string, corpus: CorpusEntry[], each: number): Promise<Floors> {
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, POOL_SIZE: '1', LOG_LEVEL: 'silent' });
  const pool = await startPool(config, createLogger('silent'));
  try {
    // the median of k single renders, each timed in the page: a render the machine's other
    // load interrupted moves a mean, hardly a median
    const floor = async (b: Body, cb: boolean, k: number) => {
      const req = pageRequest(b, cb);
      await pool.floor(req, 2); // this config's first renders (fonts, shapes) are not its cost
      const ms: number[] = [];
      for (let i = 0; i < k; i++) ms.push((await pool.floor(req, 1)).msPerRender);
      ms.sort((x, y) => x - y);
      return r2(ms[Math.floor((ms.length - 1) / 2)]!);
    };
    const perConfigMs: number[] = [];
    for (const e of corpus) perConfigMs.push(await floor(e.body, e.callbacks, each));
    return {
      perConfigMs,
      bar100Ms: await floor(barBody('bar', 100, 100), false, each * 4),
      doughnut100Ms: await floor(barBody('doughnut', 100, 100), false, each * 4),
      line100kMs: await floor(xyLine(100000), false, Math.max(2, Math.round(each / 5))),
      rendersEach: each,
    };
  } finally {
    await pool.close();
  }
}
