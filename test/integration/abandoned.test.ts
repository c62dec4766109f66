// A client that disconnects while its request waits for a page leaves the
// admission queue, so a burst of abandoned requests does not keep the pool busy. Real Chromium:
// one page held by a slow render, N requests queued behind it, their clients gone.
import { expect } from 'chai';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';


/** Holds the page for a few seconds (the title callback spins), long enough to queue behind. */
const BLOCKER = {
  type: 'bar',
  data: BAR.data,
  options: { plugins: { title: { display: true, text: 'function(){ var t = Date.now(); while (Date.now() - t < 6000) {} return "slow"; }' } } },
};

describe('abandoned requests leave the queue', function () {
  this.timeout(120000);
  let s: TestServer;
  let key: string;

  before(async () => {
    s = await startTestServer({ poolSize: 1, acquireTimeoutMs: 60000, renderTimeoutMs: 30000, maxQueue: 64 });
    key = (await s.account('growth')).api_key;
  });
  after(async () => s?.stop());

  /** Starts a render that holds the only page for seconds; the counters as they were then. */
  const holdThePage = async (width: number) => {
    const pool = s.deps.pool;
    const blocker = post(s.url, '/v1/chart', { chart: BLOCKER, width, height: 150 }, apiKey(key));
    await waitFor('the blocker holds the page', () => pool.stats().borrowed === 1);
    return { pool, blocker, rendersBefore: pool.stats().renders!, abandonedBefore: pool.stats().admission!.abandoned };
  };

  it('N queued requests whose clients disconnect leave the queue and never render', async () => {
    const { pool, blocker, rendersBefore, abandonedBefore } = await holdThePage(300);
    const N = 6;
    const clients = Array.from({ length: N }, () => new AbortController());
    const queued = clients.map((c, i) =>
      fetch(`${s.url}/v1/chart`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...apiKey(key) },
        // different widths: identical requests would share one render
        body: JSON.stringify({ chart: BAR, width: 200 + i, height: 100 }),
        signal: c.signal,
      }).then(
        () => 'answered',
        () => 'aborted',
      ),
    );
    await waitFor(`${N} requests wait for the page`, () => pool.stats().admission!.waiting === N);
    for (const c of clients) c.abort();
    expect(await Promise.all(queued)).to.deep.equal(Array(N).fill('aborted'));
    // they leave while the blocker still holds the page
    await waitFor('the queue is empty again', () => pool.stats().admission!.waiting === 0);
    expect(pool.stats().borrowed).to.equal(1);
    expect(pool.stats().admission!.abandoned - abandonedBefore).to.equal(N);
    expect((await blocker).status).to.equal(200);
    // served next, with nothing of the burst in front of it; the burst rendered nothing
    const next = await post(s.url, '/v1/chart', { chart: BAR, width: 180, height: 100 }, apiKey(key));
    expect(next.status).to.equal(200);
    expect(pool.stats().renders! - rendersBefore).to.equal(1);
  });

  it('the same holds for POST /v1/chart/create, the open endpoint and the automation endpoints', async () => {
    const { pool, blocker, rendersBefore, abandonedBefore } = await holdThePage(301);
    const json = { 'content-type': 'application/json', ...apiKey(key) };
    // different sizes or titles: identical requests would share one render
    const requests: Array<[string, RequestInit]> = [
      ['/v1/chart/create', { method: 'POST', headers: json, body: JSON.stringify({ chart: BAR, width: 210, height: 100 }) }],
      ['/v1/chart/create', { method: 'POST', headers: json, body: JSON.stringify({ chart: BAR, width: 211, height: 100 }) }],
      [`/v1/open/chart?${new URLSearchParams({ c: JSON.stringify({ ...BAR, options: { plugins: { title: { display: true, text: 'gone 1' } } } }) })}`, { method: 'GET' }],
      [`/v1/open/chart?${new URLSearchParams({ c: JSON.stringify({ ...BAR, options: { plugins: { title: { display: true, text: 'gone 2' } } } }) })}`, { method: 'GET' }],
      ['/v1/zapier/bar-chart', { method: 'POST', headers: json, body: JSON.stringify({ title: 'gone', labels: 'a,b', values: '1,2', width: 214, height: 100 }) }],
    ];
    const clients = requests.map(() => new AbortController());
    const queued = requests.map(([path, init], i) =>
      fetch(s.url + path, { ...init, signal: clients[i]!.signal }).then(
        () => 'answered',
        () => 'aborted',
      ),
    );
    await waitFor(`${requests.length} requests wait for the page`, () => pool.stats().admission!.waiting === requests.length);
    for (const c of clients) c.abort();
    expect(await Promise.all(queued)).to.deep.equal(Array(requests.length).fill('aborted'));
    await waitFor('the queue is empty again', () => pool.stats().admission!.waiting === 0);
    expect(pool.stats().borrowed).to.equal(1);
    expect(pool.stats().admission!.abandoned - abandonedBefore).to.equal(requests.length);
    expect((await blocker).status).to.equal(200);
    // nothing of the burst rendered, and no short chart was kept for it
    expect(pool.stats().renders! - rendersBefore).to.equal(0);
    const created = await post(s.url, '/v1/chart/create', { chart: BAR, width: 215, height: 100 }, apiKey(key));
    expect(created.status).to.equal(201);
    expect(pool.stats().renders! - rendersBefore).to.equal(1);
  });
});
