// PostgreSQL: short charts (created with their image and count in one transaction), their
// re-render buckets and remembered failures (row locks), and per-chart metrics.
import type { ChartMetricsStore, ChartStore, RerenderLimits, RerenderTake } from '../types.js';
import { failureOf, toChart, toMetrics, type ChartRow, type MetricsRow, type RerenderRow } from '../rows.js';
import { prepared, retryAborted, type PgDb, type Sql } from './db.js';
import { IMAGE_ARG_COUNT, imageArgs, imageUpsert } from './images.js';
import { countArgs, countCall } from './generation.js';

const RERENDER_COLUMNS = 'tokens, tokens_at, failures, retry_at, error_status, error_code, error_detail';

// A chart, its image and its count in one statement (so in one transaction, and one round trip).
// The count runs in the main query, so it locks the counter row before the inserts of the WITH
// clauses run (they run after it): the lock order of every other count and reservation.
const CREATE_WITH = `WITH chart AS (
    INSERT INTO charts (id, account_id, key_id, request_json, digest, created_at) VALUES ($1, $2, $3, $4, $5, $6)
  ), image AS (
    ${imageUpsert(7)}
  )`;
const CREATE_COUNTED = prepared('create_chart_counted', `${CREATE_WITH} SELECT ${countCall(7 + IMAGE_ARG_COUNT)} AS used`);
const CREATE_UNCOUNTED = prepared('create_chart', `${CREATE_WITH} SELECT NULL::bigint AS used`);
const EXISTS = prepared('chart_exists', 'SELECT 1 AS one FROM charts WHERE id = $1');

export function pgCharts(db: PgDb): ChartStore {
  return {
    async exists(id) {
      return (await db.one(EXISTS, [id])) !== null;
    },
    async createWithImage(c, image, count) {
      const args = [c.id, c.accountId, c.keyId, JSON.stringify(c.request), c.digest, c.createdAt, ...imageArgs(image.key, image.image)];
      const r = await retryAborted(() => db.one<{ used: number | null }>(count ? CREATE_COUNTED : CREATE_UNCOUNTED, count ? [...args, ...countArgs(count)] : args));
      return r?.used ?? null;
    },
    ...rerenderGuard(db),
    async find(id) {
      const r = await db.one<ChartRow>('SELECT id, account_id, key_id, request_json, digest, created_at FROM charts WHERE id = $1', [id]);
      return r ? toChart(r) : null;
    },
  };
}

/**
 * Re-render buckets and remembered failures (tables chart_rerenders, account_rerenders). Every
 * check-and-change locks the rows it reads (SELECT ... FOR UPDATE) for its transaction, so
 * instances taking from one bucket at once take turns; a missing row is first inserted full
 * (ON CONFLICT DO NOTHING waits for a concurrent insert), so there is always a row to lock.
 * Locks are taken chart first, then account, everywhere.
 */
