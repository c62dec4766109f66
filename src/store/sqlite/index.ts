import type { Store } from '../types.js';
import { openDatabase, type DB } from './db.js';
import { sqliteAccounts, sqliteKeys, sqliteSessions } from './accounts.js';
import { sqliteImages } from './images.js';
import { sqliteUsage } from './usage.js';
import { sqliteRateLimits } from './rateLimits.js';
import { sqliteTrials } from './trials.js';
import { sqliteBilling } from './billing.js';
import { sqliteOutbox } from './outbox.js';
import { sqliteOpenWindows } from './openWindows.js';
import { sqliteChartMetrics, sqliteCharts } from './charts.js';

export interface SqliteStore extends Store {
  readonly db: DB;
}

/** The embedded default store: one SQLite file in dataDir (or ':memory:' in tests). */
export function createSqliteStore(dataDir: string | ':memory:'): SqliteStore {
  const db = openDatabase(dataDir);
  const ping = db.prepare('SELECT 1');
  // data_version changes with every commit of another connection (another process); this
  // connection's own writes to accounts and keys are counted here
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let ownWrites = 0;
  const wrote = () => {
    ownWrites++;
  };
  let closed = false;
  return {
    db,
    images: sqliteImages(db),
    accounts: sqliteAccounts(db, wrote),
    keys: sqliteKeys(db, wrote),
    sessions: sqliteSessions(db),
    usage: sqliteUsage(db),
    rateLimits: sqliteRateLimits(db),
    trials: sqliteTrials(db),
    billing: sqliteBilling(db, wrote),
    outbox: sqliteOutbox(db),
    openWindows: sqliteOpenWindows(db),
    charts: sqliteCharts(db),
    chartMetrics: sqliteChartMetrics(db),
    async ping() {
      const t = process.hrtime.bigint();
      ping.get();
      return Number(process.hrtime.bigint() - t) / 1e6;
    },
    authVersion() {
      return closed ? -1 : (dataVersion.get() as number) * 2 ** 32 + ownWrites;
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
