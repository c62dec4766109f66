// Rate limits, open-endpoint windows and trial claims in Redis: the Lua scripts decide exactly
// as the pure rateStep and the SQLite window do, and stay exact across two connections.
import { expect } from 'chai';
import { rateStep, type RateLimits, type RateState } from '../../src/rules/rateLimit.js';
import { redisRateLimits } from '../../src/store/redis/rateLimits.js';
import { redisOpenWindows } from '../../src/store/redis/openWindows.js';
import { redisTrials } from '../../src/store/redis/trials.js';
import type { RedisLink } from '../../src/store/redis/client.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import type { RateLimitStore } from '../../src/store/metering.js';
import { testLink } from '../helpers/redis.js';
import { openRedis } from '../../src/store/redis/index.js';
import { rng as prng } from '../../bench/corpus/gen.js';

const int = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

/** A store that must never be asked: Redis is up in these tests. */
const noFallback: RateLimitStore = {
  hit: () => Promise.reject(new Error('fallback used')),
  peek: () => Promise.reject(new Error('fallback used')),
};

describe('Redis rate limits, windows and trial claims', function () {
  this.timeout(120000);
  const links: RedisLink[] = [];
  let sqlite: SqliteStore;
  const link = async (prefix?: string) => {
    const t = await testLink(prefix);
    links.push(t.link);
    return t;
  };
  before(() => {
    sqlite = createSqliteStore(':memory:');
  });
  after(async () => {
    await Promise.all(links.map((l) => l.close()));
    await sqlite.close();
  });

  it('the Lua token bucket decides exactly as rateStep over random sequences (fixed seed)', async () => {
    const { link: l } = await link();
    const store = redisRateLimits(l, noFallback);
    const rnd = prng(20261122);
    let steps = 0;
    const seen = { allowed: 0, refused: 0 };
    for (let seq = 0; seq < 60; seq++) {
      const subject = `acct${seq}`;
      let limits: RateLimits = { perMinute: int(rnd, 1, 120), perHour: int(rnd, 1, 400), burst: int(rnd, 1, 25) };
      let now = Date.UTC(2026, 0, 1) + int(rnd, 0, 3_600_000 * 24);
      let model: RateState | null = null;
      for (let i = 0; i < 80; i++, steps++) {
        const r = rnd();
        if (r < 0.45) now += 0;
        else if (r < 0.8) now += int(rnd, 1, 5000);
        else if (r < 0.9) now += int(rnd, 60_000, 2 * 3_600_000);
        else if (r < 0.95) now -= int(rnd, 1, 3000); // another instance's clock runs behind
        else limits = { perMinute: int(rnd, 1, 120), perHour: int(rnd, 1, 400), burst: int(rnd, 1, 25) }; // plan change
        const take = rnd() < 0.85;
        const expected = rateStep(model, limits, now, take);
        const got = take ? await store.hit(subject, limits, now) : await store.peek(subject, limits, now);
        expect(got, `sequence ${seq} step ${i}`).to.deep.equal(expected.decision);
        seen[got.allowed ? 'allowed' : 'refused']++;
        if (take && expected.decision.allowed) model = expected.state;
        if (model) {
          const raw = await l.redis.hmget(`rate:${subject}`, 't', 'r', 'h', 'c');
          expect(raw.map(Number), `state after sequence ${seq} step ${i}`).to.deep.equal([model.tokens, model.refilledAt, model.hourStart, model.hourCount]);
        }
      }
    }
    expect(steps).to.equal(60 * 80);
    // the sequences reach both sides of the limits, not only one
    expect(seen.allowed).to.be.above(500);
    expect(seen.refused).to.be.above(500);
  });

  it('the Lua sliding window decides exactly as the SQLite one over random sequences (fixed seed)', async () => {
    const { link: l } = await link();
    const windows = redisOpenWindows(l, { take: () => Promise.reject(new Error('fallback used')), purge: async () => 0 });
    const rnd = prng(7);
    const windowMs = 3_600_000;
    let now = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 1500; i++) {
      const client = `c${int(rnd, 0, 3)}`;
      const limit = int(rnd, 0, 6);
      const r = rnd();
      if (r < 0.3) now += 0;
      else if (r < 0.9) now += int(rnd, 1, 20 * 60_000);
      else now += int(rnd, windowMs - 1000, windowMs + 1000);
      const expected = await sqlite.openWindows.take(client, now, windowMs, limit);
      const got = await windows.take(client, now, windowMs, limit);
      expect(got, `step ${i}`).to.deep.equal(expected);
    }
  });

  it('50 parallel hits through two instances on one Redis with a bucket of 10 allow exactly 10', async () => {
    const a = await link();
    const b = await link(a.prefix);
    const stores = [redisRateLimits(a.link, noFallback), redisRateLimits(b.link, noFallback)];
    const limits = { perMinute: 1, perHour: 1000, burst: 10 };
    const now = Date.UTC(2026, 5, 1);
    const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 2]!.hit('acct', limits, now)));
    expect(decisions.filter((d) => d.allowed)).to.have.length(10);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterS > 0)).to.equal(true);
  });

  it('an hourly window of 7 holds across two instances even with a large bucket', async () => {
    const a = await link();
    const b = await link(a.prefix);
    const stores = [redisRateLimits(a.link, noFallback), redisRateLimits(b.link, noFallback)];
    const limits = { perMinute: 1000, perHour: 7, burst: 100 };
    const now = Date.UTC(2026, 5, 1, 10, 30);
    const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]!.hit('acct', limits, now + i)));
    expect(decisions.filter((d) => d.allowed)).to.have.length(7);
  });

  it('50 parallel open renders from one address through two instances admit exactly 10', async () => {
    const a = await link();
    const b = await link(a.prefix);
    const fallback = { take: () => Promise.reject(new Error('fallback used')), purge: async () => 0 };
    const w = [redisOpenWindows(a.link, fallback), redisOpenWindows(b.link, fallback)];
    const now = Date.UTC(2026, 5, 1);
    const takes = await Promise.all(Array.from({ length: 50 }, (_, i) => w[i % 2]!.take('client', now, 3_600_000, 10)));
    expect(takes.filter((t) => t.allowed)).to.have.length(10);
    expect(takes.filter((t) => !t.allowed).every((t) => t.retryAfterMs === 3_600_000)).to.equal(true);
  });

  it('one trial per address across two instances; a dropped claim frees the address, an attached one does not', async () => {
    const a = await link();
    const b = await link(a.prefix);
    const t = [redisTrials(a.link), redisTrials(b.link)];
    const now = Date.UTC(2026, 5, 1);
    const windowMs = 30 * 86_400_000;
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => t[i % 2]!.claim('ip1', now, windowMs)));
    const ok = claims.filter((c) => c.ok);
    expect(ok).to.have.length(1);
    expect(claims.filter((c) => !c.ok).every((c) => !c.ok && c.retryAt === now + windowMs)).to.equal(true);
    // the sign-up failed: the address may try again
    await t[1]!.drop((ok[0] as { claimId: number }).claimId);
    const again = await t[0]!.claim('ip1', now + 1000, windowMs);
    expect(again.ok).to.equal(true);
    await t[0]!.attach((again as { claimId: number }).claimId, 'acct_1');
    // an attached claim's id no longer leads back to the address: drop is a no-op
    await t[1]!.drop((again as { claimId: number }).claimId);
    expect(await t[1]!.claim('ip1', now + 2000, windowMs)).to.deep.equal({ ok: false, retryAt: now + 1000 + windowMs });
    // after the window, a new trial
    expect((await t[1]!.claim('ip1', now + 1000 + windowMs, windowMs)).ok).to.equal(true);
  });

  it('without REDIS_URL nothing is laid over the store; with it, closing the store closes Redis too', async () => {
    const settings = { redisCacheMaxBytes: 1 << 20, renderTimeoutMs: 1000 };
    expect(await openRedis({ ...settings, redisUrl: null }, sqlite)).to.equal(null);
    const { url, prefix } = await link();
    const own = createSqliteStore(':memory:');
    const parts = (await openRedis({ ...settings, redisUrl: url }, own, undefined, { prefix }))!;
    expect(parts.store.rateLimits).to.not.equal(own.rateLimits);
    expect(parts.store.charts).to.equal(own.charts);
    await parts.store.close();
    expect(parts.link.redis.status).to.equal('end');
    expect(() => own.db.prepare('SELECT 1').get()).to.throw();
  });

  it('the scripts are sent once per connection, then called by their SHA', async () => {
    const { link: l } = await link();
    const store = redisRateLimits(l, noFallback);
    const limits = { perMinute: 60, perHour: 100, burst: 5 };
    await store.hit('x', limits, Date.UTC(2026, 0, 1));
    const before = await l.redis.info('commandstats');
    for (let i = 0; i < 5; i++) await store.hit('x', limits, Date.UTC(2026, 0, 1) + i);
    const after = await l.redis.info('commandstats');
    const calls = (s: string, cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(s)?.[1] ?? 0);
    expect(calls(after, 'evalsha') - calls(before, 'evalsha')).to.be.at.least(5);
    expect(calls(after, 'eval') - calls(before, 'eval')).to.equal(0);
  });
});
