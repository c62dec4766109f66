// `chartshot migrate-to-postgres`: copies every table of the SQLite DATA_DIR into DATABASE_URL,
// row for row, in one PostgreSQL transaction.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import type { Config } from './config.js';
import { MIGRATE_USAGE, MigrateUsageError } from './cli-migrate-usage.js';
import { openDatabase, type DB } from './store/sqlite/db.js';
import { openPg } from './store/pg/db.js';


/** Tables not copied as rows: SQLite's own, and the open cache's byte total (recomputed). */
const SKIPPED = new Set(['sqlite_sequence', 'open_cache_bytes']);
/** Rows per INSERT at most, and bytes of values (image bodies) per INSERT at most. */
const BATCH_ROWS = 500;
const BATCH_BYTES = 8 * 1024 * 1024;
/** PostgreSQL's limit on parameters of one statement. */
const MAX_PARAMS = 65535;

interface PgColumn {
  name: string;
  type: string;
  identity: boolean;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The master key question: the data carries nothing signed, but every key's signing secret derives from it. */
function masterKeyNotice(config: Config): string {
  const file = join(config.dataDir, 'master.key');
  if (!existsSync(file)) return `no ${file}: no signing secret to keep`;
  const hex = readFileSync(file, 'utf8').trim();
  if (config.masterKey && config.masterKey.equals(Buffer.from(hex, 'hex'))) return `MASTER_KEY equals ${file}: existing signing secrets stay valid`;
  throw new MigrateUsageError(
    `MASTER_KEY differs from ${file}: every key's signing secret would change; set it on this command and on every instance: MASTER_KEY=$(cat ${file})`,
  );
}

function sqliteTables(db: DB): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[])
    .map((r) => r.name)
    .filter((t) => !SKIPPED.has(t));
}

/** Parents before children, from PostgreSQL's own foreign keys. */
async function fkOrder(client: pg.PoolClient, tables: string[]): Promise<string[]> {
  const { rows } = await client.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = current_schema() AND k.conrelid <> k.confrelid`,
  );
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (t: string, path: Set<string>) => {
    if (done.has(t) || path.has(t)) return;
    path.add(t);
    for (const r of rows) if (r.child === t && tables.includes(r.parent)) visit(r.parent, path);
    done.add(t);
    order.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return order;
}

async function pgColumns(client: pg.PoolClient, table: string): Promise<PgColumn[]> {
  const { rows } = await client.query<{ name: string; type: string; identity: string }>(
    `SELECT column_name AS name, data_type AS type, is_identity AS identity FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => ({ name: r.name, type: r.type, identity: r.identity === 'YES' }));
}

function sizeOf(v: unknown): number {
  return Buffer.isBuffer(v) ? v.length : typeof v === 'string' ? v.length : 8;
}

/** Copies one table in batches; returns the rows copied. */
async function copyTable(sqlite: DB, client: pg.PoolClient, table: string): Promise<number> {
  const target = await pgColumns(client, table);
  const source = (sqlite.prepare(`PRAGMA table_info(${q(table)})`).all() as { name: string }[]).map((c) => c.name);
  const cols = source.map((name) => {
    const c = target.find((t) => t.name === name);
    if (!c) throw new MigrateUsageError(`column ${table}.${name} is missing in PostgreSQL: this build's schema does not have it`);
    return c;
  });
  const overriding = cols.some((c) => c.identity) ? ' OVERRIDING SYSTEM VALUE' : '';
  const head = `INSERT INTO ${q(table)} (${cols.map((c) => q(c.name)).join(', ')})${overriding} VALUES `;
  const maxRows = Math.min(BATCH_ROWS, Math.floor(MAX_PARAMS / cols.length));
  let batch: unknown[][] = [];
  let bytes = 0;
  let copied = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const tuples = batch.map((_, i) => `(${cols.map((__, j) => `$${i * cols.length + j + 1}`).join(', ')})`);
    await client.query(head + tuples.join(', '), batch.flat());
    copied += batch.length;
    batch = [];
    bytes = 0;
  };
  const stmt = sqlite.prepare(`SELECT ${cols.map((c) => q(c.name)).join(', ')} FROM ${q(table)}`).raw(true);
  for (const row of stmt.iterate() as IterableIterator<unknown[]>) {
    // SQLite keeps booleans as 0/1
    const values = row.map((v, j) => (cols[j]!.type === 'boolean' && typeof v === 'number' ? v !== 0 : v));
    batch.push(values);
    bytes += values.reduce<number>((n, v) => n + sizeOf(v), 0);
    if (batch.length >= maxRows || bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  return copied;
}

/** Identity columns keep their ids: their sequences go past the highest id SQLite ever gave. */
async function advanceSequences(sqlite: DB, client: pg.PoolClient, table: string): Promise<void> {
  const hasSeq = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== undefined;
  for (const c of (await pgColumns(client, table)).filter((x) => x.identity)) {
    const seq = hasSeq ? ((sqlite.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table) as { seq: number } | undefined)?.seq ?? 0) : 0;
    const { rows } = await client.query<{ m: string | null }>(`SELECT max(${q(c.name)})::text AS m FROM ${q(table)}`);
    const last = Math.max(seq, Number(rows[0]?.m ?? 0));
    await client.query('SELECT setval(pg_get_serial_sequence($1, $2), $3, $4)', [q(table), c.name, Math.max(last, 1), last > 0]);
  }
}

