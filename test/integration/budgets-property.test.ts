// Property (issue 25): any anonymous request within the open endpoint's size limits, of any
// chart type and scale type, is answered within the anonymous budget: 200, or 400 when a cap,
// an in-page budget or the anonymous deadline (ANONYMOUS_RENDER_TIMEOUT_MS, its default 1 s
// here) stopped it; never a 5xx. Chart.js 4 on GET /v1/open/chart, 2 and 3 on keyless /chart.
// Statuses only, never times. Fixed seed (BUDGET_SEED replays another); the configs come from
// test/helpers/budgetConfigs.ts, which bench/anonymous-slowest.ts times.
import { expect } from 'chai';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { anonymousCase, sendAnonymous } from '../helpers/budgetConfigs.js';

const SEED = Number(process.env.BUDGET_SEED ?? 25_001);
/** Renders per Chart.js version: few, since each may take the whole deadline and a page reset. */
const RUNS = 14;

describe('property: every anonymous chart is answered 200 or 400 within the anonymous budget, never a 5xx', function () {
  this.timeout(240_000);
  let s: TestServer;
  const seen: Record<string, number> = {};
  before(async () => (s = await startTestServer({ poolSize: 1, openRendersPerHour: 1_000_000, quickchartAnonymous: true, anonymousRenderTimeoutMs: 1000 })));
  after(() => s?.stop());

  for (const v of [4, 2, 3] as const) {
    it(`Chart.js ${v} (${v === 4 ? 'GET /v1/open/chart' : 'keyless POST /chart'}): ${RUNS} generated configs`, async () => {
      await fc.assert(
        fc.asyncProperty(anonymousCase(v), async (c) => {
          const r = await sendAnonymous(s.url, c);
          seen[r.status] = (seen[r.status] ?? 0) + 1;
          expect([200, 400], `${r.status} ${r.error} for ${JSON.stringify(c.config).slice(0, 400)}`).to.include(r.status);
        }),
        { seed: SEED + v, numRuns: RUNS, endOnFailure: true },
      );
    });
  }

  it('the generator exercised both answers, and the pool kept every page', () => {
    // a generator that only made refusals (or only images) would prove nothing
    expect(seen[200] ?? 0, JSON.stringify(seen)).to.be.above(0);
    expect(seen[400] ?? 0, JSON.stringify(seen)).to.be.above(0);
    const stats = s.deps.pool.stats();
    expect(stats.pagesCrashed ?? 0).to.equal(0);
    expect(stats.available + stats.borrowed).to.equal(stats.size);
  });
});
