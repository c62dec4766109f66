// Prometheus metrics (prom-client): the observer of renders, cache look-ups and HTTP requests;
// pool figures are read from the pool at scrape time.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { LabelledCounter, LabelledHistogram } from './metricSeries.js';
import type { Format } from '../rules/plans.js';
import type { PoolStats } from '../render/renderer.js';
import type { RenderObserver } from './render.js';
import type { CacheObserver, CacheTier } from './imageCache.js';
import type { PressureReport } from './pressure.js';

type Outcome = Parameters<RenderObserver['rendered']>[1];

export interface MetricsOptions {
  /** Read at every scrape: pool size, busy and waiting pages, restarts, rejections. */
  poolStats: () => PoolStats;
  /** Node process metrics (CPU, memory, event-loop lag); off in unit tests. */
  processMetrics?: boolean;
  /** GET /v1/pressure's report, read at every scrape: the same figures as gauges. */
  pressure?: () => PressureReport;
  /** PDFs the worker made or did not, by outcome (render/pdf.ts counters), read at every scrape. */
  pdfs?: () => Record<string, number>;
  /** Signed-URL cache look-ups by result (hit, miss), read at every scrape. */
  signedCache?: () => Record<string, number>;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// One Registry per app instance, never the global default one, so several servers can live in
// one process (tests).
export class Metrics implements RenderObserver, CacheObserver {
  readonly registry = new Registry();
  // counted per request or render: plain series (metricSeries.ts), not prom-client's labelled observe
  private readonly renderDuration: LabelledHistogram<'format' | 'outcome'>;
  private readonly cacheLookups: LabelledCounter<'tier'>;
  private readonly httpRequests: LabelledCounter<'route' | 'method' | 'status'>;
  private readonly httpDuration: LabelledHistogram<'route' | 'method'>;

  constructor(opts: MetricsOptions) {
    const registers = [this.registry];
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'chartshot_' });

    this.renderDuration = new LabelledHistogram({
      name: 'chartshot_render_duration_seconds',
      help: 'Time to render one chart through the page pool, by format and outcome (ok, config, timeout, crash, busy).',
      labelNames: ['format', 'outcome'],
      buckets: SECONDS_BUCKETS,
    }, this.registry);
    this.cacheLookups = new LabelledCounter({
      name: 'chartshot_cache_lookups_total',
      help: 'Image cache look-ups by the tier that answered (memory, persistent) or miss.',
      labelNames: ['tier'],
    }, this.registry);
    this.httpRequests = new LabelledCounter({
      name: 'chartshot_http_requests_total',
      help: 'HTTP requests by route pattern, method and status.',
      labelNames: ['route', 'method', 'status'],
    }, this.registry);
    this.httpDuration = new LabelledHistogram({
      name: 'chartshot_http_request_duration_seconds',
      help: 'HTTP request duration by route pattern and method.',
      labelNames: ['route', 'method'],
      buckets: SECONDS_BUCKETS,
    }, this.registry);

