// The dashboard's sign-in sessions and reads in PostgreSQL.
import type { DailyUsageRow, DashboardStore, TopChartRow } from '../dashboard.js';
import type { PgDb, Sql } from './db.js';

interface SessionRow {
  account_id: string;
  csrf: string;
  created_at: number;
  expires_at: number;
}

/** `before`: request analytics written behind the answer land before usage rows are read. */
export function pgDashboard(db: PgDb, before: () => Promise<void> = async () => {}): DashboardStore {
  return {
    async touchKey(keyId, accountId, at) {
      await db.exec(
        'INSERT INTO key_last_used (key_id, account_id, used_at) VALUES ($1, $2, $3) ON CONFLICT (key_id) DO UPDATE SET used_at = GREATEST(key_last_used.used_at, excluded.used_at)',
        [keyId, accountId, at],
      );
    },
    async keysLastUsed(accountId) {
      const rows = await db.rows<{ key_id: string; used_at: number }>('SELECT key_id, used_at FROM key_last_used WHERE account_id = $1', [accountId]);
      return new Map(rows.map((r) => [r.key_id, Number(r.used_at)]));
    },
    async accountsByEmail(email) {
      const rows = await db.rows<{ id: string }>("SELECT id FROM accounts WHERE lower(signin_email) = lower($1) AND status <> 'terminated' ORDER BY created_at LIMIT 2", [email]);
      return rows.map((r) => r.id);
    },
    async createSession(h, s) {
      await db.exec('INSERT INTO dashboard_sessions (token_hash, account_id, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
        h, s.accountId, s.csrf, s.createdAt, s.expiresAt,
      ]);
    },
    async findSession(h) {
      const r = await db.one<SessionRow>('SELECT account_id, csrf, created_at, expires_at FROM dashboard_sessions WHERE token_hash = $1', [h]);
      return r ? { accountId: r.account_id, csrf: r.csrf, createdAt: r.created_at, expiresAt: r.expires_at } : null;
    },
    async deleteSession(h) {
      await db.exec('DELETE FROM dashboard_sessions WHERE token_hash = $1', [h]);
    },
    async deleteAccountSessions(accountId) {
      return db.exec('DELETE FROM dashboard_sessions WHERE account_id = $1', [accountId]);
    },
    async trimSessions(accountId, keep) {
      return db.exec(
        `DELETE FROM dashboard_sessions WHERE account_id = $1 AND token_hash NOT IN (
           SELECT token_hash FROM dashboard_sessions WHERE account_id = $1 ORDER BY created_at DESC, token_hash DESC LIMIT $2)`,
        [accountId, keep],
      );
    },
    async purgeExpiredSessions(now) {
      return db.exec('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now]);
    },
    async dailyUsage(accountId, fromDay, toDay): Promise<DailyUsageRow[]> {
      await before();
      const rows = await db.rows<{ day: number; requests: number; succeeded: number; renders: number; cache_hits: number }>(
        'SELECT day, requests, succeeded, renders, cache_hits FROM usage_daily WHERE account_id = $1 AND day >= $2 AND day <= $3 ORDER BY day',
        [accountId, fromDay, toDay],
      );
      return rows.map((r) => ({ day: Number(r.day), requests: Number(r.requests), succeeded: Number(r.succeeded), renders: Number(r.renders), cacheHits: Number(r.cache_hits) }));
    },
    async topCharts(accountId, limit): Promise<TopChartRow[]> {
      const rows = await db.rows<{ id: string; created_at: number; hit_count: number; error_count: number; render_count: number; render_ms_total: number; last_accessed: number | null }>(
        `SELECT c.id, c.created_at, m.hit_count, m.error_count, m.render_count, m.render_ms_total, m.last_accessed
         FROM charts c JOIN chart_metrics m ON m.chart_id = c.id
         WHERE c.account_id = $1 ORDER BY m.hit_count DESC, c.id LIMIT $2`,
        [accountId, limit],
      );
      return rows.map((r) => ({
        chartId: r.id, hitCount: Number(r.hit_count), errorCount: Number(r.error_count), renderCount: Number(r.render_count),
        renderMsTotal: Number(r.render_ms_total), lastAccessed: r.last_accessed === null ? null : Number(r.last_accessed), createdAt: Number(r.created_at),
      }));
    },
  };
}

/** Signs a terminated account out of the dashboard and forgets its keys' use, inside the purge's transaction. */
export async function purgeDashboard(sql: Sql, accountId: string): Promise<void> {
  await sql.exec('DELETE FROM dashboard_sessions WHERE account_id = $1', [accountId]);
  await sql.exec('DELETE FROM key_last_used WHERE account_id = $1', [accountId]);
}
