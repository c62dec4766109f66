// The PostgreSQL store: the same Store interface as SQLite, for several instances sharing one
// database. One file per table family, as in store/sqlite/.
import type { Store } from '../types.js';
import { openPg, type PgDb, type PgOptions } from './db.js';
import { pgAccounts, pgKeys, pgSessions } from './accounts.js';
import { pgImages } from './images.js';
import { pgCharts, pgChartMetrics } from './charts.js';
import { pgOpenWindows } from './openWindows.js';
import { pgRequestCounts, pgUsage } from './usage.js';
import { pgRateLimits } from './rateLimits.js';
import { pgTrials } from './trials.js';
import { pgBilling } from './billing.js';
import { pgOutbox } from './outbox.js';
import { authChanges } from './authVersion.js';
import { pgLocks } from './locks.js';
import { pgRetention } from './retention.js';
import { pgPurgeAccountData } from './accountPurge.js';
import { pgDashboard } from './dashboard.js';

export interface PgStore extends Store {
  readonly db: PgDb;
  /** Resolves once every change to accounts, keys or billing committed before the call is counted in authVersion(). */
  authSettled(): Promise<void>;
}

export async function createPgStore(opts: PgOptions): Promise<PgStore> {
  const db = await openPg(opts);
  let auth: Awaited<ReturnType<typeof authChanges>>;
  try {
    auth = await authChanges(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  let closed = false;
  const requests = pgRequestCounts(db);
  return {
    db,
    exclusive: false,
    accounts: pgAccounts(db, auth.wrote),
    keys: pgKeys(db, auth.wrote),
    sessions: pgSessions(db),
    images: pgImages(db),
    charts: pgCharts(db),
    chartMetrics: pgChartMetrics(db),
    retention: pgRetention(db, () => requests.flush()),
    openWindows: pgOpenWindows(db),
    usage: pgUsage(db, requests),
    rateLimits: pgRateLimits(db),
    trials: pgTrials(db),
    billing: pgBilling(db, auth.wrote),
    outbox: pgOutbox(db),
    locks: pgLocks(db),
    dashboard: pgDashboard(db, () => requests.flush()),
    purgeAccountData: pgPurgeAccountData(db, () => requests.flush(), auth.wrote),
    async ping() {
      const t = process.hrtime.bigint();
      await db.one('SELECT 1');
      return Number(process.hrtime.bigint() - t) / 1e6;
    },
    authVersion() {
      return closed ? -1 : auth.version();
    },
    authSettled() {
      return auth.settled();
    },
    reachability() {
      return db.reach.report();
    },
    async close() {
      if (closed) return;
      closed = true;
      // request analytics still pending are written first; when that fails the store still closes, then says so
      const flushed = await requests.flush().then(() => null, (err: unknown) => err);
      await auth.close();
      await db.close();
      if (flushed !== null) throw flushed;
    },
  };
}
