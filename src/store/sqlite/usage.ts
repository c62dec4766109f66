// SQLite usage counters: generations per account and period (used, and reservations with their
// owner and lease), daily request and render statistics, and the usage thresholds reached.
// Each check-and-change runs in one synchronous transaction (BEGIN IMMEDIATE): atomic within the
// process and across the processes sharing the file (the CLI and the server).
import type Database from 'better-sqlite3';
import type { GenerationCount, OutboxItem, UsageStore } from '../metering.js';
import type { DB } from './db.js';
import { enqueueStmt } from './outbox.js';
import { RequestCounts, type RequestCount } from '../requestCounts.js';

/**
 * Counts one successful generation (used + 1, its reservation dropped, the day's render stats)
 * as one transaction; called inside another transaction it becomes a savepoint of it, so a
 * chart and its count commit together (sqliteCharts.createWithImage).
 */
export function generationCounter(db: DB): Database.Transaction<(g: GenerationCount) => number> {
  const count = db.prepare<[string, number], { used: number }>(
    `INSERT INTO usage_counters (account_id, period_start, used) VALUES (?, ?, 1)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = used + 1 RETURNING used`,
  );
  const dropReservation = db.prepare('DELETE FROM usage_reservations WHERE id = ?');
  const dayStat = db.prepare(
    `INSERT INTO usage_daily (account_id, day, renders, render_ms, cache_hits) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET renders = renders + excluded.renders,
       render_ms = render_ms + excluded.render_ms, cache_hits = cache_hits + excluded.cache_hits`,
  );
  return db.transaction(({ accountId, periodStart, reservation, day, stat }: GenerationCount): number => {
    if (reservation !== null) dropReservation.run(reservation);
    const used = count.get(accountId, periodStart)!.used;
    const { renderMs, cacheHit } = stat;
    dayStat.run(accountId, day, cacheHit ? 0 : 1, cacheHit ? 0 : renderMs, cacheHit ? 1 : 0);
    return used;
  });
}

/** Deletes an account's usage rows, inside the purge's transaction. */
export function usagePurge(db: DB): (accountId: string) => void {
  const stmts = ['usage_counters', 'usage_daily', 'usage_thresholds', 'usage_reservations'].map((t) =>
    db.prepare(`DELETE FROM ${t} WHERE account_id = ?`),
  );
  return (accountId) => {
    for (const s of stmts) s.run(accountId);
  };
}

/**
 * Request analytics of this process written in batches (src/store/requestCounts.ts, decision
 * 0029): the requests of a tenth of a second in one transaction instead of one or two each.
 */
export function sqliteRequestCounts(db: DB): RequestCounts {
  const add = db.prepare(
    `INSERT INTO usage_daily (account_id, day, requests, succeeded, render_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET requests = requests + excluded.requests,
       succeeded = succeeded + excluded.succeeded, render_ms = render_ms + excluded.render_ms`,
  );
  const tx = db.transaction((batch: RequestCount[]) => {
    for (const c of batch) add.run(c.accountId, c.day, c.requests, c.succeeded, c.renderMs);
  });
  return new RequestCounts(async (batch) => {
    tx.immediate(batch);
  });
}

