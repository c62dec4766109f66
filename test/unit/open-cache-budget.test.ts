// The open endpoint's persistent cache has a byte budget (OPEN_CACHE_MAX_MB): a put past it
// evicts the oldest open images ("open:" keys) and never a short chart's ("chart:"). Every store.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { ImageCache } from '../../src/services/imageCache.js';
import { loadConfig } from '../../src/config.js';
import { FakeClock } from '../helpers/clock.js';
import { eachStore } from '../helpers/stores.js';
import { anotherInstance, execSql } from '../helpers/instances.js';

const KB = 1024;
const body = (n: number, fill = 1) => Buffer.alloc(n, fill);

eachStore('open cache byte budget', (current, backend) => {
  let store: ReturnType<typeof current>;
  let clock: FakeClock;
  let cache: ImageCache;
  beforeEach(() => {
    store = current();
    clock = new FakeClock();
    cache = new ImageCache(store.images, 0, clock); // no memory tier: every get reads the store
  });

  const has = async (key: string) => (await store.images.get(key)) !== null;

  it('evicts the oldest open images first when a put would exceed the budget', async () => {
    for (let i = 0; i < 5; i++) {
      await cache.putOpen(`open:${i}`, body(10 * KB), 'image/png', 60_000, 40 * KB);
      clock.advance(1000);
    }
    expect(await store.images.openCacheBytes()).to.equal(40 * KB);
    expect(await has('open:0')).to.equal(false);
    for (let i = 1; i < 5; i++) expect(await has(`open:${i}`), `open:${i}`).to.equal(true);
  });

  it('never touches short-chart images, whatever their size', async () => {
    await cache.put('chart:big', body(100 * KB), 'image/png', null);
    await cache.put('chart:old', body(5 * KB), 'image/png', 60_000);
    clock.advance(1000);
    for (let i = 0; i < 10; i++) {
      await cache.putOpen(`open:${i}`, body(8 * KB), 'image/png', 60_000, 20 * KB);
      clock.advance(1000);
    }
    expect(await has('chart:big')).to.equal(true);
    expect(await has('chart:old')).to.equal(true);
    expect(await store.images.openCacheBytes()).to.equal(16 * KB);
    expect(await has('open:9')).to.equal(true);
    expect(await has('open:8')).to.equal(true);
    expect(await has('open:7')).to.equal(false);
  });

  it('keeps the running total exact through overwrites, deletes and the expiry purge', async () => {
    await cache.putOpen('open:a', body(10 * KB), 'image/png', 1000, 1000 * KB);
    await cache.putOpen('open:a', body(3 * KB), 'image/png', 1000, 1000 * KB); // same key, smaller
    await cache.putOpen('open:b', body(4 * KB), 'image/png', 60_000, 1000 * KB);
    await cache.put('chart:x', body(50 * KB), 'image/png', 1000);
    expect(await store.images.openCacheBytes()).to.equal(7 * KB);
    await store.images.delete('open:b');
    expect(await store.images.openCacheBytes()).to.equal(3 * KB);
    clock.advance(5000);
    await store.images.purgeExpired(clock.now());
    expect(await store.images.openCacheBytes()).to.equal(0);
  });

  it('an image larger than the whole budget is not kept', async () => {
    await cache.putOpen('open:small', body(1 * KB), 'image/png', 60_000, 10 * KB);
    const img = await cache.putOpen('open:huge', body(11 * KB), 'image/png', 60_000, 10 * KB);
    expect(img.body.length).to.equal(11 * KB); // still served to its requester
    expect(await has('open:huge')).to.equal(false);
    expect(await store.images.openCacheBytes()).to.be.at.most(10 * KB);
  });

  it('trims taking turns: two trims at once evict only the excess', async () => {
    for (let i = 0; i < 10; i++) {
      await cache.put(`open:${i}`, body(4 * KB), 'image/png', 60_000);
      clock.advance(1000);
    }
    const evicted = await Promise.all([store.images.trimOpenCache(20 * KB), store.images.trimOpenCache(20 * KB)]);
    expect(evicted[0]! + evicted[1]!).to.equal(5);
    expect(await store.images.openCacheBytes()).to.equal(20 * KB);
    for (let i = 0; i < 10; i++) expect(await has(`open:${i}`), `open:${i}`).to.equal(i >= 5);
  });

  if (backend.name === 'PostgreSQL') {
    it('open images are told by their prefix whatever the collation (a locale orders "open:x" after "open;")', async () => {
      await execSql(store, 'ALTER TABLE images ALTER COLUMN key TYPE text COLLATE "en-x-icu"');
      try {
        await cache.putOpen('open:x', body(3 * KB), 'image/png', 60_000, 4 * KB);
        await cache.put('chart:y', body(2 * KB), 'image/png', null);
        expect(await store.images.openCacheBytes()).to.equal(3 * KB);
        clock.advance(1000);
        await cache.putOpen('open:z', body(3 * KB), 'image/png', 60_000, 4 * KB);
        expect(await has('open:x')).to.equal(false);
        expect(await store.images.openCacheBytes()).to.equal(3 * KB);
      } finally {
        await execSql(store, 'ALTER TABLE images ALTER COLUMN key TYPE text COLLATE "default"');
      }
    });

    it('the total is kept in the database: another instance reads it', async () => {
      await cache.putOpen('open:a', body(6 * KB), 'image/png', 60_000, 100 * KB);
      const other = await anotherInstance(store, backend);
      try {
        expect(await other.images.openCacheBytes()).to.equal(6 * KB);
      } finally {
        await other.close();
      }
    });
  }
});

describe('open cache byte budget (SQLite file)', () => {
  it('the total survives a restart (kept in SQLite, not in memory)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chartshot-budget-'));
    try {
      let store = createSqliteStore(dir);
      const cache = new ImageCache(store.images, 0, new FakeClock());
      await cache.putOpen('open:a', body(6 * KB), 'image/png', 60_000, 100 * KB);
      await store.close();
      store = createSqliteStore(dir);
      expect(await store.images.openCacheBytes()).to.equal(6 * KB);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('OPEN_CACHE_MAX_MB: 1024 MB by default, validated', () => {
    expect(loadConfig({}).openCacheMaxBytes).to.equal(1024 * 1024 * 1024);
    expect(loadConfig({ OPEN_CACHE_MAX_MB: '5' }).openCacheMaxBytes).to.equal(5 * 1024 * 1024);
    expect(() => loadConfig({ OPEN_CACHE_MAX_MB: '0' })).to.throw();
    expect(() => loadConfig({ OPEN_CACHE_MAX_MB: 'lots' })).to.throw();
  });
});
