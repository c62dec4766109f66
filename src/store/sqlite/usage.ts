// SQLite usage counters: generations per account and period (reserved and used), daily request
// and render statistics, and the usage thresholds reached.
// Each check-and-change runs in one synchronous transaction (BEGIN IMMEDIATE): atomic within the
// process and across the processes sharing the file (the CLI and the server).
import type Database from 'better-sqlite3';
import type { GenerationCount, OutboxItem, UsageStore } from '../metering.js';
import type { DB } from './db.js';
import { enqueueStmt } from './outbox.js';

/**
 * Counts one successful generation (used + 1, the reservation dropped, the day's render stats)
 * as one transaction; called inside another transaction it becomes a savepoint of it, so a
 * chart and its count commit together (sqliteCharts.createWithImage).
 */
export function generationCounter(db: DB): Database.Transaction<(g: GenerationCount) => number> {
  const commitReserved = db.prepare<[string, number], { used: number }>(
    'UPDATE usage_counters SET used = used + 1, reserved = MAX(0, reserved - 1) WHERE account_id = ? AND period_start = ? RETURNING used',
  );
  const commitPlain = db.prepare<[string, number], { used: number }>(
    `INSERT INTO usage_counters (account_id, period_start, used) VALUES (?, ?, 1)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = used + 1 RETURNING used`,
  );
  const dayStat = db.prepare(
    `INSERT INTO usage_daily (account_id, day, renders, render_ms, cache_hits) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET renders = renders + excluded.renders,
       render_ms = render_ms + excluded.render_ms, cache_hits = cache_hits + excluded.cache_hits`,
  );
  return db.transaction(({ accountId, periodStart, reserved, day, stat }: GenerationCount): number => {
    let used: number;
    if (reserved) {
      const r = commitReserved.get(accountId, periodStart);
      used = r ? r.used : commitPlain.get(accountId, periodStart)!.used;
    } else {
      used = commitPlain.get(accountId, periodStart)!.used;
    }
    const { renderMs, cacheHit } = stat;
    dayStat.run(accountId, day, cacheHit ? 0 : 1, cacheHit ? 0 : renderMs, cacheHit ? 1 : 0);
    return used;
  });
}

export function sqliteUsage(db: DB): UsageStore {
  const ensure = db.prepare('INSERT OR IGNORE INTO usage_counters (account_id, period_start) VALUES (?, ?)');
  const get = db.prepare<[string, number], { used: number; reserved: number }>(
    'SELECT used, reserved FROM usage_counters WHERE account_id = ? AND period_start = ?',
  );
  const reserve = db.prepare('UPDATE usage_counters SET reserved = reserved + 1 WHERE account_id = ? AND period_start = ?');
  const release = db.prepare('UPDATE usage_counters SET reserved = MAX(0, reserved - 1) WHERE account_id = ? AND period_start = ?');
  const setUsed = db.prepare(
    `INSERT INTO usage_counters (account_id, period_start, used) VALUES (?, ?, ?)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = excluded.used`,
  );
  const dayRequest = db.prepare(
    `INSERT INTO usage_daily (account_id, day, requests, succeeded) VALUES (?, ?, 1, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET requests = requests + 1, succeeded = succeeded + excluded.succeeded`,
  );
  const totals = db.prepare<[string, number, number], { requests: number | null; succeeded: number | null; renders: number | null; render_ms: number | null; cache_hits: number | null }>(
    `SELECT SUM(requests) AS requests, SUM(succeeded) AS succeeded, SUM(renders) AS renders, SUM(render_ms) AS render_ms,
       SUM(cache_hits) AS cache_hits FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ?`,
  );
  const markThreshold = db.prepare('INSERT OR IGNORE INTO usage_thresholds (account_id, period_start, threshold, at) VALUES (?, ?, ?, ?)');
  const clear = db.prepare('UPDATE usage_counters SET reserved = 0 WHERE reserved <> 0');
  const enqueue = enqueueStmt(db);

  const reserveTx = db.transaction((accountId: string, periodStart: number, cap: number | null): boolean => {
    ensure.run(accountId, periodStart);
    const row = get.get(accountId, periodStart)!;
    if (cap !== null && row.used + row.reserved >= cap) return false;
    reserve.run(accountId, periodStart);
    return true;
  });
  const commitTx = generationCounter(db);
  const thresholdTx = db.transaction((accountId: string, periodStart: number, threshold: number, at: number, notify: OutboxItem[]): boolean => {
    if (markThreshold.run(accountId, periodStart, threshold, at).changes === 0) return false;
    for (const item of notify) enqueue(item, at);
    return true;
  });

  return {
    async reserve(accountId, periodStart, cap) {
      return reserveTx.immediate(accountId, periodStart, cap);
    },
    async commit(accountId, periodStart, reserved, day, stat) {
      return commitTx.immediate({ accountId, periodStart, reserved, day, stat });
    },
    async release(accountId, periodStart) {
      release.run(accountId, periodStart);
    },
    async get(accountId, periodStart) {
      return get.get(accountId, periodStart) ?? { used: 0, reserved: 0 };
    },
    async setUsed(accountId, periodStart, used) {
      setUsed.run(accountId, periodStart, used);
    },
    async recordRequest(accountId, day, ok) {
      dayRequest.run(accountId, day, ok ? 1 : 0);
    },
    async totals(accountId, fromDay, toDay) {
      const r = totals.get(accountId, fromDay, toDay)!;
      return { requests: r.requests ?? 0, succeeded: r.succeeded ?? 0, renders: r.renders ?? 0, renderMs: r.render_ms ?? 0, cacheHits: r.cache_hits ?? 0 };
    },
    async markThreshold(accountId, periodStart, threshold, at, notify) {
      return thresholdTx.immediate(accountId, periodStart, threshold, at, notify);
    },
    async clearReservations() {
      clear.run();
    },
  };
}
