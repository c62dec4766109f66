// The dashboard's sign-in sessions and reads in SQLite.
import type { DailyUsageRow, DashboardStore, TopChartRow } from '../dashboard.js';
import type { DB } from './db.js';

interface SessionRow {
  account_id: string;
  csrf: string;
  created_at: number;
  expires_at: number;
}

/** `before` runs ahead of every read of usage_daily (writes the request analytics still pending). */
export function sqliteDashboard(db: DB, before: () => Promise<void> = async () => {}): DashboardStore {
  const insert = db.prepare('INSERT INTO dashboard_sessions (token_hash, account_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
  const find = db.prepare<[string], SessionRow>('SELECT account_id, csrf, created_at, expires_at FROM dashboard_sessions WHERE token_hash = ?');
  const del = db.prepare('DELETE FROM dashboard_sessions WHERE token_hash = ?');
  const purge = db.prepare('DELETE FROM dashboard_sessions WHERE expires_at <= ?');
  const delAccount = db.prepare('DELETE FROM dashboard_sessions WHERE account_id = ?');
  const trim = db.prepare(
    `DELETE FROM dashboard_sessions WHERE account_id = ? AND token_hash NOT IN (
       SELECT token_hash FROM dashboard_sessions WHERE account_id = ? ORDER BY created_at DESC, token_hash DESC LIMIT ?)`,
  );
  const daily = db.prepare<[string, number, number], { day: number; requests: number; succeeded: number; renders: number; cache_hits: number }>(
    'SELECT day, requests, succeeded, renders, cache_hits FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day',
  );
  const top = db.prepare<[string, number], { id: string; created_at: number; hit_count: number; error_count: number; render_count: number; render_ms_total: number; last_accessed: number | null }>(
    `SELECT c.id, c.created_at, m.hit_count, m.error_count, m.render_count, m.render_ms_total, m.last_accessed
     FROM charts c JOIN chart_metrics m ON m.chart_id = c.id
     WHERE c.account_id = ? ORDER BY m.hit_count DESC, c.id LIMIT ?`,
  );
  const byEmail = db.prepare<[string], { id: string }>("SELECT id FROM accounts WHERE lower(signin_email) = lower(?) AND status <> 'terminated' ORDER BY created_at LIMIT 2");
  const touch = db.prepare(
    'INSERT INTO key_last_used (key_id, account_id, used_at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET used_at = max(used_at, excluded.used_at)',
  );
  const lastUsed = db.prepare<[string], { key_id: string; used_at: number }>('SELECT key_id, used_at FROM key_last_used WHERE account_id = ?');
  return {
    async touchKey(keyId, accountId, at) {
      touch.run(keyId, accountId, at);
    },
    async keysLastUsed(accountId) {
      return new Map(lastUsed.all(accountId).map((r) => [r.key_id, r.used_at]));
    },
    async accountsByEmail(email) {
      return byEmail.all(email).map((r) => r.id);
    },
    async createSession(h, s) {
      insert.run(h, s.accountId, s.csrf, s.createdAt, s.expiresAt);
    },
    async findSession(h) {
      const r = find.get(h);
      return r ? { accountId: r.account_id, csrf: r.csrf, createdAt: r.created_at, expiresAt: r.expires_at } : null;
    },
    async deleteSession(h) {
      del.run(h);
    },
    async deleteAccountSessions(accountId) {
      return delAccount.run(accountId).changes;
    },
    async trimSessions(accountId, keep) {
      return trim.run(accountId, accountId, keep).changes;
    },
    async purgeExpiredSessions(now) {
      return purge.run(now).changes;
    },
    async dailyUsage(accountId, fromDay, toDay): Promise<DailyUsageRow[]> {
      await before();
      return daily.all(accountId, fromDay, toDay).map((r) => ({ day: r.day, requests: r.requests, succeeded: r.succeeded, renders: r.renders, cacheHits: r.cache_hits }));
    },
    async topCharts(accountId, limit): Promise<TopChartRow[]> {
      return top.all(accountId, limit).map((r) => ({
        chartId: r.id, hitCount: r.hit_count, errorCount: r.error_count, renderCount: r.render_count,
        renderMsTotal: r.render_ms_total, lastAccessed: r.last_accessed, createdAt: r.created_at,
      }));
    },
  };
}

/** Signs a terminated account out of the dashboard and forgets its keys' use, inside the purge's transaction. */
export function dashboardPurge(db: DB): (accountId: string) => void {
  const sessions = db.prepare('DELETE FROM dashboard_sessions WHERE account_id = ?');
  const used = db.prepare('DELETE FROM key_last_used WHERE account_id = ?');
  return (accountId) => {
    sessions.run(accountId);
    used.run(accountId);
  };
}
