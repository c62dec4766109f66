// The SQLite store reports its storage failures as StorageError, whatever family fails, so
// nothing above the store needs SQLite's error codes.
import { expect } from 'chai';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { StorageError } from '../../src/store/errors.js';
import { toStorageError } from '../../src/store/sqlite/errors.js';

describe('SQLite storage failures as typed errors', () => {
  it('a write to a database that refuses writes rejects with StorageError read_only, from any family and the purge', async () => {
    const store = createSqliteStore(':memory:');
    try {
      store.db.pragma('query_only = ON'); // SQLite answers writes with SQLITE_READONLY
      const failures = await Promise.all([
        store.usage.setUsed('a', 0, 1),
        store.outbox.enqueue({ kind: 'webhook', accountId: 'a', target: 'https://x.example', subject: null, body: '{}' }, 0),
        store.accounts.create({ id: 'a', email: null, plan: 'starter', status: 'active', createdAt: 0 }),
        store.purgeAccountData('a'),
      ].map((p) => p.then(() => null, (e: unknown) => e)));
      for (const err of failures) {
        expect(err).to.be.instanceOf(StorageError);
        expect(err).to.include({ failure: 'read_only' });
        expect((err as StorageError).code).to.match(/^SQLITE_READONLY/);
      }
      expect(await store.usage.get('a', 0)).to.deep.equal({ used: 0, reserved: 0 }); // reads go on
    } finally {
      await store.close();
    }
  });

  it('full, I/O and corruption codes map to their failure; other errors pass through unchanged', () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    expect(toStorageError(coded('SQLITE_FULL'))).to.include({ failure: 'full' });
    expect(toStorageError(coded('SQLITE_IOERR_WRITE'))).to.include({ failure: 'io' });
    expect(toStorageError(coded('SQLITE_CORRUPT'))).to.include({ failure: 'io' });
    expect(toStorageError(coded('SQLITE_CANTOPEN'))).to.include({ failure: 'io' });
    expect(toStorageError(coded('SQLITE_READONLY_DBMOVED'))).to.include({ failure: 'read_only' });
    const constraint = coded('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(toStorageError(constraint)).to.equal(constraint);
  });
});
