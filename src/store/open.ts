// The one place a Store is built, for the server, every CLI command and the tests: PostgreSQL
// when DATABASE_URL is set (shared by several instances), else SQLite in DATA_DIR.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Store } from './types.js';
import { createSqliteStore } from './sqlite/index.js';
import { loadMasterKey } from './masterKey.js';
import type { Logger } from '../log.js';

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'redisUrl'>;

// PostgreSQL's modules are imported only when DATABASE_URL is set: a SQLite server or CLI command
// never loads them (the pg driver is a good part of a CLI command's start-up). `log`: where a
// PostgreSQL server going away and coming back is said (the server's log; the CLI passes none).
export async function openStore(config: StoreConfig, log?: Logger): Promise<Store> {
  if (config.databaseUrl) return (await import('./pg/index.js')).createPgStore({ url: config.databaseUrl, log });
  return createSqliteStore(config.dataDir);
}

/** MASTER_KEY when set (required with DATABASE_URL), else DATA_DIR/master.key (created on first use). */
export function masterKeyOf(config: Pick<Config, 'dataDir' | 'masterKey'>): Buffer {
  return config.masterKey ?? loadMasterKey(config.dataDir);
}

/** Where the store lives, for messages: DATA_DIR's path, or DATABASE_URL with its password hidden. */
export function describeStore(config: Pick<StoreConfig, 'dataDir' | 'databaseUrl'>): string {
  if (!config.databaseUrl) return `DATA_DIR ${config.dataDir}`;
  try {
    const u = new URL(config.databaseUrl);
    if (u.password) u.password = '***';
    u.search = ''; // query parameters may carry credentials too (sslkey, password)
    return `database ${u.toString()}`;
  } catch {
    return 'database (DATABASE_URL)';
  }
}

/**
 * openStore for the CLI: `created` tells whether this call made a new, empty store (no database
 * file in DATA_DIR; a PostgreSQL database without chartshot's tables), so the command can say
 * where it works: a key made in a fresh folder is unknown to a server using another one.
 */
export async function openStoreNoting(config: StoreConfig): Promise<{ store: Store; created: boolean }> {
  const created = config.databaseUrl ? await pgIsEmpty(config.databaseUrl) : !existsSync(join(config.dataDir, 'chartshot.db'));
  return { store: await openStore(config), created };
}

async function pgIsEmpty(url: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ empty: boolean }>("SELECT to_regclass('chartshot_migrations') IS NULL AS empty");
    return rows[0]?.empty === true;
  } catch {
    return false; // openStore reports an unreachable database in its own words
  } finally {
    await client.end().catch(() => {});
  }
}

/** What a CLI command prints on stderr after it created the store; `forKey`: it also made an API key there. */
export function newStoreNotice(config: StoreConfig, forKey = false): string {
  const setting = config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR';
  let text = `chartshot: created a new, empty store: ${describeStore(config)} (set ${setting} to use another)\n`;
  if (forKey) {
    const same = config.databaseUrl ? 'the same DATABASE_URL' : `DATA_DIR=${config.dataDir}`;
    text += `chartshot: warning: there was no database here before, so a server using another ${setting} will not know this key; start the server with ${same}\n`;
  }
  return text;
}
