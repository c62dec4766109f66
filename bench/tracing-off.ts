// What tracing costs while it is off (no OTEL endpoint): the no-op wrappers a request passes
// through (2 guard steps, admission wait and page render spans, the route note), against the
// same work called directly. `node --import tsx bench/tracing-off.ts`
import { tracer } from '../src/tracing.js';

const N = 2_000_000;
const work = async () => 1;
const next = async () => {};

async function time(label: string, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 100_000; i++) await fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fn();
  const ns = Number(process.hrtime.bigint() - t0) / N;
  console.log(`${label}: ${ns.toFixed(1)} ns per call`);
  return ns;
}

const direct = await time('direct call', work);
const span = await time('tracer().span (off)', () => tracer().span('page render', { a: 1 }, work));
const step = await time('tracer().step (off)', () => tracer().step('auth', (n) => n(), next));
const perRequest = 2 * (step - direct) + 2 * (span - direct);
console.log(`per render (2 steps + 2 spans) beyond direct calls: ${perRequest.toFixed(0)} ns`);
