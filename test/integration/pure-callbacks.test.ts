// A render whose functions are all provably pure (renderer-page/pure.js) needs
// no page reset, so it costs what a plain render costs; any other function still resets the
// page, and the next render is byte-identical to a clean one either way. One page, real Chromium.
import { expect } from 'chai';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, bytes } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

const withTick = (fn: string) => ({ ...BAR, options: { scales: { y: { ticks: { callback: fn } } } } });

describe('pure callbacks skip the page reset', function () {
  this.timeout(120000);
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startTestServer({ poolSize: 1, pageMaxRenders: 100000 });
    key = (await s.account('growth')).api_key;
  });
  after(async () => s?.stop());

  const render = async (chart: unknown) => {
    const res = await post(s.url, '/v1/chart', { chart, width: 400, height: 200 }, apiKey(key));
    expect(res.status).to.equal(200);
    return await bytes(res);
  };
  const idle = async () => {
    await waitFor('the page back in the pool', () => s.deps.pool.stats().available >= 1, { ms: 10_000, state: () => s.deps.pool.stats() });
  };

  it('a tick formatter renders, runs, and leaves the page as it was: no reset', async () => {
    const clean = await render(BAR);
    const resets = s.deps.pool.stats().pageResets!;
    expect(resets).to.be.a('number');
    const dollars = await render(withTick("function (v) { return '$' + v.toFixed(1); }"));
    const arrow = await render(withTick("(v) => v >= 2 ? v + ' k' : String(v)"));
    await idle();
    expect(s.deps.pool.stats().pageResets, 'resets after pure callbacks').to.equal(resets);
    // the callbacks did run: their labels differ from the plain chart's
    expect(dollars.equals(clean)).to.equal(false);
    expect(arrow.equals(dollars)).to.equal(false);
    expect((await render(BAR)).equals(clean)).to.equal(true);
  });

  it('a function that writes anything is reset as before, and cannot stamp the next render', async () => {
    const clean = await render(BAR);
    const resets = s.deps.pool.stats().pageResets!;
    await render(withTick("function (v) { Chart.defaults.color = 'red'; return v; }"));
    await render(withTick("function (v) { return v.count-- - 0 + '' + v; }"));
    await idle();
    expect(s.deps.pool.stats().pageResets).to.equal(resets + 2);
    expect((await render(BAR)).equals(clean)).to.equal(true);
  });
});