export interface MigrateArgs {
  force?: boolean;
  json?: boolean;
}

export async function runMigrate(config: Config, a: MigrateArgs): Promise<void> {
  if (!config.databaseUrl) throw new MigrateUsageError('DATABASE_URL is required: the PostgreSQL database to copy DATA_DIR into');
  const file = join(config.dataDir, 'chartshot.db');
  if (!existsSync(file)) throw new MigrateUsageError(`no SQLite database at ${file} (DATA_DIR)`);
  const notice = masterKeyNotice(config);
  const sqlite = openDatabase(config.dataDir);
  const pgdb = await openPg({ url: config.databaseUrl, max: 1 }).catch((err: unknown) => {
    sqlite.close();
    throw err;
  });
  const counts: Record<string, number> = {};
  try {
    const client = await pgdb.pool.connect();
    try {
      await client.query('BEGIN');
      try {
        const tables = await fkOrder(client, sqliteTables(sqlite));
        for (const t of tables) {
          if ((await pgColumns(client, t)).length === 0) throw new MigrateUsageError(`table ${t} is missing in PostgreSQL: this build's schema does not have it`);
        }
        // no instance writes while the copy runs; reads go on
        await client.query(`LOCK TABLE ${tables.map(q).join(', ')} IN EXCLUSIVE MODE`);
        const filled: string[] = [];
        for (const t of tables) if ((await client.query(`SELECT 1 FROM ${q(t)} LIMIT 1`)).rowCount) filled.push(t);
        if (filled.length > 0 && !a.force) {
          throw new MigrateUsageError(`the PostgreSQL database is not empty (${filled.join(', ')}): use --force to replace its contents`);
        }
        if (filled.length > 0) await client.query(`TRUNCATE ${tables.map(q).join(', ')} RESTART IDENTITY CASCADE`);
        // one consistent snapshot of SQLite, even if a server still writes it
        sqlite.exec('BEGIN');
        try {
          for (const t of tables) {
            counts[t] = await copyTable(sqlite, client, t);
            await advanceSequences(sqlite, client, t);
          }
        } finally {
          sqlite.exec('COMMIT');
        }
        // the trigger counted each open image once; recomputed so a replaced target cannot skew it
        await client.query(
          `INSERT INTO open_cache_bytes (id, bytes) SELECT 1, COALESCE(SUM(size), 0) FROM images WHERE key >= 'open:' AND key < 'open;'
           ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes`,
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    } finally {
      client.release();
    }
  } finally {
    sqlite.close();
    await pgdb.close();
  }
  const total = Object.values(counts).reduce((n, c) => n + c, 0);
  if (a.json) {
    process.stdout.write(JSON.stringify({ tables: counts, rows: total, master_key: notice }) + '\n');
    return;
  }
  const width = Math.max(...Object.keys(counts).map((t) => t.length));
  process.stdout.write(
    Object.entries(counts).map(([t, n]) => `${t.padEnd(width)} ${n}`).join('\n') +
      `\ncopied ${total} rows from ${file} into PostgreSQL\n${notice}\n`,
  );
}
