// A second instance on the same PostgreSQL database as a contract-suite store, for tests of
// what must hold across instances (atomic takes, the authentication change signal).
import type { Store } from '../../src/store/types.js';
import { createPgStore, type PgStore } from '../../src/store/pg/index.js';
import type { Backend } from './stores.js';

/** Another store sharing `store`'s database (PostgreSQL only); close it after the test. */
export async function anotherInstance(store: Store, backend: Backend): Promise<PgStore> {
  if (backend.name !== 'PostgreSQL') throw new Error('anotherInstance: PostgreSQL only');
  const url = (store as PgStore).db.pool.options.connectionString;
  if (!url) throw new Error('anotherInstance: the store has no connection string');
  return createPgStore({ url, max: 4 });
}

/** Raw SQL on either backend, for what no Store method shows (a table's row count). */
export async function countRows(store: Store, table: 'charts' | 'images' | 'usage_counters' | 'usage_daily' | 'chart_rerenders'): Promise<number> {
  const db = (store as unknown as { db: unknown }).db as
    | { prepare(sql: string): { get(): unknown } }
    | { one<T>(sql: string): Promise<T | null> };
  const sql = `SELECT count(*) AS n FROM ${table}`;
  const row = 'prepare' in db ? (db.prepare(sql).get() as { n: number }) : await db.one<{ n: number }>(sql);
  return row!.n;
}

/** Runs DDL or DML on either backend (tests only: to make a later write fail). */
export async function execSql(store: Store, sql: string): Promise<void> {
  const db = (store as unknown as { db: { exec(sql: string): unknown } }).db;
  await db.exec(sql);
}
