import type { RenderRequest } from '../../chart/request.js';
import type { GenerationCount } from '../metering.js';
import type { ChartMetricsRow, ChartMetricsStore, ChartRecord, ChartStore, StoredImage } from '../types.js';
import type { DB } from './db.js';
import { imageWriter } from './images.js';
import { generationCounter } from './metering.js';

interface ChartRow { id: string; account_id: string; key_id: string; request_json: string; digest: string; created_at: number }

export function sqliteCharts(db: DB): ChartStore {
  const insert = db.prepare(
    'INSERT INTO charts (id, account_id, key_id, request_json, digest, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const find = db.prepare<[string], ChartRow>('SELECT id, account_id, key_id, request_json, digest, created_at FROM charts WHERE id = ?');
  const exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM charts WHERE id = ?');
  const putImage = imageWriter(db);
  const countGeneration = generationCounter(db);
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
    async find(id) {
      const r = find.get(id);
      if (!r) return null;
      return {
        id: r.id,
        accountId: r.account_id,
        keyId: r.key_id,
        request: JSON.parse(r.request_json) as RenderRequest,
        digest: r.digest,
        createdAt: r.created_at,
      };
    },
  };
}

interface MetricsRow {
  chart_id: string;
  hit_count: number;
  error_count: number;
  render_count: number;
  render_ms_total: number;
  last_accessed: number | null;
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
      return r
        ? {
            chartId: r.chart_id,
            hitCount: r.hit_count,
            errorCount: r.error_count,
            renderCount: r.render_count,
            renderMsTotal: r.render_ms_total,
            lastAccessed: r.last_accessed,
          }
        : null;
    },
  };
}
