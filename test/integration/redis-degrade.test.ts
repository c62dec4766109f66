// A lost Redis degrades: rate limits and open windows fall back to the store (still limited),
// trial sign-ups answer 503 with Retry-After, the hot tier misses and renders run locally.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { connectRedis, type RedisLink } from '../../src/store/redis/client.js';
import { withRedis } from '../../src/store/redis/index.js';
import { redisHotTier } from '../../src/store/redis/hotTier.js';
import { redisFlights } from '../../src/store/redis/flights.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { StorageError } from '../../src/store/errors.js';
import { AccountService } from '../../src/services/accounts.js';
import { TrialService } from '../../src/services/trials.js';
import { AppError } from '../../src/errors.js';
import type { Store } from '../../src/store/types.js';
import { FakeClock } from '../helpers/clock.js';
import { OwnRedis } from '../helpers/redis.js';
import { startTestServer, BAR, type TestServer } from '../helpers/server.js';
import { post, apiKey } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

const LIMITS = { perMinute: 1, perHour: 100, burst: 3 };
const image = (now: number) => ({ body: Buffer.from('png bytes'), contentType: 'image/png', etag: '"e"', createdAt: now, expiresAt: now + 3_600_000 });

describe('Redis lost and found again', function () {
  this.timeout(120000);
  let own: OwnRedis;
  let link: RedisLink;
  let sqlite: SqliteStore;
  let store: Store;
  const clock = new FakeClock(Date.UTC(2026, 3, 1, 10, 0, 0));
  const rows = (table: string) => (sqlite.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

  before(async () => {
    own = await OwnRedis.create();
    link = await connectRedis({ url: own.url, prefix: 'd:', commandTimeoutMs: 300 });
    sqlite = createSqliteStore(':memory:');
    store = withRedis(sqlite, link);
  });
  after(async () => {
    await store.close();
    await own.remove();
  });

  it('while Redis is up, limits and windows live in Redis, not in the store', async () => {
    expect(link.up).to.equal(true);
    const d = await Promise.all([1, 2, 3, 4].map(() => store.rateLimits.hit('acct', LIMITS, clock.now())));
    expect(d.map((x) => x.allowed)).to.deep.equal([true, true, true, false]);
    expect((await store.openWindows.take('client', clock.now(), 3_600_000, 1)).allowed).to.equal(true);
    expect(rows('rate_windows')).to.equal(0);
    expect(rows('open_renders')).to.equal(0);
  });

  it('a frozen Redis (no answer) times out into the store, still limited', async () => {
    own.pause();
    try {
      const d = [];
      for (let i = 0; i < 4; i++) d.push(await store.rateLimits.hit('frozen', LIMITS, clock.now()));
      expect(d.map((x) => x.allowed)).to.deep.equal([true, true, true, false]);
      expect(rows('rate_windows')).to.equal(1);
    } finally {
      own.resume();
    }
  });

  describe('with Redis stopped', () => {
    before(async () => {
      await own.stop();
      await waitFor('the link noticed Redis is down', () => !link.up);
    });

    it('rate limits fall back to the store: a bucket of 3 allows 3, never unlimited', async () => {
      const d = await Promise.all([1, 2, 3, 4, 5].map(() => store.rateLimits.hit('down', LIMITS, clock.now())));
      expect(d.filter((x) => x.allowed)).to.have.length(3);
      expect((await store.rateLimits.peek('down', LIMITS, clock.now())).remaining).to.equal(0);
    });

    it('open windows fall back to the store', async () => {
      const t = await Promise.all([1, 2, 3].map(() => store.openWindows.take('client2', clock.now(), 3_600_000, 2)));
      expect(t.filter((x) => x.allowed)).to.have.length(2);
      expect(rows('open_renders')).to.equal(2);
    });

    it('a trial claim is unavailable (a typed error), and the sign-up answers 503 with Retry-After', async () => {
      const err = await store.trials.claim('ip', clock.now(), 86_400_000).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(StorageError);
      expect((err as StorageError).failure).to.equal('unavailable');
      const key = randomBytes(32);
      const trials = new TrialService(store, new AccountService(store, key, clock), clock, key);
      const refusal = await trials.signup('203.0.113.9').then(() => null, (e: unknown) => e);
      expect(refusal).to.be.instanceOf(AppError);
      expect((refusal as AppError).status).to.equal(503);
      expect((refusal as AppError).code).to.equal('service_unavailable');
      expect((refusal as AppError).headers['Retry-After']).to.match(/^\d+$/);
    });

    it('the hot tier misses without failing, and a shared render runs locally', async () => {
      const hot = redisHotTier(link, 1024 * 1024);
      await hot.put('k', image(clock.now()), clock.now());
      expect(await hot.get('k', clock.now())).to.equal(null);
      let renders = 0;
      const flights = redisFlights(link, { leaseMs: 10_000 });
      expect(await flights.run('k', async () => ++renders, async () => null)).to.equal(1);
    });
  });

  // mocha runs a block's own tests before its nested blocks: this one comes after "stopped"
  describe('with Redis started again', () => {
    it('limits live in Redis again', async () => {
      await own.start();
      await waitFor('the link back up', () => link.up);
      const d = await store.rateLimits.hit('back', LIMITS, clock.now());
      expect(d.allowed).to.equal(true);
      expect(await link.redis.exists('rate:back')).to.equal(1);
      expect((await store.trials.claim('ip', clock.now(), 86_400_000)).ok).to.equal(true);
    });
  });
});

describe('a server whose Redis goes away', function () {
  this.timeout(120000);
  let own: OwnRedis;
  let s: TestServer;
  before(async () => {
    own = await OwnRedis.create();
    s = await startTestServer({ redisUrl: own.url });
  });
  after(async () => {
    await s?.stop();
    await own?.remove();
  });

  it('answers renders (limits from the store) and refuses trial sign-ups with 503 + Retry-After, never 500', async () => {
    const acct = await s.account('starter');
    const up = await post(s.url, '/v1/chart', { chart: BAR, width: 200, height: 100 }, apiKey(acct.api_key));
    expect(up.status).to.equal(200);
    const limitUp = Number(up.headers.get('x-ratelimit-remaining'));
    await own.stop();
    const down = await post(s.url, '/v1/chart', { chart: BAR, width: 200, height: 100 }, apiKey(acct.api_key));
    expect(down.status).to.equal(200);
    // the store's own window: limited (headers present), counted afresh
    expect(down.headers.get('x-ratelimit-limit')).to.match(/^\d+$/);
    expect(Number(down.headers.get('x-ratelimit-remaining'))).to.be.at.least(limitUp);
    const signup = await post(s.url, '/signup/anon', {}, { 'content-type': 'application/json' });
    expect(signup.status).to.equal(503);
    expect((await signup.json()).error).to.equal('service_unavailable');
    expect(signup.headers.get('retry-after')).to.match(/^\d+$/);
  });
});
