// PostgreSQL: the charts table family (not written yet: see pending.ts).
import type { ChartStore, ChartMetricsStore } from '../types.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgCharts(_db: PgDb): ChartStore {
  return pending<ChartStore>('ChartStore');
}

export function pgChartMetrics(_db: PgDb): ChartMetricsStore {
  return pending<ChartMetricsStore>('ChartMetricsStore');
}
