// PostgreSQL usage counters: generations per account and period (used, and reservations with
// their owner and lease), daily request and render statistics, and the usage thresholds reached.
// A reservation locks its counter row, so instances sharing the database never pass a cap.
import type { OutboxItem, UsageStore } from '../metering.js';
import { prepared, retryAborted, type PgDb, type Sql } from './db.js';
import { enqueueIn } from './outbox.js';
import { countGeneration } from './generation.js';
import { RequestCounts } from '../requestCounts.js';

/** Deletes an account's usage rows, inside the purge's transaction. */
export async function purgeUsage(sql: Sql, accountId: string): Promise<void> {
  for (const t of ['usage_counters', 'usage_daily', 'usage_thresholds', 'usage_reservations']) {
    await sql.exec(`DELETE FROM ${t} WHERE account_id = $1`, [accountId]);
  }
}

async function count(sql: Sql, accountId: string, periodStart: number): Promise<{ used: number; reserved: number }> {
  const r = await sql.one<{ used: number; reserved: number }>(
    `SELECT COALESCE((SELECT used FROM usage_counters WHERE account_id = $1 AND period_start = $2), 0) AS used,
       (SELECT COUNT(*) FROM usage_reservations WHERE account_id = $1 AND period_start = $2) AS reserved`,
    [accountId, periodStart],
  );
  return r!;
}

// One statement each: the function of migration 5 locks the counter row, drops lapsed
// reservations, counts and reserves, as a transaction of separate statements did.
const RESERVE = prepared('reserve', 'SELECT chartshot_reserve($1, $2, $3, $4, $5, $6) AS id');
const RELEASE = prepared('release', 'DELETE FROM usage_reservations WHERE id = $1');
// rows of distinct (account, day), sorted: concurrent batches lock rows in one order
const ADD_REQUESTS = prepared(
  'add_requests_ms',
  `INSERT INTO usage_daily (account_id, day, requests, succeeded, render_ms)
   SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::bigint[], $5::double precision[])
   ON CONFLICT (account_id, day) DO UPDATE SET requests = usage_daily.requests + excluded.requests,
     succeeded = usage_daily.succeeded + excluded.succeeded, render_ms = usage_daily.render_ms + excluded.render_ms`,
);
const UNCOUNT = prepared(
  'uncount',
  `WITH used AS (UPDATE usage_counters SET used = used - 1 WHERE account_id = $1 AND period_start = $2 AND used > 0 RETURNING 1)
   UPDATE usage_daily SET renders = renders - 1 WHERE account_id = $1 AND day = $3 AND renders > 0`,
);

/** Request analytics of this instance, one statement per batch (src/store/requestCounts.ts). */
export function pgRequestCounts(db: PgDb): RequestCounts {
  return new RequestCounts(async (batch) => {
    await db.exec(ADD_REQUESTS, [batch.map((c) => c.accountId), batch.map((c) => c.day), batch.map((c) => c.requests), batch.map((c) => c.succeeded), batch.map((c) => c.renderMs)]);
  });
}

export function pgUsage(db: PgDb, requests: RequestCounts): UsageStore {
  return {
    async reserve(accountId, periodStart, cap, { owner, now, leaseMs }) {
      const r = await retryAborted(() => db.one<{ id: number | null }>(RESERVE, [accountId, periodStart, cap, owner, now, leaseMs]));
      return r?.id ?? null;
    },
    async commit(accountId, periodStart, reservation, day, stat) {
      return countGeneration(db, { accountId, periodStart, reservation, day, stat });
    },
    async release(reservation) {
      await db.exec(RELEASE, [reservation]);
    },
    async get(accountId, periodStart) {
      return count(db, accountId, periodStart);
    },
    async setUsed(accountId, periodStart, used) {
      await db.exec(
        `INSERT INTO usage_counters (account_id, period_start, used) VALUES ($1, $2, $3)
         ON CONFLICT (account_id, period_start) DO UPDATE SET used = excluded.used`,
        [accountId, periodStart, used],
      );
    },
    async recordRequest(accountId, day, ok) {
      await requests.add(accountId, day, ok);
    },
    async addRenderMs(accountId, day, renderMs) {
      await requests.addRenderMs(accountId, day, renderMs);
    },
    async uncount(accountId, periodStart, day) {
      await db.exec(UNCOUNT, [accountId, periodStart, day]);
    },
    async totals(accountId, fromDay, toDay) {
      await requests.flush();
      const r = (await db.one<{ requests: number | null; succeeded: number | null; renders: number | null; render_ms: number | null; cache_hits: number | null }>(
        `SELECT SUM(requests) AS requests, SUM(succeeded) AS succeeded, SUM(renders) AS renders, SUM(render_ms) AS render_ms,
           SUM(cache_hits) AS cache_hits FROM usage_daily WHERE account_id = $1 AND day >= $2 AND day <= $3`,
        [accountId, fromDay, toDay],
      ))!;
      return { requests: r.requests ?? 0, succeeded: r.succeeded ?? 0, renders: r.renders ?? 0, renderMs: r.render_ms ?? 0, cacheHits: r.cache_hits ?? 0 };
    },
    async markThreshold(accountId, periodStart, threshold, at, notify: OutboxItem[]) {
      return db.tx(async (sql) => {
        const n = await sql.exec(
          'INSERT INTO usage_thresholds (account_id, period_start, threshold, at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
          [accountId, periodStart, threshold, at],
        );
        if (n === 0) return false;
        for (const item of notify) await enqueueIn(sql, item, at);
        return true;
      });
    },
    async clearReservations(owner, now) {
      if (owner === null) await db.exec('DELETE FROM usage_reservations');
      else await db.exec('DELETE FROM usage_reservations WHERE owner = $1 OR lease_until <= $2', [owner, now]);
    },
  };
}
