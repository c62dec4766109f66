// Rate-limit windows and trial sign-ups on every backend: each check-and-change is atomic, also
// between two instances sharing one PostgreSQL database.
import { expect } from 'chai';
import type { Store } from '../../src/store/types.js';
import type { RateLimits } from '../../src/rules/rateLimit.js';
import { eachStore } from '../helpers/stores.js';
import { anotherInstance } from '../helpers/instances.js';

const T0 = Date.UTC(2025, 3, 1, 10, 0, 0);
const limits: RateLimits = { perMinute: 60, perHour: 1000, burst: 10 };

/** The store, and a second instance on the same database when the backend has one. */
async function instances(store: Store, backend: Parameters<typeof anotherInstance>[1]): Promise<{ stores: Store[]; close(): Promise<void> }> {
  const second = backend.name === 'PostgreSQL' ? await anotherInstance(store, backend) : null;
  return { stores: second ? [store, second] : [store], close: async () => second?.close() };
}

eachStore('rate-limit windows', (store, backend) => {
  it('20 parallel hits on a bucket of 10 allow exactly 10 (two instances on PostgreSQL)', async () => {
    const { stores, close } = await instances(store(), backend);
    try {
      const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % stores.length]!.rateLimits.hit('acct', limits, T0)));
      expect(decisions.filter((d) => d.allowed)).to.have.length(10);
      const refused = decisions.find((d) => !d.allowed)!;
      expect(refused.retryAfterS).to.be.greaterThan(0);
    } finally {
      await close();
    }
  });

  it('peek takes nothing; the bucket refills with time; subjects are apart', async () => {
    const r = store().rateLimits;
    for (let i = 0; i < 10; i++) expect((await r.hit('a', limits, T0)).allowed).to.equal(true);
    expect((await r.peek('a', limits, T0)).allowed).to.equal(false);
    expect((await r.hit('a', limits, T0)).allowed).to.equal(false);
    expect((await r.peek('b', limits, T0)).allowed).to.equal(true);
    expect((await r.hit('b', limits, T0)).allowed).to.equal(true);
    // one token a second at 60 a minute
    expect((await r.hit('a', limits, T0 + 1000)).allowed).to.equal(true);
    expect((await r.hit('a', limits, T0 + 1000)).allowed).to.equal(false);
  });
});

eachStore('trial sign-ups', (store, backend) => {
  const DAY = 86_400_000;

  it('one claim per address within the window, however many instances claim at once', async () => {
    const { stores, close } = await instances(store(), backend);
    try {
      const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % stores.length]!.trials.claim('ip1', T0, DAY)));
      expect(claims.filter((c) => c.ok)).to.have.length(1);
      for (const c of claims) if (!c.ok) expect(c.retryAt).to.equal(T0 + DAY);
    } finally {
      await close();
    }
  });

  it('a dropped claim frees the address; after the window a new claim succeeds; attach keeps it', async () => {
    const t = store().trials;
    const first = await t.claim('ip2', T0, DAY);
    expect(first.ok).to.equal(true);
    expect((await t.claim('ip2', T0 + 1, DAY)).ok).to.equal(false);
    await t.drop((first as { claimId: number }).claimId);
    const second = await t.claim('ip2', T0 + 2, DAY);
    expect(second.ok).to.equal(true);
    await t.attach((second as { claimId: number }).claimId, 'acct');
    expect(await t.claim('ip2', T0 + DAY, DAY)).to.deep.equal({ ok: false, retryAt: T0 + 2 + DAY });
    expect((await t.claim('ip2', T0 + 2 + DAY, DAY)).ok).to.equal(true);
    expect((await t.claim('ip3', T0, DAY)).ok).to.equal(true);
  });
});
