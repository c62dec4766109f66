// What GET/POST /v1/chart do while the page draws: the rate limit may still be decided (once
// this instance's last decision for the account left room) and the generation is counted.
// Every request still takes exactly one from the limits, nothing is answered before the
// decision and the count, a refused or failed render counts nothing, and an account at its
// limit renders nothing early. Real server, real Chromium, real SQLite file, a still clock.
import { expect } from 'chai';
import { BAR, type Credentials, post, startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock } from '../helpers/clock.js';
import { apiKey } from '../helpers/client.js';
import { rateLimitsFor } from '../../src/services/billing/limits.js';
import { DECIDE_WHILE_RENDERING_ROOM } from '../../src/services/usage.js';

describe('while the page draws: the rate decision and the count', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;
  /** How many requests were let start their render before the decision. */
  let early = 0;

  before(async () => {
    clock = new FakeClock(Date.UTC(2025, 2, 3, 10, 0, 0));
    s = await startTestServer({ poolSize: 1 }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
    const usage = s.deps.usage;
    const decide = usage.decideWhileRendering.bind(usage);
    usage.decideWhileRendering = (auth) => {
      const yes = decide(auth);
      if (yes) early++;
      return yes;
    };
  });
  after(() => s?.stop());

  const chart = (key: string, body: Record<string, unknown> = {}) => post(s.url, '/v1/chart', { chart: BAR, width: 120, height: 80, ...body }, apiKey(key));
  const used = async (c: Credentials) => {
    const account = (await s.deps.store.accounts.find(c.account_id))!;
    return (await s.deps.store.usage.get(c.account_id, (await s.deps.billing.currentPeriod(account)).start)).used;
  };
  /** Takes `n` from the account's limits behind this instance's back, as another instance would. */
  const elsewhere = async (c: Credentials, n: number) => {
    const account = (await s.deps.store.accounts.find(c.account_id))!;
    const limits = rateLimitsFor(account, await s.deps.store.billing.get(c.account_id));
    for (let i = 0; i < n; i++) await s.deps.store.rateLimits.hit(c.account_id, limits, clock.now());
  };
  const renders = () => s.deps.pool.stats().renders ?? 0;

  it('the first request is decided first; later ones start early, and each takes exactly one', async () => {
    const c = await s.account('starter');
    const before = early;
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await chart(c.api_key);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/png');
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).to.deep.equal(['119', '118', '117', '116', '115', '114']);
    expect(early - before).to.equal(5);
    expect(await used(c)).to.equal(6);
  });

  it('a bucket emptied elsewhere meanwhile: 429 with Retry-After and the rate headers, nothing counted, no image', async () => {
    const c = await s.account('starter');
    expect((await chart(c.api_key)).status).to.equal(200);
    await elsewhere(c, 119);
    const before = early;
    const res = await chart(c.api_key);
    expect(early - before, 'this request started its render early').to.equal(1);
    expect(res.status).to.equal(429);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await res.json()) as { error: string }).error).to.equal('rate_limit_exceeded');
    expect(res.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(res.headers.get('etag')).to.equal(null);
    expect(await used(c)).to.equal(1);
    // the refusal is remembered: the next request waits for its decision and renders nothing
    const r0 = renders();
    const again = await chart(c.api_key);
    expect(again.status).to.equal(429);
    expect(renders()).to.equal(r0);
    expect(early - before).to.equal(1);
  });

  it('near its limit an account renders nothing early: requests over the limit cost no render', async () => {
    const c = await s.account('starter');
    expect((await chart(c.api_key)).status).to.equal(200);
    // room left: the margin plus 3, so a few requests start early, then none
    await elsewhere(c, 119 - (DECIDE_WHILE_RENDERING_ROOM + 3));
    const r0 = renders();
    const statuses: number[] = [];
    for (let i = 0; i < DECIDE_WHILE_RENDERING_ROOM + 6; i++) statuses.push((await chart(c.api_key)).status);
    expect(statuses.filter((x) => x === 200)).to.have.length(DECIDE_WHILE_RENDERING_ROOM + 3);
    expect(statuses.filter((x) => x === 429)).to.have.length(3);
    expect(renders() - r0, 'one render per allowed request, none for the refused').to.equal(DECIDE_WHILE_RENDERING_ROOM + 3);
    expect(await used(c)).to.equal(1 + DECIDE_WHILE_RENDERING_ROOM + 3);
  });

  it('an invalid request started early is still a 400; over the limit the 429 wins', async () => {
    const c = await s.account('starter');
    expect((await chart(c.api_key)).status).to.equal(200);
    const bad = await chart(c.api_key, { chart: { type: 'nope', data: { datasets: [] } } });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get('x-ratelimit-remaining')).to.equal('118');
    await elsewhere(c, 118);
    const over = await chart(c.api_key, { chart: { type: 'nope', data: { datasets: [] } } });
    expect(over.status).to.equal(429);
    expect(await used(c)).to.equal(1);
  });

  it('trial accounts never start early (their cap is checked first)', async () => {
    const c = await s.account('trial');
    const before = early;
    for (let i = 0; i < 3; i++) expect((await chart(c.api_key)).status).to.equal(200);
    expect(early).to.equal(before);
  });

  it('a burst past the limit at 8 in flight: exactly the limit answered and counted, the rest 429 with Retry-After', async () => {
    // an attack kept from a live server (session 14): decisions started after the render's
    // call (setImmediate) must still take one each, and count only what is answered
    const c = await s.account('starter');
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 150) {
          const i = next++;
          // a different title each: identical requests would share one render
          const res = await chart(c.api_key, { chart: { ...BAR, options: { plugins: { title: { display: true, text: `burst ${i}` } } } } });
          statuses.push(res.status);
          if (res.status === 429) expect(res.headers.get('retry-after')).to.match(/^\d+$/);
          else expect(res.headers.get('content-type')).to.equal('image/png');
          expect(res.headers.get('x-ratelimit-remaining')).to.match(/^\d+$/);
        }
      }),
    );
    const count = (code: number) => statuses.filter((x) => x === code).length;
    // the starter plan's bucket is 120 and the clock stands still: nothing refills
    expect([count(200), count(429), statuses.length]).to.deep.equal([120, 30, 150]);
    expect(await used(c)).to.equal(120);
  });

  it('each answered image was counted before its answer; the day keeps its renders and their time', async () => {
    const c = await s.account('starter');
    for (let i = 1; i <= 4; i++) {
      expect((await chart(c.api_key)).status).to.equal(200);
      expect(await used(c)).to.equal(i);
    }
    const day = Math.floor(clock.now() / 86_400_000);
    const t = await s.deps.store.usage.totals(c.account_id, day, day);
    expect(t.renders).to.equal(4);
    expect(t.renderMs).to.be.greaterThan(0);
  });

  it('a render that fails takes its count back: 400, used and the day\'s renders as before', async () => {
    const c = await s.account('starter');
    expect((await chart(c.api_key)).status).to.equal(200);
    const day = Math.floor(clock.now() / 86_400_000);
    const before = await s.deps.store.usage.totals(c.account_id, day, day);
    const throwing = { ...BAR, options: { plugins: { legend: { labels: { generateLabels: "function () { throw new Error('nope') }" } } } } };
    for (let i = 0; i < 2; i++) {
      const res = await chart(c.api_key, { chart: throwing });
      expect(res.status).to.equal(400);
    }
    expect(await used(c)).to.equal(1);
    expect((await s.deps.store.usage.totals(c.account_id, day, day)).renders).to.equal(before.renders);
  });
});