export function sqliteUsage(db: DB, requests: RequestCounts): UsageStore {
  const used = db.prepare<[string, number], { used: number }>('SELECT used FROM usage_counters WHERE account_id = ? AND period_start = ?');
  const held = db.prepare<[string, number], { n: number }>('SELECT COUNT(*) AS n FROM usage_reservations WHERE account_id = ? AND period_start = ?');
  const expire = db.prepare('DELETE FROM usage_reservations WHERE account_id = ? AND period_start = ? AND lease_until <= ?');
  const reserve = db.prepare('INSERT INTO usage_reservations (account_id, period_start, owner, lease_until) VALUES (?, ?, ?, ?)');
  const release = db.prepare('DELETE FROM usage_reservations WHERE id = ?');
  const setUsed = db.prepare(
    `INSERT INTO usage_counters (account_id, period_start, used) VALUES (?, ?, ?)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = excluded.used`,
  );
  const uncountUsed = db.prepare('UPDATE usage_counters SET used = used - 1 WHERE account_id = ? AND period_start = ? AND used > 0');
  const uncountRender = db.prepare('UPDATE usage_daily SET renders = renders - 1 WHERE account_id = ? AND day = ? AND renders > 0');
  const uncountTx = db.transaction((accountId: string, periodStart: number, day: number) => {
    uncountUsed.run(accountId, periodStart);
    uncountRender.run(accountId, day);
  });
  const totals = db.prepare<[string, number, number], { requests: number | null; succeeded: number | null; renders: number | null; render_ms: number | null; cache_hits: number | null }>(
    `SELECT SUM(requests) AS requests, SUM(succeeded) AS succeeded, SUM(renders) AS renders, SUM(render_ms) AS render_ms,
       SUM(cache_hits) AS cache_hits FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ?`,
  );
  const markThreshold = db.prepare('INSERT OR IGNORE INTO usage_thresholds (account_id, period_start, threshold, at) VALUES (?, ?, ?, ?)');
  const clear = db.prepare('DELETE FROM usage_reservations WHERE owner = ? OR lease_until <= ?');
  const clearAll = db.prepare('DELETE FROM usage_reservations');
  const enqueue = enqueueStmt(db);
  const count = (accountId: string, periodStart: number) => ({
    used: used.get(accountId, periodStart)?.used ?? 0,
    reserved: held.get(accountId, periodStart)!.n,
  });

  const reserveTx = db.transaction((accountId: string, periodStart: number, cap: number | null, owner: string, now: number, leaseMs: number): number | null => {
    // leftovers of a dead instance stop counting once their lease has passed
    expire.run(accountId, periodStart, now);
    const c = count(accountId, periodStart);
    if (cap !== null && c.used + c.reserved >= cap) return null;
    return Number(reserve.run(accountId, periodStart, owner, now + leaseMs).lastInsertRowid);
  });
  const commitTx = generationCounter(db);
  const thresholdTx = db.transaction((accountId: string, periodStart: number, threshold: number, at: number, notify: OutboxItem[]): boolean => {
    if (markThreshold.run(accountId, periodStart, threshold, at).changes === 0) return false;
    for (const item of notify) enqueue(item, at);
    return true;
  });

  return {
    async reserve(accountId, periodStart, cap, lease) {
      return reserveTx.immediate(accountId, periodStart, cap, lease.owner, lease.now, lease.leaseMs);
    },
    async commit(accountId, periodStart, reservation, day, stat) {
      return commitTx.immediate({ accountId, periodStart, reservation, day, stat });
    },
    async release(reservation) {
      release.run(reservation);
    },
    async get(accountId, periodStart) {
      return count(accountId, periodStart);
    },
    async setUsed(accountId, periodStart, n) {
      setUsed.run(accountId, periodStart, n);
    },
    async recordRequest(accountId, day, ok) {
      await requests.add(accountId, day, ok);
    },
    async addRenderMs(accountId, day, renderMs) {
      await requests.addRenderMs(accountId, day, renderMs);
    },
    async uncount(accountId, periodStart, day) {
      uncountTx.immediate(accountId, periodStart, day);
    },
    async totals(accountId, fromDay, toDay) {
      await requests.flush();
      const r = totals.get(accountId, fromDay, toDay)!;
      return { requests: r.requests ?? 0, succeeded: r.succeeded ?? 0, renders: r.renders ?? 0, renderMs: r.render_ms ?? 0, cacheHits: r.cache_hits ?? 0 };
    },
    async markThreshold(accountId, periodStart, threshold, at, notify) {
      return thresholdTx.immediate(accountId, periodStart, threshold, at, notify);
    },
    async clearReservations(owner, now) {
      if (owner === null) clearAll.run();
      else clear.run(owner, now);
    },
  };
}
