import type { Store } from '../types.js';
import { openDatabase, type DB } from './db.js';
import { accountsPurge, sqliteAccounts, sqliteKeys, sqliteSessions } from './accounts.js';
import { sqliteImages } from './images.js';
import { sqliteRequestCounts, sqliteUsage, usagePurge } from './usage.js';
import { rateLimitsPurge, sqliteRateLimits } from './rateLimits.js';
import { sqliteTrials, trialsPurge } from './trials.js';
import { billingPurge, sqliteBilling } from './billing.js';
import { sqliteOutbox } from './outbox.js';
import { sqliteOpenWindows } from './openWindows.js';
import { chartsPurge, sqliteChartMetrics, sqliteCharts } from './charts.js';
import { sqliteLocks } from './locks.js';
import { sqliteRetention } from './retention.js';
import { dashboardPurge, sqliteDashboard } from './dashboard.js';
import { guarded, toStorageError } from './errors.js';

export interface SqliteStore extends Store {
  readonly db: DB;
}

/** The embedded default store: one SQLite file in dataDir (or ':memory:' in tests). */
export function createSqliteStore(dataDir: string | ':memory:'): SqliteStore {
  const db = openDatabase(dataDir);
  const ping = db.prepare('SELECT 1');
  // data_version changes with every commit of another connection (another process); this
  // connection's own writes to accounts, keys and billing records are counted here
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let ownWrites = 0;
  const wrote = () => {
    ownWrites++;
  };
  // each table family deletes its own rows of a terminated account; all of them in one transaction
  const purges = [chartsPurge(db), accountsPurge(db), usagePurge(db), rateLimitsPurge(db), trialsPurge(db), billingPurge(db), dashboardPurge(db)];
  const purgeTx = db.transaction((accountId: string) => {
    for (const purge of purges) purge(accountId);
  });
  let closed = false;
  // request analytics batched in memory (decision 0029): read paths and close() write them first
  const requests = sqliteRequestCounts(db);
  const flushed = () => requests.flush();
  return {
    exclusive: true,
    db,
    images: guarded(sqliteImages(db)),
    accounts: guarded(sqliteAccounts(db, wrote)),
    keys: guarded(sqliteKeys(db, wrote)),
    sessions: guarded(sqliteSessions(db)),
    usage: guarded(sqliteUsage(db, requests)),
    rateLimits: guarded(sqliteRateLimits(db)),
    trials: guarded(sqliteTrials(db)),
    billing: guarded(sqliteBilling(db, wrote)),
    outbox: guarded(sqliteOutbox(db)),
    openWindows: guarded(sqliteOpenWindows(db)),
    charts: guarded(sqliteCharts(db)),
    chartMetrics: guarded(sqliteChartMetrics(db)),
    retention: guarded(sqliteRetention(db, flushed)),
    locks: sqliteLocks(),
    dashboard: guarded(sqliteDashboard(db, flushed)),
    async purgeAccountData(accountId) {
      try {
        await flushed();
        purgeTx.immediate(accountId);
      } catch (err) {
        throw toStorageError(err);
      } finally {
        wrote();
      }
    },
    async ping() {
      const t = process.hrtime.bigint();
      try {
        ping.get();
      } catch (err) {
        throw toStorageError(err);
      }
      return Number(process.hrtime.bigint() - t) / 1e6;
    },
    authVersion() {
      return closed ? -1 : (dataVersion.get() as number) * 2 ** 32 + ownWrites;
    },
    async close() {
      if (closed) return;
      closed = true;
      // request analytics still pending are written first; when that fails the store still closes, then says so
      const failed = await flushed().then(() => null, (err: unknown) => toStorageError(err));
      db.close();
      if (failed !== null) throw failed;
    },
  };
}