    // Pool figures: read once per scrape, shared by the gauges and counters below.
    let snapshot: PoolStats | null = null;
    const stats = () => (snapshot ??= opts.poolStats());
    const gauge = (name: string, help: string, pick: (s: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(pick(stats()));
        },
      });
    gauge('chartshot_pool_size', 'Pages the pool keeps (POOL_SIZE).', (s) => s.size);
    gauge('chartshot_pool_busy', 'Pages rendering now.', (s) => s.borrowed);
    gauge('chartshot_pool_available', 'Idle pages ready to render.', (s) => s.available);
    gauge('chartshot_pool_waiting', 'Requests waiting for a page.', (s) => s.pending);
    gauge('chartshot_browser_connected', '1 when the browser is connected.', (s) => (s.browserConnected ? 1 : 0));
    // /v1/pressure's figures, as gauges an autoscaler reads through the Prometheus adapter
    const pressure = opts.pressure;
    if (pressure) {
      let report: PressureReport | null = null;
      const read = () => (report ??= pressure());
      const pgauge = (name: string, help: string, pick: (p: PressureReport) => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(pick(read()));
          },
        });
      pgauge('chartshot_accepting', '1 while this instance takes new work (GET /v1/pressure answers 200), 0 while draining, without a usable page or short of heap.', (p) => (p.accepting ? 1 : 0));
      pgauge('chartshot_draining', '1 once this instance was told to stop (SIGTERM) and drains.', (p) => (p.reason === 'draining' ? 1 : 0));
      pgauge('chartshot_pool_usable', 'Pages alive and able to render, idle or busy.', (p) => p.usable);
      pgauge('chartshot_queue_max', 'Requests allowed to wait for a page (MAX_QUEUE).', (p) => p.maxQueue);
      pgauge('chartshot_load', '(busy pages + queued requests) / pages: 1 = every page busy and none waiting. The figure to autoscale on.', (p) => p.load);
      pgauge('chartshot_heap_headroom_bytes', "Node's heap limit minus the heap in use.", (p) => p.memory.headroomBytes);
      pgauge('chartshot_store_reachable', '1 while the store answers (always with SQLite), 0 while PostgreSQL cannot be reached.', (p) => (p.storeReachable === false ? 0 : 1));
      pgauge('chartshot_heap_headroom_ratio', "Share of Node's heap limit still free (below 0.1 the instance takes no work).", (p) => p.memory.headroomRatio);
      const prev = this.resetPressure;
      this.resetPressure = () => {
        prev();
        report = null;
      };
    }
    // Monotonic counts kept by the pool: exported as counters that follow the pool's totals.
    const follow = (name: string, help: string, pick: (s: PoolStats) => number) => {
      let seen = 0;
      return new Counter({
        name,
        help,
        registers,
        collect() {
          const now = pick(stats());
          if (now > seen) this.inc(now - seen);
          seen = Math.max(seen, now);
        },
      });
    };
    follow('chartshot_queue_rejections_total', 'Renders refused because the queue was full or no page came free in time.', (s) => s.queueRejections);
    follow('chartshot_browser_restarts_total', 'Times the browser was lost and relaunched.', (s) => s.browserRestarts);
    follow('chartshot_pages_created_total', 'Pages created (warm-up included).', (s) => s.pagesCreated);
    follow('chartshot_pages_destroyed_total', 'Pages destroyed (recycled, failed or timed out).', (s) => s.pagesDestroyed);
    follow('chartshot_rides_total', 'Renders sent to a page behind the one it was drawing (decision 33).', (s) => s.rides ?? 0);
    follow('chartshot_reset_collections_total', 'Page resets after which the renderer\'s heap was collected at once: the documents before left more than 64 MB in it.', (s) => s.resetCollections ?? 0);
    // Monotonic counts by label, kept elsewhere: every label value is a series from the first
    // scrape it appears in (0 until it happens).
    const followLabelled = (name: string, help: string, label: string, read: () => Record<string, number>) => {
      const seenBy = new Map<string, number>();
      return new Counter({
        name,
        help,
        labelNames: [label],
        registers,
        collect() {
          for (const [value, now] of Object.entries(read())) {
            const seen = seenBy.get(value);
            if (seen === undefined || now > seen) this.inc({ [label]: value }, now - (seen ?? 0));
            seenBy.set(value, Math.max(seen ?? 0, now));
          }
        },
      });
    };
    followLabelled('chartshot_page_resets_total', 'Pages reloaded or replaced, by reason: caller_code, page_state, failed, interrupted, memory, crash, recycled, version_switch.', 'reason', () => stats().resetsByReason ?? {});
    if (opts.pdfs) followLabelled('chartshot_pdfs_total', 'PDFs made in the worker thread (made), or not: past the deadline (timeout), past the heap bound (memory), refused with a full queue (busy).', 'outcome', opts.pdfs);
    if (opts.signedCache) followLabelled('chartshot_signed_cache_lookups_total', 'Signed GET /v1/chart requests (signature and key checked) answered from the signed-URL cache (hit) or rendered (miss).', 'result', opts.signedCache);
    follow('chartshot_page_resets_given_up_total', 'Page resets that gave up at their deadline (a page too busy to navigate) and replaced the page: whoever waited for it waited the whole deadline.', (s) => s.resetsGivenUp ?? 0);
    follow('chartshot_pages_busy_after_render_total', 'Pages that ran caller code and did not answer at once when its render was over: their script was stopped, or their renderer replaced.', (s) => s.busyAfterRender ?? 0);
    follow('chartshot_ride_retries_total', 'Rides sent again on a clean page: the page refused them, or the render ahead was interrupted or crashed.', (s) => s.rideRetries ?? 0);
    this.resetSnapshot = () => {
      snapshot = null;
    };
  }

  private readonly resetSnapshot: () => void;
  private resetPressure: () => void = () => {};

  rendered(format: Format, outcome: Outcome, ms: number): void {
    this.renderDuration.observe(ms / 1000, format, outcome);
  }

  cacheHit(tier: CacheTier | 'miss'): void {
    this.cacheLookups.inc(tier);
  }

  requestDone(route: string, method: string, status: number, ms: number): void {
    this.httpRequests.inc(route, method, statusText(status));
    this.httpDuration.observe(ms / 1000, route, method);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  async text(): Promise<string> {
    this.resetSnapshot();
    this.resetPressure();
    try {
      return await this.registry.metrics();
    } finally {
      this.resetSnapshot();
      this.resetPressure();
    }
  }
}

/** Status codes as label values, made once each. */
const STATUS_TEXT = new Map<number, string>();
function statusText(status: number): string {
  let t = STATUS_TEXT.get(status);
  if (t === undefined) {
    t = String(status);
    if (STATUS_TEXT.size < 1000) STATUS_TEXT.set(status, t);
  }
  return t;
}
