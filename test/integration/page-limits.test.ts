// The page's limits come from Node (src/render/pageLimits.ts) once per load, through
// window.chartshot.init: caller code cannot change them afterwards, and the page applies the
// values Node sent. One page, real Chromium.
import { expect } from 'chai';
import { BAR, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, post } from '../helpers/client.js';
import { PAGE_LIMITS } from '../../src/render/pageLimits.js';
import type { PageRequest } from '../../src/render/wire.js';

describe('page limits from Node', function () {
  this.timeout(120000);
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startTestServer({ poolSize: 1 });
    key = (await s.account('growth')).api_key;
  });
  after(async () => s?.stop());

  it('caller code calling chartshot.init again is refused, and the limits stay', async () => {
    const loose = JSON.stringify(Object.fromEntries(Object.keys(PAGE_LIMITS).map((k) => [k, 1e9])));
    const tick = `function (v) { try { window.chartshot.init(${loose}); return 'CHANGED'; } catch (e) { return 'kept'; } }`;
    const chart = { ...BAR, options: { scales: { y: { ticks: { callback: tick } } } } };
    const res = await post(s.url, '/v1/chart', { chart, width: 400, height: 200, format: 'svg' }, apiKey(key));
    expect(res.status).to.equal(200);
    const svg = await res.text();
    expect(svg).to.include('kept');
    expect(svg).to.not.include('CHANGED');
  });

  it('the page applies the limit Node sent (text patches: one over maxTextPatches is refused)', async () => {
    const req = (n: number): PageRequest => ({
      config: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } },
      width: 200, height: 100, format: 'png', backgroundColor: null, allowFunctions: false, watermark: null,
      textPatches: Array.from({ length: n }, () => ({ path: ['options', 'plugins', 'title', 'text'], value: 'x' })),
    });
    const ok = await s.deps.pool.render(req(PAGE_LIMITS.maxTextPatches));
    expect(ok.data.length).to.be.greaterThan(0);
    const err = await s.deps.pool.render(req(PAGE_LIMITS.maxTextPatches + 1)).then(() => null, (e: Error) => e);
    expect(err?.message).to.equal(`textPatches must be a list of at most ${PAGE_LIMITS.maxTextPatches}`);
  });
});
