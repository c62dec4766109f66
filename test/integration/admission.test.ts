// Admission control and fairness, on real Chromium: one key floods the pool
// with slow renders while another sends a few. The light key is served in bounded time; the
// heavy key is refused early (503 + Retry-After) instead of waiting until its deadline; every
// refusal is the gate's (counted by reason) and nothing fails with a 500.
import { expect } from 'chai';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, bytes } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Outcome {
  status: number;
  error?: string;
  retryAfter: string | null;
  ms: number;
  doneAt: number;
}

async function timed(p: () => Promise<Response>): Promise<Outcome> {
  const t = Date.now();
  const res = await p();
  const body = await bytes(res);
  const out: Outcome = { status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - t, doneAt: Date.now() };
  if (res.status !== 200) out.error = (JSON.parse(body.toString('utf8')) as { error?: string }).error;
  return out;
}

/**
 * A render that holds its page for a while: the title callback spins for ~400 ms of wall time.
 * The spin is long against a render's own cost, and the acquire deadline long against the light
 * key's wait (about two holds), so a loaded machine (renders several times slower) still leaves
 * the light key inside the deadline while the flood (60 x 400 ms on 2 pages) overruns it.
 */
function slow(i: number) {
  return {
    type: 'bar',
    data: { labels: ['a', 'b'], datasets: [{ label: 'slow', data: [1, i] }] },
    options: { plugins: { title: { display: true, text: 'function(){ var t = Date.now(); while (Date.now() - t < 400) {} return "slow"; }' } } },
  };
}

describe('admission control and fairness', function () {
  this.timeout(120000);
  const ACQUIRE_TIMEOUT_MS = 8000;
  let s: TestServer;
  let heavy: string;
  let light: string;

  before(async () => {
    s = await startTestServer({ poolSize: 2, acquireTimeoutMs: ACQUIRE_TIMEOUT_MS, renderTimeoutMs: 10000, maxQueue: 64 });
    heavy = (await s.account('growth')).api_key;
    light = (await s.account('growth')).api_key;
  });
  after(async () => s?.stop());

  const send = (key: string, chart: unknown, width: number) => () =>
    post(s.url, '/v1/chart', { chart, width, height: 100 }, apiKey(key));

  it('a heavy key flooding slow renders cannot starve a light key; the flood is refused early with Retry-After', async () => {
    // the pool learns how long a slow render holds a page
    for (let i = 0; i < 6; i++) expect((await timed(send(heavy, slow(1000 + i), 200))).status).to.equal(200);
    const before = s.deps.pool.stats().admission!;
    expect(before.avgHoldMs).to.be.greaterThan(350);

    const floodStarted = Date.now();
    const flood = Promise.all(Array.from({ length: 60 }, (_, i) => timed(send(heavy, slow(i), 200 + i))));
    // the flood holds both pages and has a queue (or was already refused) before the light key asks
    const floodIn = () => {
      const st = s.deps.pool.stats();
      return st.borrowed === 2 && (st.admission!.waiting > 0 || st.admission!.refusedEarly > before.refusedEarly);
    };
    for (let i = 0; i < 3000 && !floodIn(); i++) await sleep(10);
    expect(floodIn(), 'the flood holds the pool').to.equal(true);
    const lightResults = await Promise.all(Array.from({ length: 4 }, (_, i) => timed(send(light, BAR, 300 + i))));
    const heavyResults = await flood;
    const floodMs = Math.max(...heavyResults.map((r) => r.doneAt)) - floodStarted;
    const after = s.deps.pool.stats().admission!;

    const summary =
      `flood ${floodMs} ms; heavy: ${heavyResults.filter((r) => r.status === 200).length} x200, ${heavyResults.filter((r) => r.status === 503).length} x503; ` +
      `light: ${lightResults.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; refusedEarly ${after.refusedEarly - before.refusedEarly}, timedOut ${after.timedOut - before.timedOut}`;
    if (process.env.ADMISSION_DEBUG) console.log(summary);

    // the light key: every request served (a light request left behind the flood's queue would
    // wait past the acquire deadline and get a 503), each sooner than the flood lasts
    for (const r of lightResults) {
      expect(r.status, summary).to.equal(200);
      expect(r.ms, summary).to.be.lessThan(floodMs);
    }
    // they went ahead of the heavy line: heavy requests queued before them finished after them
    const lightDone = Math.max(...lightResults.map((r) => r.doneAt));
    expect(heavyResults.filter((r) => r.status === 200 && r.doneAt > lightDone).length, summary).to.be.greaterThan(0);

    // the heavy key: served as capacity allows, the rest refused with 503 + Retry-After
    const ok = heavyResults.filter((r) => r.status === 200);
    const refused = heavyResults.filter((r) => r.status === 503);
    expect(ok.length + refused.length, summary).to.equal(60); // no 500, nothing else
    expect(ok.length, summary).to.be.greaterThan(0);
    expect(refused.length, summary).to.be.greaterThan(0);
    for (const r of refused) {
      expect(r.error).to.equal('service_unavailable');
      expect(Number(r.retryAfter), summary).to.be.at.least(1);
    }
    // every "no" came from the gate, counted as it was given: refused early (before queueing),
    // displaced by a lighter key, or at the acquire deadline (the gate's own timer, so nobody
    // waits past it); none some other way. Some were refused early.
    const refusedEarly = after.refusedEarly - before.refusedEarly;
    const gateRefusals = refusedEarly + (after.displaced - before.displaced) + (after.timedOut - before.timedOut);
    expect(gateRefusals, summary).to.equal(refused.length);
    expect(refusedEarly, summary).to.be.greaterThan(0);
  });

  it('coalescing still works: identical requests in flight share one render and one slot', async () => {
    const req = { config: slow(424242), width: 222, height: 100, format: 'png' as const, backgroundColor: null, allowFunctions: true, watermark: null };
    const imgs = await Promise.all(Array.from({ length: 6 }, (_, i) => s.deps.renderer.render(req, `account:owner-${i % 2}`)));
    expect(imgs.filter((x) => !x.coalesced)).to.have.length(1);
    expect(new Set(imgs.map((x) => x.body.toString('base64'))).size).to.equal(1);
    // over HTTP as well: six identical requests at once all succeed
    const results = await Promise.all(Array.from({ length: 6 }, () => timed(send(light, slow(434343), 222))));
    expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
  });

  it('after the flood the queue is empty and every slot is free again', async () => {
    // The last pages are still being reset after the flood's responses: wait for them (how
    // long that takes depends on the machine), then check that nothing is left held.
    await waitFor('every page back and nobody waiting', () => s.deps.pool.stats().borrowed === 0 && s.deps.pool.stats().admission!.waiting === 0, { ms: 10_000, state: () => s.deps.pool.stats() });
    const st = s.deps.pool.stats();
    expect(st.admission!.waiting).to.equal(0);
    expect(st.borrowed).to.equal(0);
    // both pages serve at once again: two requests in parallel, no 503
    const two = await Promise.all([timed(send(light, slow(1), 201)), timed(send(heavy, slow(2), 202))]);
    expect(two.map((r) => r.status)).to.deep.equal([200, 200]);
  });
});
