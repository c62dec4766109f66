// PostgreSQL schema migrations on a throwaway server: applied once under an advisory lock even
// when instances start together, and a database newer than the build is refused.
import { expect } from 'chai';
import { openPg } from '../../src/store/pg/db.js';
import { PG_MIGRATIONS } from '../../src/store/pg/migrations.js';
import { testDatabase, type TestDatabase } from '../helpers/services.js';

describe('PostgreSQL migrations', function () {
  this.timeout(60000);
  let t: TestDatabase;
  before(async () => {
    t = await testDatabase();
  });
  after(async () => t?.drop());

  it('four instances starting together migrate once, and every table exists', async () => {
    const dbs = await Promise.all([1, 2, 3, 4].map(() => openPg({ url: t.url, max: 2 })));
    try {
      const versions = await dbs[0]!.rows<{ version: number }>('SELECT version FROM chartshot_migrations ORDER BY version');
      expect(versions.map((r) => r.version)).to.deep.equal(PG_MIGRATIONS.map((_, i) => i + 1));
      const tables = (await dbs[0]!.rows<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public'")).map((r) => r.t);
      for (const name of ['accounts', 'api_keys', 'sessions', 'images', 'charts', 'usage_counters', 'rate_windows', 'billing', 'invoices', 'outbox', 'open_renders']) {
        expect(tables, name).to.include(name);
      }
      // bigint columns read back as numbers
      const row = await dbs[1]!.one<{ n: unknown }>('SELECT 9007199254740991::bigint AS n');
      expect(row!.n).to.equal(Number.MAX_SAFE_INTEGER);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it('the open-cache byte total follows inserts, updates and deletes of "open:" images only', async () => {
    const db = await openPg({ url: t.url, max: 2 });
    try {
      const put = (key: string, size: number) =>
        db.exec(
          `INSERT INTO images (key, content_type, etag, body, created_at, size) VALUES ($1, 'image/png', 'e', $2, 0, $3)
           ON CONFLICT (key) DO UPDATE SET body = excluded.body, size = excluded.size`,
          [key, Buffer.alloc(size), size],
        );
      const total = async () => (await db.one<{ bytes: number }>('SELECT bytes FROM open_cache_bytes WHERE id = 1'))!.bytes;
      await put('open:a', 100);
      await put('chart:x', 1000);
      await put('open:b', 50);
      expect(await total()).to.equal(150);
      await put('open:a', 10);
      expect(await total()).to.equal(60);
      await db.exec("DELETE FROM images WHERE key = 'open:b'");
      await db.exec("DELETE FROM images WHERE key = 'chart:x'");
      expect(await total()).to.equal(10);
    } finally {
      await db.close();
    }
  });

  it('a database migrated by a newer build is refused at start', async () => {
    const db = await openPg({ url: t.url, max: 1 });
    await db.exec('INSERT INTO chartshot_migrations (version, applied_at) VALUES ($1, 0)', [PG_MIGRATIONS.length + 1]);
    await db.close();
    let err: Error | undefined;
    await openPg({ url: t.url, max: 1 }).then((d) => d.close(), (e: Error) => (err = e));
    expect(err?.message).to.match(/newer than this build/);
  });
});
