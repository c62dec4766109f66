// PostgreSQL: counting one successful generation (usage_counters, usage_daily, its reservation
// dropped) inside a caller's transaction, so a chart and its count commit together.
import type { GenerationCount } from '../metering.js';
import { prepared, retryAborted, type Sql } from './db.js';

/**
 * The call of chartshot_count_generation (migration 5: used + 1, the reservation dropped, the
 * day's render stats) with its arguments from `$<first>` on, for a statement that writes more
 * rows around it; its parameters are countArgs(count).
 */
export function countCall(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `chartshot_count_generation(${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)})`;
}

export function countArgs({ accountId, periodStart, reservation, day, stat }: GenerationCount): unknown[] {
  const { renderMs, cacheHit } = stat;
  return [accountId, periodStart, reservation, day, cacheHit ? 0 : 1, cacheHit ? 0 : renderMs, cacheHit ? 1 : 0];
}

const COUNT = prepared('count_generation', `SELECT ${countCall(1)} AS used`);

/** used + 1, its reservation dropped (when there was one) and the day's render stats, in one statement; returns used. */
export async function countGeneration(sql: Sql, count: GenerationCount): Promise<number> {
  return (await retryAborted(() => sql.one<{ used: number }>(COUNT, countArgs(count))))!.used;
}