function rerenderGuard(db: PgDb): Pick<ChartStore, 'rerenderFailure' | 'takeRerender' | 'chargeRerender' | 'recordRerenderFailure' | 'clearRerenderFailure'> {
  /** The chart's tokens now, its row locked; null when the chart does not exist. */
  const lockChart = async (sql: Sql, id: string, now: number, l: RerenderLimits): Promise<number | null> => {
    await sql.exec(
      `INSERT INTO chart_rerenders (chart_id, tokens, tokens_at) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM charts WHERE id = $1)
       ON CONFLICT (chart_id) DO NOTHING`,
      [id, l.chartBurst, now],
    );
    const r = await sql.one<{ tokens: number; tokens_at: number }>('SELECT tokens, tokens_at FROM chart_rerenders WHERE chart_id = $1 FOR UPDATE', [id]);
    return r ? Math.min(l.chartBurst, r.tokens + Math.max(0, now - r.tokens_at) / l.chartRefillMs) : null;
  };
  /** The account's page-time budget now, its row locked (the full budget for an unknown account). */
  const lockAccount = async (sql: Sql, id: string, now: number, l: RerenderLimits): Promise<number> => {
    await sql.exec(
      `INSERT INTO account_rerenders (account_id, budget_ms, budget_at) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM accounts WHERE id = $1)
       ON CONFLICT (account_id) DO NOTHING`,
      [id, l.accountBudgetMs, now],
    );
    const r = await sql.one<{ budget_ms: number; budget_at: number }>('SELECT budget_ms, budget_at FROM account_rerenders WHERE account_id = $1 FOR UPDATE', [id]);
    return r ? Math.min(l.accountBudgetMs, r.budget_ms + Math.max(0, now - r.budget_at) * l.accountRefillPerMs) : l.accountBudgetMs;
  };
  const setBudget = (sql: Sql, id: string, budget: number, at: number) =>
    sql.exec('UPDATE account_rerenders SET budget_ms = $2, budget_at = $3 WHERE account_id = $1', [id, budget, at]);

  return {
    async rerenderFailure(id) {
      return failureOf(await db.one<RerenderRow>(`SELECT ${RERENDER_COLUMNS} FROM chart_rerenders WHERE chart_id = $1`, [id]));
    },
    async takeRerender(id, accountId, now, l): Promise<RerenderTake> {
      return db.tx(async (sql) => {
        const tokens = (await lockChart(sql, id, now, l)) ?? l.chartBurst;
        if (tokens < 1) return { allowed: false, limit: 'chart', retryAfterMs: Math.ceil((1 - tokens) * l.chartRefillMs) };
        const budget = await lockAccount(sql, accountId, now, l);
        // Positive is enough: the attempt's real cost is charged afterwards (chargeRerender).
        if (budget <= 0) return { allowed: false, limit: 'account', retryAfterMs: Math.ceil((1 - budget) / l.accountRefillPerMs) };
        await sql.exec('UPDATE chart_rerenders SET tokens = $2, tokens_at = $3 WHERE chart_id = $1', [id, tokens - 1, now]);
        await setBudget(sql, accountId, budget, now);
        return { allowed: true };
      });
    },
    async chargeRerender(accountId, now, pageMs, l) {
      await db.tx(async (sql) => {
        const budget = await lockAccount(sql, accountId, now, l);
        await setBudget(sql, accountId, budget - pageMs, now);
      });
    },
    async recordRerenderFailure(id, now, e, backoffMs) {
      return db.tx(async (sql) => {
        // the increment is one upsert (it locks the row), so concurrent failures each count
        const r = await sql.one<{ failures: number }>(
          `INSERT INTO chart_rerenders (chart_id, tokens, tokens_at, failures, error_status, error_code, error_detail)
           SELECT $1, 0, $2, 1, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM charts WHERE id = $1)
           ON CONFLICT (chart_id) DO UPDATE SET failures = chart_rerenders.failures + 1,
             error_status = excluded.error_status, error_code = excluded.error_code, error_detail = excluded.error_detail
           RETURNING failures`,
          [id, now, e.status, e.code, e.detail],
        );
        if (!r) return null;
        const retryAt = now + backoffMs(r.failures);
        await sql.exec('UPDATE chart_rerenders SET retry_at = $2 WHERE chart_id = $1', [id, retryAt]);
        return { failures: r.failures, retryAt, status: e.status, code: e.code, detail: e.detail };
      });
    },
    async clearRerenderFailure(id) {
      await db.exec(
        'UPDATE chart_rerenders SET failures = 0, retry_at = NULL, error_status = NULL, error_code = NULL, error_detail = NULL WHERE chart_id = $1 AND failures > 0',
        [id],
      );
    },
  };
}

const FOREIGN_KEY = '23503';

export function pgChartMetrics(db: PgDb): ChartMetricsStore {
  // One statement per batch: rows of one chart are summed first (an upsert may touch a row once),
  // and the EXISTS guard drops counters of a chart deleted meanwhile instead of failing the batch.
  const ADD = `
    INSERT INTO chart_metrics (chart_id, hit_count, error_count, render_count, render_ms_total, last_accessed)
    SELECT u.chart_id, sum(u.h), sum(u.e), sum(u.r), sum(u.ms), max(u.la)
    FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::float8[], $6::bigint[]) AS u(chart_id, h, e, r, ms, la)
    WHERE EXISTS (SELECT 1 FROM charts WHERE id = u.chart_id)
    GROUP BY u.chart_id
    ON CONFLICT (chart_id) DO UPDATE SET
      hit_count = chart_metrics.hit_count + excluded.hit_count,
      error_count = chart_metrics.error_count + excluded.error_count,
      render_count = chart_metrics.render_count + excluded.render_count,
      render_ms_total = chart_metrics.render_ms_total + excluded.render_ms_total,
      last_accessed = CASE
        WHEN excluded.last_accessed IS NULL THEN chart_metrics.last_accessed
        WHEN chart_metrics.last_accessed IS NULL OR excluded.last_accessed > chart_metrics.last_accessed THEN excluded.last_accessed
        ELSE chart_metrics.last_accessed END`;
  return {
    async addBatch(rows) {
      if (rows.length === 0) return;
      const params = [
        rows.map((r) => r.chartId),
        rows.map((r) => r.hitCount),
        rows.map((r) => r.errorCount),
        rows.map((r) => r.renderCount),
        rows.map((r) => r.renderMsTotal),
        rows.map((r) => r.lastAccessed),
      ];
      for (let attempt = 0; ; attempt++) {
        try {
          await db.exec(ADD, params);
          return;
        } catch (err) {
          // a chart deleted between the guard and the insert: once more, the guard now drops it
          if ((err as { code?: unknown }).code !== FOREIGN_KEY || attempt >= 2) throw err;
        }
      }
    },
    async find(chartId) {
      const r = await db.one<MetricsRow>(
        'SELECT chart_id, hit_count, error_count, render_count, render_ms_total, last_accessed FROM chart_metrics WHERE chart_id = $1',
        [chartId],
      );
      return r ? toMetrics(r) : null;
    },
  };
}
