// A second instance on the same PostgreSQL database as a contract-suite store, for tests of
// what must hold across instances (atomic takes, the authentication change signal).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../src/store/types.js';
import { createPgStore, type PgStore } from '../../src/store/pg/index.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import type { Backend } from './stores.js';

/** Another store sharing `store`'s database (PostgreSQL only); close it after the test. */
export async function anotherInstance(store: Store, backend: Backend): Promise<PgStore> {
  if (backend.name !== 'PostgreSQL') throw new Error('anotherInstance: PostgreSQL only');
  const url = (store as PgStore).db.pool.options.connectionString;
  if (!url) throw new Error('anotherInstance: the store has no connection string');
  return createPgStore({ url, max: 4 });
}

/**
 * A server's store and the CLI beside it: on PostgreSQL the contract suite's store and another
 * instance on its database; on SQLite two connections to one new file (the CLI in another
 * process). close() closes what this opened.
 */
export async function serverAndCli(current: () => Store, backend: Backend): Promise<{ store: Store; cli: Store; close(): Promise<void> }> {
  if (backend.name === 'PostgreSQL') {
    const store = current();
    const cli = await anotherInstance(store, backend);
    return { store, cli, close: () => cli.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-cli-beside-'));
  const store = createSqliteStore(dir);
  const cli = createSqliteStore(dir);
  return {
    store,
    cli,
    async close() {
      await cli.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first row of a raw query on either backend (tests only: what no Store method shows). */
export async function sqlOne<T>(store: Store, sql: string): Promise<T | null> {
  const db = (store as unknown as { db: unknown }).db as
    | { prepare(sql: string): { get(): unknown } }
    | { one<R>(sql: string): Promise<R | null> };
  return 'prepare' in db ? ((db.prepare(sql).get() as T | undefined) ?? null) : db.one<T>(sql);
}

/** Rows in a table, on either backend. */
export async function countRows(store: Store, table: 'charts' | 'images' | 'usage_counters' | 'usage_daily' | 'chart_rerenders'): Promise<number> {
  return Number((await sqlOne<{ n: number }>(store, `SELECT count(*) AS n FROM ${table}`))!.n);
}

/** Runs DDL or DML on either backend (tests only: to make a later write fail). */
export async function execSql(store: Store, sql: string): Promise<void> {
  const db = (store as unknown as { db: { exec(sql: string): unknown } }).db;
  await db.exec(sql);
}
