// Per-chart metrics (GET /v1/metrics/{id}) counted off the hot path: a serve only bumps
// counters in memory; they are written in one transaction about every second and on close.
import type { ChartMetricsRow, ChartMetricsStore } from '../store/types.js';
import type { Logger } from '../log.js';
import { logStoreFailure } from '../store/reachability.js';

/** The body of GET /v1/metrics/{id}. */
export interface ChartMetrics {
  hitCount: number;
  errorCount: number;
  /** Mean render time of this chart, milliseconds (the create render and every re-render). */
  avgRenderTime: number;
  /** ISO 8601: the last serve, or the creation when never served. */
  lastAccessed: string;
}

export const METRICS_FLUSH_MS = 1000;

function emptyRow(chartId: string): ChartMetricsRow {
  return { chartId, hitCount: 0, errorCount: 0, renderCount: 0, renderMsTotal: 0, lastAccessed: null };
}

/** Adds b's counters to a (in place); the later lastAccessed wins. */
export function addMetrics(a: ChartMetricsRow, b: ChartMetricsRow): ChartMetricsRow {
  a.hitCount += b.hitCount;
  a.errorCount += b.errorCount;
  a.renderCount += b.renderCount;
  a.renderMsTotal += b.renderMsTotal;
  if (b.lastAccessed !== null && (a.lastAccessed === null || b.lastAccessed > a.lastAccessed)) a.lastAccessed = b.lastAccessed;
  return a;
}

export function toChartMetrics(row: ChartMetricsRow, createdAt: number): ChartMetrics {
  return {
    hitCount: row.hitCount,
    errorCount: row.errorCount,
    avgRenderTime: row.renderCount > 0 ? Math.round((row.renderMsTotal / row.renderCount) * 100) / 100 : 0,
    lastAccessed: new Date(row.lastAccessed ?? createdAt).toISOString(),
  };
}

export class ChartMetricsRecorder {
  private pending = new Map<string, ChartMetricsRow>();
  /** The batch being written now (still counted by read()). */
  private inFlight: Map<string, ChartMetricsRow> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly store: ChartMetricsStore,
    private readonly log?: Logger,
    private readonly flushMs = METRICS_FLUSH_MS,
  ) {}

  hit(chartId: string, at: number): void {
    const r = this.row(chartId);
    r.hitCount++;
    if (r.lastAccessed === null || at > r.lastAccessed) r.lastAccessed = at;
  }

  error(chartId: string, at: number): void {
    const r = this.row(chartId);
    r.errorCount++;
    if (r.lastAccessed === null || at > r.lastAccessed) r.lastAccessed = at;
  }

  rendered(chartId: string, ms: number): void {
    const r = this.row(chartId);
    r.renderCount++;
    r.renderMsTotal += ms;
  }

  /** Stored counters plus those not written yet, so a read sees every serve before it. */
  async read(chartId: string): Promise<ChartMetricsRow> {
    // Snapshot the unwritten counters in the same tick as the query starts, so a flush
    // landing in between is neither missed nor counted twice (SQLite answers synchronously).
    const storedP = this.store.find(chartId);
    const extra = emptyRow(chartId);
    const inFlight = this.inFlight?.get(chartId);
    if (inFlight) addMetrics(extra, inFlight);
    const p = this.pending.get(chartId);
    if (p) addMetrics(extra, p);
    return addMetrics((await storedP) ?? emptyRow(chartId), extra);
  }

  /** Writes what has accumulated; on failure the counters go back to be retried next time. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.inFlight = batch;
    this.flushing = (async () => {
      try {
        await this.store.addBatch([...batch.values()]);
      } catch (err) {
        for (const r of batch.values()) addMetrics(this.row(r.chartId), r);
        throw err;
      } finally {
        this.inFlight = null;
        this.flushing = null;
      }
    })();
    await this.flushing;
  }

  /** Stops the timer and writes everything left (graceful shutdown, before the store closes). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private row(chartId: string): ChartMetricsRow {
    let r = this.pending.get(chartId);
    if (!r) {
      r = emptyRow(chartId);
      this.pending.set(chartId, r);
    }
    // The timer starts with the first counter, so an idle server (and a CLI) holds no timer.
    if (!this.timer && !this.closed) {
      this.timer = setInterval(() => {
        this.flush().catch((err: unknown) => logStoreFailure(this.log, err, {}, 'writing chart metrics failed; will retry'));
      }, this.flushMs);
      this.timer.unref();
    }
    return r;
  }
}
