// What a callback render costs next to the same render without callbacks, through
// Renderer.render, at 1 and at 4 in flight. Usage: node --import tsx scripts/callback-cost.ts [seconds]
import { Renderer } from '../src/render/renderer.js';
import { createLogger } from '../src/log.js';
import { loadConfig } from '../src/config.js';

const seconds = Number(process.argv[2] ?? 4);
const labels = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const bar = (tick?: string) => ({
  type: 'bar',
  data: { labels, datasets: [{ label: 'Revenue', data: labels.map((_, i) => (i * 37) % 100) }, { label: 'Cost', data: labels.map((_, i) => (i * 53) % 90) }] },
  options: { plugins: { title: { display: true, text: 'Sales' } }, ...(tick && { scales: { y: { ticks: { callback: tick } } } }) },
});
// pure: provably side-effect free (renderer-page/pure.js), no reset; impure: writes a global, reset
const TICKS = { plain: undefined, pure: "function (v) { return '$' + v; }", impure: "function (v) { window.seen = v; return '$' + v; }" };
type Mode = keyof typeof TICKS;
const req = (mode: Mode) => ({
  config: bar(TICKS[mode]),
  width: 800,
  height: 400,
  format: 'png' as const,
  backgroundColor: '#fff',
  allowFunctions: true,
  watermark: null,
});

async function run(pool: Renderer, mode: Mode, c: number): Promise<{ rps: number; p50: number; p95: number }> {
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const r = await pool.render(req(mode));
        if (r.ranFunctions !== (mode !== 'plain')) throw new Error('ranFunctions mismatch');
        lat.push(performance.now() - t);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return { rps: lat.length / seconds, p50: lat[Math.floor(lat.length / 2)]!, p95: lat[Math.floor(lat.length * 0.95)]! };
}

const cfg = loadConfig({ ...process.env, LOG_LEVEL: 'error' } as NodeJS.ProcessEnv);
const pool = new Renderer(
  { chromiumPath: cfg.chromiumPath, size: 2, renderTimeoutMs: 10000, acquireTimeoutMs: 30000, maxQueue: 100, pageMaxRenders: 100000 },
  createLogger('error'),
);
await pool.start();
const f = (n: number) => n.toFixed(1);
for (const c of [1, 4]) {
  await run(pool, 'plain', c); // warm
  const plain = await run(pool, 'plain', c);
  const line = [`c=${c} plain ${f(plain.rps)}/s p50 ${f(plain.p50)} p95 ${f(plain.p95)} ms`];
  for (const mode of ['pure', 'impure'] as const) {
    const cb = await run(pool, mode, c);
    await new Promise((r) => setTimeout(r, 300));
    line.push(`${mode} callback ${f(cb.rps)}/s p50 ${f(cb.p50)} p95 ${f(cb.p95)} ms, cost x${(plain.rps / cb.rps).toFixed(2)}`);
  }
  console.log(line.join(' | '));
}
const s = pool.stats();
console.log(`pages created ${s.pagesCreated} destroyed ${s.pagesDestroyed} resets ${s.pageResets}`);
await pool.close();
