// What a render stopped at its deadline costs the pool: its script interrupted
// (Runtime.terminateExecution) and the page reset, against the page replaced (a new context,
// page and harness). Times the next render after each stopped one on a one-page pool: the
// page must be back before it can start. node --import tsx bench/interrupt.ts [rounds]
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { startPool } from '../src/main.js';
import { RenderPage } from '../src/render/page.js';
import type { PageRequest } from '../src/render/renderer.js';

const rounds = Number(process.argv[2] ?? 10);
const log = pino({ level: process.env.BENCH_LOG ?? 'silent' }) as never;
const pool = await startPool({ ...loadConfig({ POOL_SIZE: '1', LOG_LEVEL: 'silent', ACQUIRE_TIMEOUT_MS: '60000' }) }, log);
const base: PageRequest = {
  config: { type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ data: [1, 2, 3] }] } },
  width: 400,
  height: 300,
  format: 'png',
  backgroundColor: '#fff',
  allowFunctions: true,
  watermark: null,
};
const runaway: PageRequest = {
  ...base,
  config: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { scales: { y: { ticks: { callback: 'function (v) { while (true) {} }' } } } } },
  deadlineMs: 300,
};

// where a replacement's time goes: closing the old page's context, creating the new page
const phases: Record<string, number[]> = { destroyPage: [], createPage: [] };
for (const name of Object.keys(phases)) {
  const method = name === 'destroyPage' ? 'destroy' : 'create';
  // the page factory (src/render/pageFactory.ts) is what generic-pool calls for both
  const target = (pool as unknown as { factory: Record<string, (...a: unknown[]) => Promise<unknown>> }).factory;
  const original = target[method]!;
  target[method] = async function (this: unknown, ...a: unknown[]) {
    const t = performance.now();
    try {
      return await original.apply(this, a);
    } finally {
      phases[name]!.push(performance.now() - t);
    }
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(mode: 'interrupt+reset' | 'replace'): Promise<void> {
  const take = RenderPage.prototype.takeInterruption;
  // replace: the pool is told the interrupted script did not stop, so it destroys the page
  if (mode === 'replace') {
    RenderPage.prototype.takeInterruption = function (this: RenderPage) {
      const interruption = take.call(this);
      return interruption && interruption.then(() => false);
    };
  }
  const next: number[] = [];
  const plain: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      for (let j = 0; j < 3; j++) {
        const t = performance.now();
        await pool.render(base);
        plain.push(performance.now() - t);
      }
      await pool.render(runaway).then(() => { throw new Error('the runaway render returned'); }, (e: { kind?: string }) => { if (e.kind !== 'timeout') throw e; });
      const t = performance.now();
      await pool.render(base);
      next.push(performance.now() - t);
    }
  } finally {
    RenderPage.prototype.takeInterruption = take;
  }
  const s = pool.stats();
  for (const [name, xs] of Object.entries(phases)) if (xs.length) console.log(`  ${name}: median ${median(xs).toFixed(0)} ms over ${xs.length}`), (xs.length = 0);
  console.log(`${mode.padEnd(16)} next render after a stopped one: median ${median(next).toFixed(0)} ms (min ${Math.min(...next).toFixed(0)}, max ${Math.max(...next).toFixed(0)}); a plain render: median ${median(plain).toFixed(1)} ms; pages created ${s.pagesCreated}, destroyed ${s.pagesDestroyed}, interrupts ${s.renderInterrupts}`);
}

try {
  await measure('interrupt+reset');
  await measure('replace');
  await measure('interrupt+reset');
} finally {
  await pool.close();
}
