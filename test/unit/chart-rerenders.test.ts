// The short-chart re-render guard on every store: remembered failures with backoff, the
// per-chart bucket, the per-account page-time budget (exact under concurrency), and the purge
// that keeps a chart's last good image. Also the pure helpers the service builds on.
import { expect } from 'chai';
import { renderRequest } from '../helpers/requests.js';
import { rerenderBackoffMs, rerenderLimits } from '../../src/services/shortCharts.js';
import { mayRunCallerCode } from '../../src/chart/callerCode.js';
import type { RenderRequest } from '../../src/chart/request.js';
import type { Store, StoredImage } from '../../src/store/types.js';
import { eachStore } from '../helpers/stores.js';
import { countRows, execSql } from '../helpers/instances.js';

const MIN = 60_000;
const DAY = 86_400_000;
const T = Date.UTC(2030, 0, 1);

const REQ = renderRequest();

const image = (expiresAt: number | null): StoredImage => ({ contentType: 'image/png', etag: '"e"', body: Buffer.from('png'), createdAt: T, expiresAt });

eachStore('short-chart re-render guard', (current) => {
  let store: Store;
  // RENDER_TIMEOUT_MS 10 s: 3 re-renders per chart, +1 per 10 min; 60 s of page time per account, +15 s a minute
  const limits = rerenderLimits(10_000);

  beforeEach(async () => {
    store = current();
    await store.accounts.create({ id: 'acct_1', email: null, plan: 'starter', status: 'active', createdAt: T });
    for (const id of ['c1', 'c2', 'c3', 'c4']) {
      await store.charts.createWithImage({ id, accountId: 'acct_1', keyId: 'key_1', request: REQ, digest: 'd', createdAt: T }, { key: `chart:${id}`, image: image(T + DAY) }, null);
    }
  });

  it('a failure is remembered with its error; each further failure doubles the wait; a success forgets it', async () => {
    expect(await store.charts.rerenderFailure('c1')).to.equal(null);
    const err = { status: 500, code: 'render_failed', detail: 'render timed out' };
    expect(await store.charts.recordRerenderFailure('c1', T, err, rerenderBackoffMs)).to.deep.equal({ failures: 1, retryAt: T + MIN, ...err });
    expect(await store.charts.rerenderFailure('c1')).to.deep.equal({ failures: 1, retryAt: T + MIN, ...err });
    expect(await store.charts.recordRerenderFailure('c1', T + MIN, err, rerenderBackoffMs)).to.include({ failures: 2, retryAt: T + 3 * MIN });
    expect(await store.charts.rerenderFailure('c2'), 'per chart').to.equal(null);
    await store.charts.clearRerenderFailure('c1');
    expect(await store.charts.rerenderFailure('c1')).to.equal(null);
    expect(await store.charts.recordRerenderFailure('c1', T + DAY, err, rerenderBackoffMs), 'counted afresh').to.include({ failures: 1 });
    // a chart deleted meanwhile (its account terminated): nothing to remember, no error
    expect(await store.charts.recordRerenderFailure('gone', T, err, rerenderBackoffMs)).to.equal(null);
  });

  it('per chart: 3 re-renders at once, then one every 10 minutes', async () => {
    for (let i = 0; i < 3; i++) expect(await store.charts.takeRerender('c1', 'acct_1', T, limits)).to.deep.equal({ allowed: true });
    expect(await store.charts.takeRerender('c1', 'acct_1', T, limits)).to.deep.equal({ allowed: false, limit: 'chart', retryAfterMs: 10 * MIN });
    expect(await store.charts.takeRerender('c2', 'acct_1', T, limits), 'another chart').to.deep.equal({ allowed: true });
    expect(await store.charts.takeRerender('c1', 'acct_1', T + 5 * MIN, limits)).to.deep.equal({ allowed: false, limit: 'chart', retryAfterMs: 5 * MIN });
    expect(await store.charts.takeRerender('c1', 'acct_1', T + 10 * MIN, limits)).to.deep.equal({ allowed: true });
  });

  it('per account: a budget of page time; a re-render that burnt a timeout costs a timeout, one that took 50 ms costs 50 ms', async () => {
    // six timeouts spend the whole 60 s budget: the next re-render of any of its charts waits
    for (let i = 0; i < 6; i++) {
      expect(await store.charts.takeRerender(i < 3 ? 'c1' : i < 5 ? 'c2' : 'c3', 'acct_1', T, limits), `take ${i}`).to.deep.equal({ allowed: true });
      await store.charts.chargeRerender('acct_1', T, 10_000, limits);
    }
    const refused = await store.charts.takeRerender('c4', 'acct_1', T, limits);
    expect(refused).to.include({ allowed: false, limit: 'account' });
    // 15 s of page time a minute: positive again just after a few ms
    expect((refused as { retryAfterMs: number }).retryAfterMs).to.be.within(1, 100);
    expect(await store.charts.takeRerender('c4', 'acct_1', T + 100, limits)).to.deep.equal({ allowed: true });
    // cheap re-renders barely touch it: 100 of 50 ms each fit in a fresh budget
    await store.accounts.create({ id: 'acct_2', email: null, plan: 'starter', status: 'active', createdAt: T });
    for (let i = 0; i < 100; i++) await store.charts.chargeRerender('acct_2', T, 50, limits);
    await store.charts.createWithImage({ id: 'd1', accountId: 'acct_2', keyId: 'key_2', request: REQ, digest: 'd', createdAt: T }, { key: 'chart:d1', image: image(null) }, null);
    expect(await store.charts.takeRerender('d1', 'acct_2', T, limits)).to.deep.equal({ allowed: true });
  });

  it('the hourly purge drops expired images but keeps a short chart\'s last good image while the chart exists', async () => {
    await store.images.put('open-digest', image(T + 1000));
    await store.images.put('fresh-digest', image(T + 10 * DAY));
    // an image whose chart is gone (its account terminated between purges) goes too
    await store.images.put('chart:orphan', image(T + 1000));
    expect(await store.images.purgeExpired(T + 2 * DAY)).to.equal(2);
    expect(await store.images.get('open-digest')).to.equal(null);
    expect(await store.images.get('chart:orphan')).to.equal(null);
    expect(await store.images.get('fresh-digest')).to.not.equal(null);
    for (const id of ['c1', 'c2', 'c3', 'c4']) expect(await store.images.get(`chart:${id}`), id).to.not.equal(null);
  });

  it('rows go with their chart', async () => {
    await store.charts.recordRerenderFailure('c1', T, { status: 500, code: 'render_failed', detail: null }, rerenderBackoffMs);
    expect(await countRows(store, 'chart_rerenders')).to.equal(1);
    await execSql(store, "DELETE FROM charts WHERE id = 'c1'");
    expect(await countRows(store, 'chart_rerenders')).to.equal(0);
  });

  it('20 re-renders asked at once of one chart: exactly its burst (3) are allowed', async () => {
    const takes = await Promise.all(Array.from({ length: 20 }, () => store.charts.takeRerender('c1', 'acct_1', T, limits)));
    expect(takes.filter((t) => t.allowed)).to.have.length(3);
    expect(takes.filter((t) => !t.allowed).every((t) => !t.allowed && t.limit === 'chart')).to.equal(true);
  });

  it('page time charged at once from many places is all counted', async () => {
    // 60 charges of 1 s spend the whole 60 s budget: none may be lost to a concurrent one
    await Promise.all(Array.from({ length: 60 }, () => store.charts.chargeRerender('acct_1', T, 1000, limits)));
    expect(await store.charts.takeRerender('c1', 'acct_1', T, limits)).to.include({ allowed: false, limit: 'account' });
  });

  it('failures recorded at once are each counted', async () => {
    const err = { status: 500, code: 'render_failed', detail: null };
    await Promise.all(Array.from({ length: 8 }, () => store.charts.recordRerenderFailure('c1', T, err, rerenderBackoffMs)));
    expect(await store.charts.rerenderFailure('c1')).to.include({ failures: 8 });
  });
});

