// PostgreSQL: counting one successful generation (usage_counters, usage_daily, its reservation
// dropped) inside a caller's transaction, so a chart and its count commit together.
import type { GenerationCount } from '../metering.js';
import type { Sql } from './db.js';

/** used + 1, its reservation dropped (when there was one) and the day's render stats; returns used. */
export async function countGeneration(sql: Sql, { accountId, periodStart, reservation, day, stat }: GenerationCount): Promise<number> {
  // the counter row first, as reserve() locks it: the same lock order, no deadlock
  const row = await sql.one<{ used: number }>(
    `INSERT INTO usage_counters (account_id, period_start, used) VALUES ($1, $2, 1)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = usage_counters.used + 1 RETURNING used`,
    [accountId, periodStart],
  );
  if (reservation !== null) await sql.exec('DELETE FROM usage_reservations WHERE id = $1', [reservation]);
  const { renderMs, cacheHit } = stat;
  await sql.exec(
    `INSERT INTO usage_daily (account_id, day, renders, render_ms, cache_hits) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, day) DO UPDATE SET renders = usage_daily.renders + excluded.renders,
       render_ms = usage_daily.render_ms + excluded.render_ms, cache_hits = usage_daily.cache_hits + excluded.cache_hits`,
    [accountId, day, cacheHit ? 0 : 1, cacheHit ? 0 : renderMs, cacheHit ? 1 : 0],
  );
  return row!.used;
}
