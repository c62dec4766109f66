// The PostgreSQL connection pool, transactions, typed storage errors and migrations.
import pg from 'pg';
import { StorageError } from '../errors.js';
import { PG_MIGRATIONS } from './migrations.js';
import { describePgUrl, Reachability } from '../reachability.js';
import type { Logger } from '../../log.js';

/** bigint (ms timestamps, counters) and numeric (SUM) read back as numbers: they stay far below 2^53. */
const NUMBER_TYPES = new Set([20, 1700]);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    NUMBER_TYPES.has(oid) ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A statement the server parses and plans once per connection (a named prepared statement), for
 * the statements every request runs. Only statements whose result columns are spelled out (or
 * none): a prepared `SELECT *` fails once a later migration adds a column.
 */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

export function prepared(name: string, text: string): Prepared {
  return { name: `chartshot_${name}`, text };
}

type Statement = string | Prepared;

/** A query runner: the pool, or one client inside a transaction. */
export interface Sql {
  rows<T = Record<string, unknown>>(text: Statement, params?: readonly unknown[]): Promise<T[]>;
  one<T = Record<string, unknown>>(text: Statement, params?: readonly unknown[]): Promise<T | null>;
  exec(text: Statement, params?: readonly unknown[]): Promise<number>;
}

export interface PgDb extends Sql {
  readonly pool: pg.Pool;
  /** Whether the server answered the last call (logged once when it goes away, once when back). */
  readonly reach: Reachability;
  /** Runs fn in one transaction (READ COMMITTED unless told), retrying serialization failures. */
  tx<T>(fn: (sql: Sql) => Promise<T>, opts?: { serializable?: boolean }): Promise<T>;
  close(): Promise<void>;
}

/** Node's codes for a server that cannot be reached (refused, reset, unroutable, no such host). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * SQLSTATEs of a server that is away for a while: a connection exception (class 08), shutting
 * down (admin, crash), starting up, too many connections.
 */
const AWAY_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** The pg driver's own errors for a connection lost or never made (they carry no code). */
const DRIVER_DISCONNECTED = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/** PostgreSQL error codes that are the storage's fault, not the query's. */
export function storageError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const msg = err instanceof Error ? err.message : String(err);
  if (typeof code !== 'string') return err instanceof Error && DRIVER_DISCONNECTED.test(msg) ? new StorageError('unavailable', msg, 'CONNECTION_LOST') : err;
  if (code === '53100' || code === '53200') return new StorageError('full', msg, code); // disk full, out of memory
  if (code === '25006') return new StorageError('read_only', msg, code); // read-only transaction (a standby)
  if (code === '58030') return new StorageError('io', msg, code);
  if (code.startsWith('08') || AWAY_SQLSTATES.has(code) || NETWORK_CODES.has(code)) return new StorageError('unavailable', msg, code);
  return err;
}

/** The query config pg takes: a name makes it a prepared statement on each connection. */
function queryOf(s: Statement, params?: readonly unknown[]): pg.QueryConfig {
  const values = params as unknown[] | undefined;
  return typeof s === 'string' ? { text: s, values } : { name: s.name, text: s.text, values };
}

/** storageError(err), noting in `reach` when it says the server cannot be reached. */
function translated(err: unknown, reach: Reachability | undefined): unknown {
  const e = storageError(err);
  if (reach && e instanceof StorageError && e.failure === 'unavailable') reach.lost(e);
  return e;
}

function runner(q: (query: pg.QueryConfig) => Promise<pg.QueryResult>, reach?: Reachability): Sql {
  const run = async (text: Statement, params?: readonly unknown[]) => {
    let result: pg.QueryResult;
    try {
      result = await q(queryOf(text, params));
    } catch (err) {
      throw translated(err, reach);
    }
    reach?.answered();
    return result;
  };
  return {
    async rows<T>(text: Statement, params?: readonly unknown[]) {
      return (await run(text, params)).rows as T[];
    },
    async one<T>(text: Statement, params?: readonly unknown[]) {
      return ((await run(text, params)).rows[0] as T | undefined) ?? null;
    },
    async exec(text: Statement, params?: readonly unknown[]) {
      return (await run(text, params)).rowCount ?? 0;
    },
  };
}

/**
 * Runs one statement again when PostgreSQL aborted it as a deadlock's victim or a serialization
 * failure: a statement is atomic, so nothing of it was applied (what db.tx does for a transaction).
 */
export async function retryAborted<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if ((code !== '40001' && code !== '40P01') || attempt >= 5) throw err;
    }
  }
}

export interface PgOptions {
  url: string;
  /** Connections at most (default 10). */
  max?: number;
  /** Where the server's going away and coming back are logged (one line each). */
  log?: Logger;
}

export async function openPg(opts: PgOptions): Promise<PgDb> {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.max ?? 10, types, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
  // an idle client losing its connection emits here; without a listener the process would exit
  pool.on('error', () => {});
  const reach = new Reachability(describePgUrl(opts.url), opts.log);
  const base = runner((query) => pool.query(query), reach);
  const db: PgDb = {
    pool,
    reach,
    ...base,
    async tx<T>(fn: (sql: Sql) => Promise<T>, o: { serializable?: boolean } = {}): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        const client = await pool.connect().catch((err: unknown) => {
          throw translated(err, reach);
        });
        let broken = false;
        try {
          await client.query(o.serializable ? 'BEGIN ISOLATION LEVEL SERIALIZABLE' : 'BEGIN');
          const result = await fn(runner((query) => client.query(query)));
          await client.query('COMMIT');
          reach.answered();
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {
            broken = true;
          });
          const code = (err as { code?: unknown }).code;
          // serialization failure / deadlock: the transaction may simply be run again
          if ((code === '40001' || code === '40P01') && attempt < 5) continue;
          throw translated(err, reach);
        } finally {
          client.release(broken);
        }
      }
    },
    async close() {
      await pool.end();
    },
  };
  try {
    await migrate(db);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return db;
}

/** Lock id for migrations: instances starting together migrate once, the others wait. */
const MIGRATION_LOCK = 0x63687274; // "chrt"

export async function migrate(db: PgDb): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS chartshot_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)');
      const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM chartshot_migrations');
      const current = rows[0]?.v ?? 0;
      if (current > PG_MIGRATIONS.length) {
        throw new Error(`the database is at schema version ${current}, newer than this build (${PG_MIGRATIONS.length}): upgrade chartshot`);
      }
      for (let v = current; v < PG_MIGRATIONS.length; v++) {
        await client.query('BEGIN');
        try {
          await client.query(PG_MIGRATIONS[v]!);
          await client.query('INSERT INTO chartshot_migrations (version, applied_at) VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)', [v + 1]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    client.release();
  }
}
