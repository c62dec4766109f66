// Per-chart metrics arithmetic and batching over every store; short-chart helpers that need no
// server.
import { expect } from 'chai';
import { renderRequest } from '../helpers/requests.js';
import { ChartMetricsRecorder, toChartMetrics } from '../../src/services/chartMetrics.js';
import { cacheTtlMs, chartCacheKey, newChartId } from '../../src/services/shortCharts.js';
import { etagMatches } from '../../src/http/imageHeaders.js';
import { PLANS } from '../../src/rules/plans.js';
import type { ChartMetricsRow, ChartMetricsStore, Store } from '../../src/store/types.js';
import { eachStore } from '../helpers/stores.js';
import { waitFor } from '../helpers/poll.js';

const REQ = renderRequest({ watermark: 'chartshot TEST' });

eachStore('chart metrics', (current) => {
  let store: Store;
  let rec: ChartMetricsRecorder;
  const T = Date.UTC(2030, 0, 1);

  beforeEach(async () => {
    store = current();
    await store.accounts.create({ id: 'acct_1', email: null, plan: 'starter', status: 'active', createdAt: T });
    for (const id of ['c1', 'c2']) {
      const image = { contentType: 'image/png', etag: '"e"', body: Buffer.from('png'), createdAt: T, expiresAt: null };
      await store.charts.createWithImage({ id, accountId: 'acct_1', keyId: 'key_1', request: REQ, digest: 'd', createdAt: T }, { key: `chart:${id}`, image }, null);
    }
    rec = new ChartMetricsRecorder(store.chartMetrics, undefined, 60_000);
  });

  afterEach(async () => {
    await rec.close();
  });

  it('the stored chart keeps the whole normalised request', async () => {
    expect((await store.charts.find('c1'))!.request).to.deep.equal(REQ);
    expect(await store.charts.find('nope')).to.equal(null);
  });

  it('hits, errors and render times add up; avgRenderTime is the mean in ms; lastAccessed the latest', async () => {
    rec.rendered('c1', 100);
    rec.hit('c1', T + 5000);
    rec.hit('c1', T + 3000); // out of order: the later time stays
    rec.error('c1', T + 4000);
    await rec.flush();
    rec.rendered('c1', 50);
    rec.rendered('c1', 30);
    rec.hit('c1', T + 9000);
    const row = await rec.read('c1'); // stored + not yet written
    expect(row).to.deep.equal({ chartId: 'c1', hitCount: 3, errorCount: 1, renderCount: 3, renderMsTotal: 180, lastAccessed: T + 9000 });
    expect(toChartMetrics(row, T)).to.deep.equal({ hitCount: 3, errorCount: 1, avgRenderTime: 60, lastAccessed: new Date(T + 9000).toISOString() });
    await rec.flush();
    expect(await store.chartMetrics.find('c1')).to.deep.equal(row);
    expect(await rec.read('c2')).to.include({ hitCount: 0, renderCount: 0 });
  });

  it('a chart never rendered or fetched: avgRenderTime 0, lastAccessed its creation', () => {
    const empty: ChartMetricsRow = { chartId: 'c2', hitCount: 0, errorCount: 0, renderCount: 0, renderMsTotal: 0, lastAccessed: null };
    expect(toChartMetrics(empty, T)).to.deep.equal({ hitCount: 0, errorCount: 0, avgRenderTime: 0, lastAccessed: new Date(T).toISOString() });
    expect(toChartMetrics({ ...empty, renderCount: 3, renderMsTotal: 100 }, T).avgRenderTime).to.equal(33.33);
  });

  it('nothing is written before a flush; close writes everything; counters of unknown charts are dropped', async () => {
    rec.hit('c1', T);
    rec.hit('c2', T);
    rec.hit('gone', T);
    expect(await store.chartMetrics.find('c1')).to.equal(null);
    await rec.close();
    expect(await store.chartMetrics.find('c1')).to.include({ hitCount: 1 });
    expect(await store.chartMetrics.find('c2')).to.include({ hitCount: 1 });
    expect(await store.chartMetrics.find('gone')).to.equal(null);
  });

  it('the timer flushes on its own', async () => {
    const fast = new ChartMetricsRecorder(store.chartMetrics, undefined, 20);
    fast.hit('c1', T);
    // no flush is called: only the 20 ms timer can write it (waited for, not timed)
    await waitFor('the timer\'s flush', async () => (await store.chartMetrics.find('c1')) !== null, { ms: 10_000 });
    expect(await store.chartMetrics.find('c1')).to.include({ hitCount: 1 });
    await fast.close();
  });

  it('a failed write keeps the counters for the next flush', async () => {
    let fail = true;
    const flaky: ChartMetricsStore = {
      addBatch: async (rows) => {
        if (fail) throw new Error('disk full');
        return store.chartMetrics.addBatch(rows);
      },
      find: (id) => store.chartMetrics.find(id),
    };
    const r = new ChartMetricsRecorder(flaky, undefined, 60_000);
    r.hit('c1', T);
    r.rendered('c1', 10);
    let thrown: unknown = null;
    await r.flush().catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
    r.hit('c1', T + 1);
    expect(await r.read('c1')).to.include({ hitCount: 2, renderCount: 1 });
    fail = false;
    await r.close();
    expect(await store.chartMetrics.find('c1')).to.include({ hitCount: 2, renderCount: 1, renderMsTotal: 10, lastAccessed: T + 1 });
  });

  it('a batch naming one chart twice adds both rows; the later access wins', async () => {
    const row = (hitCount: number, lastAccessed: number | null): ChartMetricsRow => ({ chartId: 'c1', hitCount, errorCount: 1, renderCount: 1, renderMsTotal: 2.5, lastAccessed });
    await store.chartMetrics.addBatch([row(1, T + 10), row(2, null), row(3, T + 5), { ...row(4, T), chartId: 'gone' }]);
    expect(await store.chartMetrics.find('c1')).to.deep.equal({ chartId: 'c1', hitCount: 6, errorCount: 3, renderCount: 3, renderMsTotal: 7.5, lastAccessed: T + 10 });
    await store.chartMetrics.addBatch([row(1, null)]);
    expect(await store.chartMetrics.find('c1')).to.include({ hitCount: 7, lastAccessed: T + 10 });
  });

  it('a read while a batch is being written counts it once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: ChartMetricsStore = {
      addBatch: async (rows) => {
        await gate;
        return store.chartMetrics.addBatch(rows);
      },
      find: (id) => store.chartMetrics.find(id),
    };
    const r = new ChartMetricsRecorder(slow, undefined, 60_000);
    r.hit('c1', T);
    const flushing = r.flush();
    r.hit('c1', T);
    expect((await r.read('c1')).hitCount).to.equal(2);
    release();
    await flushing;
    expect((await r.read('c1')).hitCount).to.equal(2);
    await r.close();
    expect((await store.chartMetrics.find('c1'))!.hitCount).to.equal(2);
  });
});

