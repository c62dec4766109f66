import type { GenerationCount } from '../metering.js';
import type { ChartMetricsRow, ChartMetricsStore, ChartRecord, ChartStore, RerenderLimits, RerenderTake, StoredImage } from '../types.js';
import { failureOf, toChart, toMetrics, type ChartRow, type MetricsRow, type RerenderRow } from '../rows.js';
import type { DB } from './db.js';
import { imageWriter } from './images.js';
import { generationCounter } from './usage.js';

/**
 * Deletes an account's short charts with their cached images (keyed by chart id), metrics and
 * re-render state, and its re-render budget, inside the purge's transaction.
 */
export function chartsPurge(db: DB): (accountId: string) => void {
  const images = db.prepare("DELETE FROM images WHERE key IN (SELECT 'chart:' || id FROM charts WHERE account_id = ?)");
  const charts = db.prepare('DELETE FROM charts WHERE account_id = ?'); // metrics and re-render rows cascade
  const budget = db.prepare('DELETE FROM account_rerenders WHERE account_id = ?');
  return (accountId) => {
    images.run(accountId);
    charts.run(accountId);
    budget.run(accountId);
  };
}

export function sqliteCharts(db: DB): ChartStore {
  const insert = db.prepare(
    'INSERT INTO charts (id, account_id, key_id, request_json, digest, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const find = db.prepare<[string], ChartRow>('SELECT id, account_id, key_id, request_json, digest, created_at FROM charts WHERE id = ?');
  const exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM charts WHERE id = ?');
  const putImage = imageWriter(db);
  const countGeneration = generationCounter(db);
  const rerenders = rerenderGuard(db);
  const createTx = db.transaction((c: ChartRecord, key: string, image: StoredImage, count: GenerationCount | null): number | null => {
    insert.run(c.id, c.accountId, c.keyId, JSON.stringify(c.request), c.digest, c.createdAt);
    putImage(key, image);
    return count ? countGeneration(count) : null;
  });
  return {
    async exists(id) {
      return exists.get(id) !== undefined;
    },
    async createWithImage(c, image, count) {
      return createTx.immediate(c, image.key, image.image, count);
    },
    ...rerenders,
    async find(id) {
      const r = find.get(id);
      return r ? toChart(r) : null;
    },
  };
}

/** Re-render buckets and remembered failures of short charts (table chart_rerenders, account_rerenders). */
function rerenderGuard(db: DB): Pick<ChartStore, 'rerenderFailure' | 'takeRerender' | 'chargeRerender' | 'recordRerenderFailure' | 'clearRerenderFailure'> {
  const getChart = db.prepare<[string], RerenderRow>(
    'SELECT tokens, tokens_at, failures, retry_at, error_status, error_code, error_detail FROM chart_rerenders WHERE chart_id = ?',
  );
  const putTokens = db.prepare(`
    INSERT INTO chart_rerenders (chart_id, tokens, tokens_at) SELECT @id, @tokens, @at WHERE EXISTS (SELECT 1 FROM charts WHERE id = @id)
    ON CONFLICT (chart_id) DO UPDATE SET tokens = excluded.tokens, tokens_at = excluded.tokens_at`);
  const putFailure = db.prepare(`
    INSERT INTO chart_rerenders (chart_id, tokens, tokens_at, failures, retry_at, error_status, error_code, error_detail)
    SELECT @id, 0, @now, @failures, @retryAt, @status, @code, @detail WHERE EXISTS (SELECT 1 FROM charts WHERE id = @id)
    ON CONFLICT (chart_id) DO UPDATE SET failures = excluded.failures, retry_at = excluded.retry_at,
      error_status = excluded.error_status, error_code = excluded.error_code, error_detail = excluded.error_detail`);
  const clear = db.prepare(
    'UPDATE chart_rerenders SET failures = 0, retry_at = NULL, error_status = NULL, error_code = NULL, error_detail = NULL WHERE chart_id = ? AND failures > 0',
  );
  const getAccount = db.prepare<[string], { budget_ms: number; budget_at: number }>('SELECT budget_ms, budget_at FROM account_rerenders WHERE account_id = ?');
  const putAccount = db.prepare(`
    INSERT INTO account_rerenders (account_id, budget_ms, budget_at) SELECT @id, @budget, @at WHERE EXISTS (SELECT 1 FROM accounts WHERE id = @id)
    ON CONFLICT (account_id) DO UPDATE SET budget_ms = excluded.budget_ms, budget_at = excluded.budget_at`);

  const chartTokens = (id: string, now: number, l: RerenderLimits): number => {
    const r = getChart.get(id);
    if (!r) return l.chartBurst;
    return Math.min(l.chartBurst, r.tokens + Math.max(0, now - r.tokens_at) / l.chartRefillMs);
  };
  const accountBudget = (id: string, now: number, l: RerenderLimits): number => {
    const r = getAccount.get(id);
    if (!r) return l.accountBudgetMs;
    return Math.min(l.accountBudgetMs, r.budget_ms + Math.max(0, now - r.budget_at) * l.accountRefillPerMs);
  };
  const takeTx = db.transaction((id: string, accountId: string, now: number, l: RerenderLimits): RerenderTake => {
    const tokens = chartTokens(id, now, l);
    if (tokens < 1) return { allowed: false, limit: 'chart', retryAfterMs: Math.ceil((1 - tokens) * l.chartRefillMs) };
    const budget = accountBudget(accountId, now, l);
    // Positive is enough: the attempt's real cost is charged afterwards (chargeTx).
    if (budget <= 0) return { allowed: false, limit: 'account', retryAfterMs: Math.ceil((1 - budget) / l.accountRefillPerMs) };
    putTokens.run({ id, tokens: tokens - 1, at: now });
    putAccount.run({ id: accountId, budget, at: now });
    return { allowed: true };
  });
  const chargeTx = db.transaction((accountId: string, now: number, pageMs: number, l: RerenderLimits) => {
    putAccount.run({ id: accountId, budget: accountBudget(accountId, now, l) - pageMs, at: now });
  });
  const failTx = db.transaction((id: string, now: number, e: { status: number; code: string; detail: string | null }, backoffMs: (n: number) => number) => {
    const failures = (getChart.get(id)?.failures ?? 0) + 1;
    const retryAt = now + backoffMs(failures);
    const written = putFailure.run({ id, now, failures, retryAt, status: e.status, code: e.code, detail: e.detail }).changes > 0;
    return written ? { failures, retryAt, status: e.status, code: e.code, detail: e.detail } : null;
  });
  return {
    async rerenderFailure(id) {
      return failureOf(getChart.get(id));
    },
    async takeRerender(id, accountId, now, limits) {
      return takeTx.immediate(id, accountId, now, limits);
    },
    async chargeRerender(accountId, now, pageMs, limits) {
      chargeTx.immediate(accountId, now, pageMs, limits);
    },
    async recordRerenderFailure(id, now, error, backoffMs) {
      return failTx.immediate(id, now, error, backoffMs);
    },
    async clearRerenderFailure(id) {
      clear.run(id);
    },
  };
}

export function sqliteChartMetrics(db: DB): ChartMetricsStore {
  // The EXISTS guard drops counters of a chart deleted meanwhile instead of failing the batch.
  const add = db.prepare(`
    INSERT INTO chart_metrics (chart_id, hit_count, error_count, render_count, render_ms_total, last_accessed)
    SELECT @chartId, @hitCount, @errorCount, @renderCount, @renderMsTotal, @lastAccessed
    WHERE EXISTS (SELECT 1 FROM charts WHERE id = @chartId)
    ON CONFLICT (chart_id) DO UPDATE SET
      hit_count = hit_count + excluded.hit_count,
      error_count = error_count + excluded.error_count,
      render_count = render_count + excluded.render_count,
      render_ms_total = render_ms_total + excluded.render_ms_total,
      last_accessed = CASE
        WHEN excluded.last_accessed IS NULL THEN last_accessed
        WHEN last_accessed IS NULL OR excluded.last_accessed > last_accessed THEN excluded.last_accessed
        ELSE last_accessed END`);
  const addAll = db.transaction((rows: readonly ChartMetricsRow[]) => {
    for (const r of rows) add.run(r);
  });
  const find = db.prepare<[string], MetricsRow>(
    'SELECT chart_id, hit_count, error_count, render_count, render_ms_total, last_accessed FROM chart_metrics WHERE chart_id = ?',
  );
  return {
    async addBatch(rows) {
      if (rows.length > 0) addAll(rows);
    },
    async find(chartId) {
      const r = find.get(chartId);
      return r ? toMetrics(r) : null;
    },
  };
}
