// The slowest anonymous answer over the configs of the budget property test
// (test/integration/budgets-property.test.ts: same generator, same seeds), on a one-page server
// with the default anonymous deadline (ANONYMOUS_RENDER_TIMEOUT_MS = 1000).
// node --import tsx bench/anonymous-slowest.ts [runs per version, default 14] [seed, default 25001]
import fc from 'fast-check';
import { startTestServer } from '../test/helpers/server.js';
import { anonymousCase, sendAnonymous } from '../test/helpers/budgetConfigs.js';

const runs = Number(process.argv[2] ?? 14);
const seed = Number(process.argv[3] ?? 25_001);
const s = await startTestServer({ poolSize: 1, openRendersPerHour: 1_000_000, quickchartAnonymous: true, anonymousRenderTimeoutMs: 1000 });
try {
  const rows: Array<{ v: number; status: number; ms: number; why: string; config: unknown }> = [];
  for (const v of [4, 2, 3] as const) {
    // as the test draws them: fc.sample with the test's seed gives the same sequence
    for (const c of fc.sample(anonymousCase(v), { seed: seed + v, numRuns: runs })) {
      const t = performance.now();
      const r = await sendAnonymous(s.url, c);
      const ms = performance.now() - t;
      const why = r.status === 200 ? 'image' : r.error.replace(/^\{"error":"(\w+)","detail":"/, '$1: ').slice(0, 90);
      rows.push({ v, status: r.status, ms, why, config: c.config });
      console.log(`v${v} ${r.status} ${ms.toFixed(0).padStart(5)} ms  ${why}`);
    }
  }
  const by = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).sort((a, b) => b.ms - a.ms)[0];
  const worst = by(() => true)!;
  const worst200 = by((r) => r.status === 200);
  const budget = rows.filter((r) => /budget:/.test(r.why)).length;
  console.log(`\n${rows.length} answers: ${rows.filter((r) => r.status === 200).length} x 200, ${rows.filter((r) => r.status === 400).length} x 400 (${budget} by an in-page budget or the deadline), other ${rows.filter((r) => r.status !== 200 && r.status !== 400).length}`);
  if (process.env.SHOW_SLOWEST) console.log(JSON.stringify(worst.config));
  console.log(`slowest answer: ${worst.ms.toFixed(0)} ms (v${worst.v} ${worst.status} ${worst.why}); slowest 200: ${worst200 ? `${worst200.ms.toFixed(0)} ms (v${worst200.v})` : '-'}`);
} finally {
  await s.stop();
}
