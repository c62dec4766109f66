// What a generation reports to usage analytics (ChartService.generate): its render time, and
// whether it was served without a render of its own (it joined an identical render in flight),
// which /usage/analytics counts in quickStats.cacheHitRate. A fake renderer and recorder: the
// store side of cacheHit (usage_daily.cache_hits) is tested with the stores.
import { expect } from 'chai';
import { ChartService, type GenerationOutcome, type UsageRecorder } from '../../src/services/charts.js';
import type { RenderService, RenderedImage } from '../../src/services/render.js';
import { PLANS } from '../../src/rules/plans.js';

const auth = {
  account: { id: 'acct_1', status: 'active', plan: 'starter' },
  key: { kind: 'live' },
  plan: PLANS.starter,
} as never;

function service(coalesced: boolean) {
  const outcomes: GenerationOutcome[] = [];
  const renderer = {
    render: async (): Promise<RenderedImage> => ({ body: Buffer.from('png'), contentType: 'image/png', format: 'png', renderMs: 12.5, coalesced, digest: 'd', pageClean: true }),
    zone: { timezone: 'UTC', locale: 'en-US' },
  } as unknown as RenderService;
  const usage: UsageRecorder = {
    admit: async () => ({
      commit: async (o) => void outcomes.push(o),
      commitWith: async (o, write) => {
        await write(null);
        outcomes.push(o);
      },
      countNow: async () => ({ finish: async (o) => void outcomes.push(o), takeBack: async () => {} }),
      release: async () => {},
    }),
  };
  return { charts: new ChartService(renderer, usage), outcomes };
}

describe('generation outcome (usage analytics)', () => {
  const fields = { chart: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } }, width: 100, height: 100 };

  it('a render of its own: its render time, not a cache hit', async () => {
    const { charts, outcomes } = service(false);
    await charts.renderForCaller(auth, fields);
    await charts.generate(auth, fields, async (_req, _img, counted) => counted(async () => 1));
    expect(outcomes).to.deep.equal([{ renderMs: 12.5, cacheHit: false }, { renderMs: 12.5, cacheHit: false }]);
  });

  it('one that joined an identical render in flight is a cache hit (cacheHitRate was 0 whatever happened: found by an outside probe)', async () => {
    const { charts, outcomes } = service(true);
    await charts.renderForCaller(auth, fields);
    await charts.generate(auth, fields, async () => 'kept');
    expect(outcomes.map((o) => o.cacheHit)).to.deep.equal([true, true]);
  });
});
