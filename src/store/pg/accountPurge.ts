// The purge of a terminated account in PostgreSQL: each table family deletes its own rows of the
// account, all in one transaction.
import type { PgDb, Sql } from './db.js';
import { purgeUsage } from './usage.js';
import { purgeRateLimits } from './rateLimits.js';
import { purgeTrials } from './trials.js';
import { purgeBilling } from './billing.js';
import { purgeDashboard } from './dashboard.js';

/** Accounts, keys and sessions: the keys and sessions go, the account row stays without its e-mail address. */
async function purgeAccountRows(sql: Sql, accountId: string): Promise<void> {
  await sql.exec('DELETE FROM api_keys WHERE account_id = $1', [accountId]);
  await sql.exec('DELETE FROM sessions WHERE account_id = $1', [accountId]);
  await sql.exec('UPDATE accounts SET email = NULL, signin_email = NULL WHERE id = $1', [accountId]);
}

/** Short charts with their cached images (keyed by chart id), metrics and re-render state (cascade), and the re-render budget. */
async function purgeCharts(sql: Sql, accountId: string): Promise<void> {
  await sql.exec("DELETE FROM images WHERE key IN (SELECT 'chart:' || id FROM charts WHERE account_id = $1)", [accountId]);
  await sql.exec('DELETE FROM charts WHERE account_id = $1', [accountId]);
  await sql.exec('DELETE FROM account_rerenders WHERE account_id = $1', [accountId]);
}

const FAMILIES = [purgeCharts, purgeAccountRows, purgeUsage, purgeRateLimits, purgeTrials, purgeBilling, purgeDashboard];

/**
 * `before`: runs first (request analytics still pending are written, so none lands after the purge).
 * `wrote`: told after the purge, which changes keys, the account and its billing record.
 */
export function pgPurgeAccountData(db: PgDb, before: () => Promise<void> = async () => {}, wrote: () => void = () => {}): (accountId: string) => Promise<void> {
  return async (accountId) => {
    await before();
    try {
      await db.tx(async (sql) => {
        for (const purge of FAMILIES) await purge(sql, accountId);
      });
    } finally {
      wrote();
    }
  };
}
