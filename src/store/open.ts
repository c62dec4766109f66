// The one place a Store is built, for the server, every CLI command and the tests: PostgreSQL
// when DATABASE_URL is set (shared by several instances), else SQLite in DATA_DIR.
import type { Config } from '../config.js';
import type { Store } from './types.js';
import { createSqliteStore } from './sqlite/index.js';
import { loadMasterKey } from './masterKey.js';
import { createPgStore } from './pg/index.js';

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'redisUrl'>;

export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl) return createPgStore({ url: config.databaseUrl });
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