describe('short-chart re-render backoff', () => {
  it('backoff: 1 min, doubling, at most a day', () => {
    expect([1, 2, 3, 4, 10, 11, 12, 100].map(rerenderBackoffMs)).to.deep.equal([MIN, 2 * MIN, 4 * MIN, 8 * MIN, 512 * MIN, 1024 * MIN, DAY, DAY]);
  });
});

describe('mayRunCallerCode', () => {
  const req = (config: unknown, allowFunctions = true): RenderRequest => ({ ...REQ, config: config as RenderRequest['config'], allowFunctions });
  it('any string the page could revive, anywhere, when functions are allowed', () => {
    expect(mayRunCallerCode(req({ options: { scales: { y: { ticks: { callback: 'function(v){ return v }' } } } } }))).to.equal(true);
    expect(mayRunCallerCode(req({ options: { plugins: [{ a: ['v => v'] }] } }))).to.equal(true);
    expect(mayRunCallerCode(req({ data: { labels: ['x => y'] } })), 'even where the page would not revive it').to.equal(true);
  });
  it('no such string, or functions not allowed: no', () => {
    expect(mayRunCallerCode(req(REQ.config))).to.equal(false);
    expect(mayRunCallerCode(req({ options: { title: 'growth >= 2 (fun)' } }))).to.equal(false);
    expect(mayRunCallerCode(req({ options: { x: 'function(){}' } }, false))).to.equal(false);
  });
  it('a deep config does not overflow the stack', () => {
    let deep: unknown = 'v => v';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(mayRunCallerCode(req({ data: deep }))).to.equal(true);
  });
});