describe('short chart helpers', () => {
  it('chart ids: 128 random bits, URL-safe, never repeated', () => {
    const ids = new Set(Array.from({ length: 1000 }, newChartId));
    expect(ids.size).to.equal(1000);
    for (const id of ids) expect(id).to.match(/^[A-Za-z0-9_-]{22}$/);
    expect(chartCacheKey('abc')).to.equal('chart:abc');
  });

  it('cache duration follows the plan (enterprise: never expires)', () => {
    expect(cacheTtlMs(PLANS.trial)).to.equal(30 * 86_400_000);
    expect(cacheTtlMs(PLANS.starter)).to.equal(90 * 86_400_000);
    expect(cacheTtlMs(PLANS.growth)).to.equal(365 * 86_400_000);
    expect(cacheTtlMs(PLANS.enterprise)).to.equal(null);
  });

  it('If-None-Match matching', () => {
    expect(etagMatches('"a"', '"a"')).to.equal(true);
    expect(etagMatches('W/"a"', '"a"')).to.equal(true);
    expect(etagMatches('"b", "a"', '"a"')).to.equal(true);
    expect(etagMatches('*', '"a"')).to.equal(true);
    expect(etagMatches('"b"', '"a"')).to.equal(false);
    expect(etagMatches('', '"a"')).to.equal(false);
  });
});
