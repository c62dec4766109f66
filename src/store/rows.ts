// Rows as both backends return them (the PostgreSQL schema mirrors SQLite's) and the records
// the Store interface hands out.
import type { RenderRequest } from '../chart/request.js';
import type { Account, ApiKey, ChartMetricsRow, ChartRecord, RerenderFailure } from './types.js';

export interface AccountRow { id: string; email: string | null; plan: Account['plan']; status: Account['status']; created_at: number }
export interface KeyRow { id: string; account_id: string; kind: ApiKey['kind']; prefix: string; created_at: number; expires_at: number | null; revoked_at: number | null }

export const toAccount = (r: AccountRow): Account => ({ id: r.id, email: r.email, plan: r.plan, status: r.status, createdAt: r.created_at });
export const toKey = (r: KeyRow): ApiKey => ({
  id: r.id, accountId: r.account_id, kind: r.kind, prefix: r.prefix, createdAt: r.created_at, expiresAt: r.expires_at, revokedAt: r.revoked_at,
});

export interface ChartRow { id: string; account_id: string; key_id: string; request_json: string; digest: string; created_at: number }

export function toChart(r: ChartRow): ChartRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    request: JSON.parse(r.request_json) as RenderRequest,
    digest: r.digest,
    createdAt: r.created_at,
  };
}

export interface RerenderRow {
  tokens: number;
  tokens_at: number;
  failures: number;
  retry_at: number | null;
  error_status: number | null;
  error_code: string | null;
  error_detail: string | null;
}

export function failureOf(r: RerenderRow | null | undefined): RerenderFailure | null {
  if (!r || r.failures === 0 || r.retry_at === null) return null;
  return { failures: r.failures, retryAt: r.retry_at, status: r.error_status ?? 500, code: r.error_code ?? 'render_failed', detail: r.error_detail };
}

export interface MetricsRow {
  chart_id: string;
  hit_count: number;
  error_count: number;
  render_count: number;
  render_ms_total: number;
  last_accessed: number | null;
}

export function toMetrics(r: MetricsRow): ChartMetricsRow {
  return {
    chartId: r.chart_id,
    hitCount: r.hit_count,
    errorCount: r.error_count,
    renderCount: r.render_count,
    renderMsTotal: r.render_ms_total,
    lastAccessed: r.last_accessed,
  };
}
