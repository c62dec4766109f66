// The stores report their storage failures as StorageError, whatever family fails, so nothing
// above the store needs SQLite's or PostgreSQL's error codes; a PostgreSQL server that cannot be
// reached is a transient outage (503 with Retry-After), logged once when it goes and once when back.
import { expect } from 'chai';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { StorageError } from '../../src/store/errors.js';
import { toStorageError } from '../../src/store/sqlite/errors.js';
import { storageError } from '../../src/store/pg/db.js';
import { describePgUrl, Reachability } from '../../src/store/reachability.js';
import { toAppError } from '../../src/http/errors.js';
import type { Logger } from '../../src/log.js';

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

describe('PostgreSQL connection failures as a transient outage', () => {
  const coded = (msg: string, code?: string) => Object.assign(new Error(msg), code ? { code } : {});

  it('a server away, shutting down, starting up or a connection lost is unavailable; a query error passes through', () => {
    for (const [msg, code] of [
      ['connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED'],
      ['getaddrinfo ENOTFOUND db', 'ENOTFOUND'],
      ['connect EHOSTUNREACH 10.0.0.5:5432', 'EHOSTUNREACH'],
      ['terminating connection due to administrator command', '57P01'],
      ['the database system is starting up', '57P03'],
      ['sorry, too many clients already', '53300'],
      ['connection failure', '08006'],
    ] as const) {
      expect(storageError(coded(msg, code)), code).to.be.instanceOf(StorageError).and.include({ failure: 'unavailable', code });
    }
    // the driver's own errors carry no code
    for (const msg of ['Connection terminated unexpectedly', 'Connection terminated due to connection timeout', 'timeout exceeded when trying to connect', 'Client has encountered a connection error and is not queryable']) {
      expect(storageError(coded(msg)), msg).to.be.instanceOf(StorageError).and.include({ failure: 'unavailable' });
    }
    const syntax = coded('syntax error at or near "SELEC"', '42601');
    expect(storageError(syntax)).to.equal(syntax);
    const plain = coded('something else');
    expect(storageError(plain)).to.equal(plain);
  });

  it('answered as 503 service_unavailable with Retry-After and a detail naming nothing of the connection; other storage failures stay 500', () => {
    const e = toAppError(storageError(coded('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED')));
    expect(e).to.include({ status: 503, code: 'service_unavailable' });
    expect(Number(e.headers['Retry-After'])).to.be.greaterThan(0);
    expect(e.detail).not.to.match(/10\.0\.0\.5|ECONN/);
    expect(toAppError(new StorageError('full', 'disk full', 'SQLITE_FULL'))).to.include({ status: 500, code: 'internal_error' });
  });

  it('Reachability logs one line when the store goes and one when it is back, whatever the calls between', () => {
    const lines: Array<{ level: string; msg: string }> = [];
    const log = { warn: (_o: object, msg: string) => lines.push({ level: 'warn', msg }) } as unknown as Logger;
    let now = 1000;
    const r = new Reachability('PostgreSQL at db:5432/chartshot', log, () => now);
    r.answered();
    expect(lines).to.have.length(0);
    const away = new StorageError('unavailable', 'connect ECONNREFUSED', 'ECONNREFUSED');
    for (let i = 0; i < 5; i++) r.lost(away);
    expect(r.report()).to.deep.equal({ reachable: false, downSince: 1000 });
    now = 8500;
    for (let i = 0; i < 5; i++) r.answered();
    expect(r.reachable).to.equal(true);
    expect(lines.map((l) => l.msg)).to.deep.equal([
      'PostgreSQL at db:5432/chartshot is unreachable (ECONNREFUSED): requests that need it get 503 service_unavailable with Retry-After until it is back',
      'PostgreSQL at db:5432/chartshot is reachable again after 7.5 s',
    ]);
  });

  it('the store is named without user or password', () => {
    expect(describePgUrl('postgres://chartshot:s3cret@db.internal:6432/charts?sslmode=require')).to.equal('PostgreSQL at db.internal:6432/charts');
    expect(describePgUrl('postgres://u:p@db/x')).to.equal('PostgreSQL at db:5432/x');
    expect(describePgUrl('not a url')).to.equal('PostgreSQL');
  });
});
