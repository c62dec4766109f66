// Issue 25 item 5: page time per trial account and per anonymous address. A caller whose renders
// (failed ones included) spent its budget is refused at once with 429 and Retry-After, before
// taking a page; paid accounts and cache hits are not budgeted.
import { expect } from 'chai';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey } from '../helpers/client.js';

describe('page-time budget per trial key and anonymous address (issue 25)', function () {
  this.timeout(120_000);
  let s: TestServer;
  before(async () => {
    // a budget one render spends, nothing earned back: the second render of a caller is refused
    s = await startTestServer({ poolSize: 1, renderTimeoutMs: 1500, pageBudgetMs: 1, pageBudgetRefillMsPerMin: 0 }, { schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(() => s?.stop());

  const openUrl = (c: unknown) => `${s.url}/v1/open/chart?w=120&h=80&c=${encodeURIComponent(JSON.stringify(c))}`;

  // first: the timed-out render below replaces the only page
  it('a paid key is not budgeted: render after render', async () => {
    const paid = await s.account('starter');
    for (let i = 0; i < 2; i++) {
      const r = await post(s.url, '/v1/chart', { chart: BAR, width: 120 + i, height: 80 }, apiKey(paid.api_key));
      expect(r.status).to.equal(200);
    }
  });

  it('an address: a render spends it, the next new render is 429 rate_limited with Retry-After, the cached image is still served', async () => {
    const first = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [3, 1] }] } };
    const r1 = await fetch(openUrl(first));
    expect(r1.status).to.equal(200);
    expect(r1.headers.get('x-cache-tier')).to.equal('miss');
    const r2 = await fetch(openUrl({ ...first, type: 'line' }));
    expect(r2.status).to.equal(429);
    expect(((await r2.json()) as { error: string }).error).to.equal('rate_limited');
    expect(Number(r2.headers.get('retry-after'))).to.be.at.least(1);
    const again = await fetch(openUrl(first));
    expect(again.status).to.equal(200);
  });

  it('a trial key: a callback that never returns spends the budget; its next render is refused at once (429 rate_limit_exceeded)', async () => {
    const trial = await s.account('trial');
    const loop = { ...BAR, options: { scales: { y: { ticks: { callback: 'function (v) { while (true) {} }' } } } } };
    const timedOut = await post(s.url, '/v1/chart', { chart: loop, width: 120, height: 80 }, apiKey(trial.api_key));
    // a keyed render past its deadline: 500 render_failed (decision 17; over a budget would be 400)
    expect(timedOut.status).to.equal(500);
    expect(((await timedOut.json()) as { error: string }).error).to.equal('render_failed');
    const next = await post(s.url, '/v1/chart', { chart: BAR, width: 120, height: 80 }, apiKey(trial.api_key));
    expect(next.status).to.equal(429);
    const body = (await next.json()) as { error: string; detail: string };
    expect(body.error).to.equal('rate_limit_exceeded');
    expect(body.detail).to.match(/page time/);
    expect(Number(next.headers.get('retry-after'))).to.be.at.least(1);
  });

});
