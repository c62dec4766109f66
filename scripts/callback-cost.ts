// Issue 12 item 1: what a callback render costs next to the same render without callbacks, through
// PagePool.render, at 1 and at 4 in flight. Usage: node --import tsx scripts/callback-cost.ts [seconds]
import { PagePool } from '../src/render/pool.js';
import { createLogger } from '../src/log.js';
import { loadConfig } from '../src/config.js';

const seconds = Number(process.argv[2] ?? 4);
const labels = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const bar = (tick?: string) => ({
  type: 'bar',
  data: { labels, datasets: [{ label: 'Revenue', data: labels.map((_, i) => (i * 37) % 100) }, { label: 'Cost', data: labels.map((_, i) => (i * 53) % 90) }] },
  options: { plugins: { title: { display: true, text: 'Sales' } }, ...(tick && { scales: { y: { ticks: { callback: tick } } } }) },
});
const req = (fn: boolean) => ({
  config: bar(fn ? "function (v) { return '$' + v; }" : undefined),
  width: 800,
  height: 400,
  format: 'png' as const,
  backgroundColor: '#fff',
  allowFunctions: true,
  watermark: null,
});

async function run(pool: PagePool, fn: boolean, c: number): Promise<{ rps: number; p50: number; p95: number }> {
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const r = await pool.render(req(fn));
        if (r.ranFunctions !== fn) throw new Error('ranFunctions mismatch');
        lat.push(performance.now() - t);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return { rps: lat.length / seconds, p50: lat[Math.floor(lat.length / 2)]!, p95: lat[Math.floor(lat.length * 0.95)]! };
}

const cfg = loadConfig({ ...process.env, LOG_LEVEL: 'error' } as NodeJS.ProcessEnv);
const pool = new PagePool(
  { chromiumPath: cfg.chromiumPath, size: 2, renderTimeoutMs: 10000, acquireTimeoutMs: 30000, maxQueue: 100, pageMaxRenders: 100000 },
  createLogger('error'),
);
await pool.start();
const f = (n: number) => n.toFixed(1);
for (const c of [1, 4]) {
  await run(pool, false, c); // warm
  const plain = await run(pool, false, c);
  const cb = await run(pool, true, c);
  await new Promise((r) => setTimeout(r, 300));
  console.log(
    `c=${c} plain ${f(plain.rps)}/s p50 ${f(plain.p50)} p95 ${f(plain.p95)} ms | callback ${f(cb.rps)}/s p50 ${f(cb.p50)} p95 ${f(cb.p95)} ms | cost ratio (plain rps / callback rps) ${(plain.rps / cb.rps).toFixed(2)}`,
  );
}
const s = pool.stats();
console.log(`pages created ${s.pagesCreated} destroyed ${s.pagesDestroyed}`);
await pool.close();
