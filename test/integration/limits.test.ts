// Plan limits on the real server (real Chromium, real SQLite file) with a fake clock: rate-limit
// headers and windows at their boundaries, the trial cap and expiry, exact counting under
// concurrency, uncounted failures and test keys, counters that survive a restart, trial sign-up.
import { expect } from 'chai';
import { BAR, type Credentials, post, startTestServer, type TestServer } from '../helpers/server.js';
import { DAY, FakeClock } from '../helpers/clock.js';
import { createHash, createHmac } from 'node:crypto';
import { loadMasterKey } from '../../src/store/masterKey.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import { apiKey } from '../helpers/client.js';

type Creds = Credentials;

describe('plan limits, usage counting and trial keys', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;

  before(async function () {
    // Start at the top of an hour so the hour window is predictable.
    clock = new FakeClock(Date.UTC(2025, 2, 3, 10, 0, 0));
    s = await startTestServer({ poolSize: 1, trustProxy: true }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(() => s?.stop());

  const chart = (key: string, body: Record<string, unknown> = {}) =>
    post(s.url, '/v1/chart', { chart: BAR, width: 120, height: 80, ...body }, apiKey(key));
  /** A request that passes auth and the rate limiter, then fails validation: cheap, never counted. */
  const bad = (key: string) => post(s.url, '/v1/chart', { chart: BAR, width: 0, height: 80 }, apiKey(key));
  const used = async (c: Creds, periodStart?: number) => {
    const account = (await s.deps.store.accounts.find(c.account_id))!;
    const start = periodStart ?? (await s.deps.billing.currentPeriod(account)).start;
    return s.deps.store.usage.get(c.account_id, start);
  };
  const seed = async (c: Creds, n: number) => {
    const account = (await s.deps.store.accounts.find(c.account_id))!;
    await s.deps.store.usage.setUsed(c.account_id, (await s.deps.billing.currentPeriod(account)).start, n);
  };

  describe('rate-limit headers and windows', () => {
    it('every authenticated response carries X-RateLimit-* (success and error alike)', async () => {
      const c = await s.account('starter');
      const ok = await chart(c.api_key);
      expect(ok.status).to.equal(200);
      const err = await bad(c.api_key);
      expect(err.status).to.equal(400);
      for (const res of [ok, err]) {
        expect(res.headers.get('x-ratelimit-limit')).to.equal('120');
        expect(Number(res.headers.get('x-ratelimit-reset'))).to.be.greaterThan(Math.floor(clock.now() / 1000) - 1);
      }
      expect(ok.headers.get('x-ratelimit-remaining')).to.equal('119');
      expect(err.headers.get('x-ratelimit-remaining')).to.equal('118');
    });

    it('trial burst: 20 at once are allowed, the 21st gets 429 rate_limit_exceeded with Retry-After; a refill lets one more through', async () => {
      const c = await s.account('trial');
      for (let i = 0; i < 20; i++) expect((await bad(c.api_key)).status, `request ${i + 1}`).to.equal(400);
      const refused = await bad(c.api_key);
      expect(refused.status).to.equal(429);
      expect(await refused.json()).to.include({ error: 'rate_limit_exceeded' });
      expect(refused.headers.get('retry-after')).to.equal('6'); // 10 a minute: one every 6 s
      expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('20');
      clock.advance(5999);
      expect((await bad(c.api_key)).status).to.equal(429);
      clock.advance(1);
      expect((await bad(c.api_key)).status).to.equal(400);
      expect((await bad(c.api_key)).status).to.equal(429);
    });

    it('per hour: the 101st trial request in one clock hour is refused even with a full bucket', async () => {
      const hourStart = Math.floor(clock.now() / 3_600_000) * 3_600_000;
      clock.set(hourStart + 3_600_000); // a fresh hour
      const c = await s.account('trial');
      for (let batch = 0; batch < 5; batch++) {
        const rs = await Promise.all(Array.from({ length: 20 }, () => bad(c.api_key)));
        expect(rs.map((r) => r.status)).to.deep.equal(Array(20).fill(400));
        clock.advance(120_000); // refills the bucket (20 at 10 a minute)
      }
      const refused = await bad(c.api_key);
      expect(refused.status).to.equal(429);
      expect(await refused.json()).to.include({ error: 'rate_limit_exceeded' });
      // 10 minutes into the hour: about 50 minutes to wait.
      expect(Number(refused.headers.get('retry-after'))).to.be.within(49 * 60, 50 * 60);
      expect(Number(refused.headers.get('x-ratelimit-reset'))).to.equal((hourStart + 2 * 3_600_000) / 1000);
      clock.set(hourStart + 2 * 3_600_000);
      expect((await bad(c.api_key)).status).to.equal(400);
    });

    it('limits are per account: a second key of the same account shares the bucket', async () => {
      const c = await s.account('trial');
      const account = (await s.deps.store.accounts.find(c.account_id))!;
      const test = await s.deps.accounts.createKey(account.id, 'test');
      for (let i = 0; i < 20; i++) await bad(i % 2 ? c.api_key : test.api_key);
      expect((await bad(test.api_key)).status).to.equal(429);
    });
  });

  describe('dimensions per plan', () => {
    const cases: Array<[string, 'trial' | 'starter' | 'growth' | 'enterprise', number]> = [
      ['trial', 'trial', 2000],
      ['starter', 'starter', 2000],
      ['growth', 'growth', 4000],
      ['enterprise', 'enterprise', 8000],
    ];
    for (const [name, plan, max] of cases) {
      it(`${name}: width ${max} renders, ${max + 1} is 400 invalid_dimensions`, async () => {
        const c = await s.account(plan);
        const ok = await chart(c.api_key, { width: max, height: 20 });
        expect(ok.status).to.equal(200);
        const refused = await chart(c.api_key, { width: max + 1, height: 20 });
        expect(refused.status).to.equal(400);
        expect(await refused.json()).to.include({ error: 'invalid_dimensions' });
        expect(refused.headers.get('x-ratelimit-limit')).to.be.a('string');
      });
    }
  });

  describe('trial cap and expiry', () => {
    it('generation 100 succeeds, 101 gets 429 trial_limit_reached, before any rate limit', async () => {
      const c = await s.account('trial');
      await seed(c, 99);
      expect((await chart(c.api_key)).status).to.equal(200);
      expect(await used(c)).to.deep.equal({ used: 100, reserved: 0 });
      const refused = await chart(c.api_key);
      expect(refused.status).to.equal(429);
      expect(await refused.json()).to.include({ error: 'trial_limit_reached' });
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('20');
      // Like every 429 it carries Retry-After: the time left until the trial key expires (30 days).
      expect(Number(refused.headers.get('retry-after'))).to.be.within(29 * 86400, 30 * 86400);
      // Even with the bucket empty, an exhausted trial is told trial_limit_reached.
      for (let i = 0; i < 25; i++) await chart(c.api_key);
      const again = await chart(c.api_key);
      expect((await again.json()) as object).to.include({ error: 'trial_limit_reached' });
      expect((await used(c)).used).to.equal(100);
    });

    it('50 parallel requests on a trial key with 10 left: exactly 10 succeed and exactly 10 are counted', async () => {
      const c = await s.account('trial');
      await seed(c, 90);
      const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => chart(c.api_key, { width: 100 + i })));
      const statuses = rs.map((r) => r.status);
      expect(statuses.filter((x) => x === 200)).to.have.length(10);
      expect(statuses.filter((x) => x !== 200 && x !== 429)).to.deep.equal([]);
      const codes = await Promise.all(rs.filter((r) => r.status === 429).map(async (r) => ((await r.json()) as { error: string }).error));
      expect(new Set(codes)).to.satisfy((set: Set<string>) => [...set].every((x) => x === 'trial_limit_reached' || x === 'rate_limit_exceeded'));
      expect(await used(c)).to.deep.equal({ used: 100, reserved: 0 });
    });

    it('a trial key is refused with 401 unauthorized once 30 days have passed', async () => {
      const c = await s.account('trial');
      clock.advance(29 * DAY);
      expect((await chart(c.api_key)).status).to.equal(200);
      clock.advance(DAY);
      const res = await chart(c.api_key);
      expect(res.status).to.equal(401);
      expect(await res.json()).to.include({ error: 'unauthorized' });
    });
  });

  describe('monthly quota and counting', () => {
    it('starter: 30 parallel generations are counted exactly once each', async () => {
      const c = await s.account('starter');
      const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => chart(c.api_key, { width: 100 + (i % 5) })));
      expect(rs.every((r) => r.status === 200)).to.equal(true);
      expect(await used(c)).to.deep.equal({ used: 30, reserved: 0 });
    });

    it('starter keeps rendering past its 100,000 and the overage is counted', async () => {
      const c = await s.account('starter');
      await seed(c, 100_000);
      expect((await chart(c.api_key)).status).to.equal(200);
      expect((await used(c)).used).to.equal(100_001);
    });

    it('a render that fails is not counted and releases its reservation', async () => {
      const c = await s.account('trial');
      await seed(c, 99);
      const throwing = { ...BAR, options: { scales: { y: { ticks: { callback: "function () { throw new Error('boom') }" } } } } };
      const res = await chart(c.api_key, { chart: throwing });
      // a callback that throws is the caller's mistake: 400 invalid_input (SPEC Errors)
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { error: string }).error).to.equal('invalid_input');
      expect(await used(c)).to.deep.equal({ used: 99, reserved: 0 });
      expect((await chart(c.api_key)).status).to.equal(200); // the last generation is still there
    });

    it('pk_test_ keys render but are not counted', async () => {
      const c = await s.account('starter');
      const test = await s.deps.accounts.createKey(c.account_id, 'test');
      expect(test.api_key.startsWith('pk_test_')).to.equal(true);
      expect((await chart(test.api_key)).status).to.equal(200);
      expect((await used(c)).used).to.equal(0);
      expect((await chart(c.api_key)).status).to.equal(200);
      expect((await used(c)).used).to.equal(1);
    });
  });

  describe('POST /signup/anon', () => {
    it('gives a trial_ key, one per client IP per 30 days (429 + Retry-After + error object after)', async () => {
      const headers = { 'x-forwarded-for': '203.0.113.7' };
      const first = await post(s.url, '/signup/anon', {}, headers);
      expect(first.status).to.equal(200);
      const { api_key } = (await first.json()) as { api_key: string };
      expect(api_key).to.match(/^trial_/);
      expect((await chart(api_key)).status).to.equal(200);

      const second = await post(s.url, '/signup/anon', '', headers);
      expect(second.status).to.equal(429);
      expect(await second.json()).to.include({ error: 'rate_limit_exceeded' });
      expect(Number(second.headers.get('retry-after'))).to.be.within(30 * 86400 - 5, 30 * 86400);

      const other = await post(s.url, '/signup/anon', {}, { 'x-forwarded-for': '203.0.113.8' });
      expect(other.status).to.equal(200);

      clock.advance(30 * DAY);
      expect((await post(s.url, '/signup/anon', {}, headers)).status).to.equal(200);
    });

    it('concurrent sign-ups from one address: exactly one key', async () => {
      const headers = { 'x-forwarded-for': '198.51.100.9' };
      const rs = await Promise.all(Array.from({ length: 10 }, () => post(s.url, '/signup/anon', {}, headers)));
      expect(rs.filter((r) => r.status === 200)).to.have.length(1);
      expect(rs.filter((r) => r.status === 429)).to.have.length(9);
    });
  });

  describe('trial signups per real client', () => {
    const db = () => (s.deps.store as SqliteStore).db;

    it('five signups from one IPv6 /64 (X-Forwarded-For, TRUST_PROXY on): one key, then 429; another /64 is another client', async () => {
      const statuses: number[] = [];
      for (let i = 1; i <= 5; i++) {
        const res = await post(s.url, '/signup/anon', {}, { 'x-forwarded-for': `2001:db8:77:1:${i}::${i}` });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses).to.deep.equal([200, 429, 429, 429, 429]);
      expect((await post(s.url, '/signup/anon', {}, { 'x-forwarded-for': '2001:db8:77:2::1' })).status).to.equal(200);
    });

    it('stored address hashes are keyed (HMAC with the master key), not SHA-256 of the address', async () => {
      const ip = '203.0.113.77';
      expect((await post(s.url, '/signup/anon', {}, { 'x-forwarded-for': ip })).status).to.equal(200);
      const hashes = (db().prepare('SELECT ip_hash FROM trial_signups').all() as Array<{ ip_hash: string }>).map((r) => r.ip_hash);
      const sha = (t: string) => createHash('sha256').update(t).digest('hex');
      for (const plain of [ip, 'trial-ip:' + ip, 'trial-ip:' + ip + '\n']) expect(hashes).to.not.include(sha(plain));
      const masterKey = loadMasterKey(s.config.dataDir);
      expect(hashes).to.include(createHmac('sha256', masterKey).update('trial-ip:' + ip).digest('hex'));
    });

    it('the open endpoint stores its per-client windows under the same kind of keyed hash, never the address', async () => {
      const ip = '198.51.100.61';
      const res = await fetch(`${s.url}/v1/open/chart?type=bar&data=1,2,3&w=60&h=40`, { headers: { 'x-forwarded-for': ip } });
      expect(res.status).to.equal(200);
      const clients = (db().prepare('SELECT DISTINCT client FROM open_renders').all() as Array<{ client: string }>).map((r) => r.client);
      expect(clients.length).to.be.greaterThan(0);
      expect(clients.some((c) => c.includes(ip))).to.equal(false);
      expect(clients).to.include(createHmac('sha256', loadMasterKey(s.config.dataDir)).update('open-client:' + ip).digest('hex'));
    });
  });

  describe('GET /usage/analytics', () => {
    it('reports the period count, limit and quick stats; needs a session', async () => {
      const c = await s.account('starter');
      for (let i = 0; i < 3; i++) expect((await chart(c.api_key, { width: 200 + i })).status).to.equal(200);
      await bad(c.api_key);
      const res = await fetch(`${s.url}/usage/analytics?days=7`, { headers: { authorization: `Bearer ${c.session_token}` } });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as {
        currentUsage: { period: string; count: number; limit: number; remaining: number; resetTime: string };
        quickStats: { totalRequests: number; successRate: number; averageRenderTime: number; cacheHitRate: number };
      };
      expect(body.currentUsage).to.include({ count: 3, limit: 100_000, remaining: 99_997 });
      expect(body.currentUsage.period).to.match(/^\d{4}-\d{2}$/);
      expect(Date.parse(body.currentUsage.resetTime)).to.be.greaterThan(clock.now());
      expect(body.quickStats.totalRequests).to.equal(4);
      expect(body.quickStats.successRate).to.equal(75);
      expect(body.quickStats.averageRenderTime).to.be.greaterThan(0);
      expect(body.quickStats.cacheHitRate).to.equal(0);

      for (const q of ['days=0', 'days=366', 'days=abc']) {
        const r = await fetch(`${s.url}/usage/analytics?${q}`, { headers: { authorization: `Bearer ${c.session_token}` } });
        expect(r.status, q).to.equal(400);
        expect(await r.json()).to.include({ error: 'invalid_input' });
      }
      for (const h of [{}, { authorization: 'Bearer nope' }, { authorization: c.session_token }, apiKey(c.api_key)]) {
        const r = await fetch(`${s.url}/usage/analytics`, { headers: h as Record<string, string> });
        expect(r.status).to.equal(401);
        expect(await r.json()).to.include({ error: 'invalid_session' });
      }
    });
  });

  describe('restart', () => {
    it('counters and the trial cap survive a restart', async () => {
      const c = await s.account('trial');
      await seed(c, 98);
      expect((await chart(c.api_key)).status).to.equal(200);
      await s.stop({ keepData: true });
      s = await startTestServer({ poolSize: 1, trustProxy: true, dataDir: s.config.dataDir }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
      expect(await used(c)).to.deep.equal({ used: 99, reserved: 0 });
      expect((await chart(c.api_key)).status).to.equal(200);
      const refused = await chart(c.api_key);
      expect(await refused.json()).to.include({ error: 'trial_limit_reached' });
    });
  });
});
