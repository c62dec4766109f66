// Request analytics written in batches (src/store/requestCounts.ts, decision 0029): nothing is
// lost at close, nothing is written twice after a failed write, and readers see every count.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestCounts, type RequestCount } from '../../src/store/requestCounts.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

describe('request counts written in batches', function () {
  it('a SQLite store closed right after a burst of counts has written every one (a reopened file holds them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chartshot-counts-'));
    try {
      const store = createSqliteStore(dir);
      for (let i = 0; i < 50; i++) {
        await store.usage.recordRequest('a', 100, i % 5 !== 0);
        await store.usage.addRenderMs('a', 100, 2.5);
      }
      await store.usage.recordRequest('b', 101, true);
      await store.close(); // well within the batch's delay: only close() can have written them
      const again = createSqliteStore(dir);
      try {
        expect(await again.usage.totals('a', 100, 100)).to.deep.equal({ requests: 50, succeeded: 40, renders: 0, renderMs: 125, cacheHits: 0 });
        expect(await again.usage.totals('b', 0, 200)).to.include({ requests: 1, succeeded: 1 });
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the counts of many requests go out in one write, read at once by a reader of the same store', async () => {
    const store = createSqliteStore(':memory:');
    try {
      for (let i = 0; i < 20; i++) await store.usage.recordRequest('a', 7, true);
      expect(await store.usage.totals('a', 7, 7)).to.include({ requests: 20, succeeded: 20 });
      expect(await store.dashboard.dailyUsage('a', 7, 7)).to.deep.equal([{ day: 7, requests: 20, succeeded: 20, renders: 0, cacheHits: 0 }]);
    } finally {
      await store.close();
    }
  });

  it('a failed write keeps its counts for the next one, tells the next caller, and writes them once', async () => {
    const written: RequestCount[][] = [];
    let fail = true;
    const counts = new RequestCounts(async (batch) => {
      if (fail) throw new Error('disk full');
      written.push(batch.map((c) => ({ ...c })));
    });
    await counts.add('a', 1, true);
    await counts.addRenderMs('a', 1, 10);
    let failure: unknown = null;
    await counts.flush().catch((err: unknown) => (failure = err));
    expect(String(failure)).to.include('disk full');
    await counts.add('a', 1, false);
    await counts.add('b', 1, true);
    fail = false;
    await counts.flush();
    expect(written).to.deep.equal([
      [
        { accountId: 'a', day: 1, requests: 2, succeeded: 1, renderMs: 10 },
        { accountId: 'b', day: 1, requests: 1, succeeded: 1, renderMs: 0 },
      ],
    ]);
    await counts.flush(); // nothing pending: nothing written again
    expect(written).to.have.length(1);
  });

  it('a write failure pending is reported to the next caller that adds a count', async () => {
    let fail = true;
    let attempts = 0;
    let failed!: () => void;
    const failedOnce = new Promise<void>((r) => (failed = r));
    const counts = new RequestCounts(async () => {
      attempts++;
      if (fail) {
        failed();
        throw new Error('read-only');
      }
    });
    await counts.add('a', 1, true);
    await failedOnce; // the batch's own write, after its delay
    await new Promise((r) => setImmediate(r));
    let failure: unknown = null;
    await counts.add('a', 1, true).catch((err: unknown) => (failure = err));
    expect(String(failure)).to.include('read-only');
    fail = false;
    await counts.flush();
    expect(attempts).to.equal(2);
  });
});
