// Prometheus metrics (prom-client): the observer of renders, cache look-ups and HTTP requests;
// pool figures are read from the pool at scrape time.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Format } from '../rules/plans.js';
import type { PoolStats } from '../render/renderer.js';
import type { RenderObserver } from './render.js';
import type { CacheObserver, CacheTier } from './imageCache.js';

type Outcome = Parameters<RenderObserver['rendered']>[1];

export interface MetricsOptions {
  /** Read at every scrape: pool size, busy and waiting pages, restarts, rejections. */
  poolStats: () => PoolStats;
  /** Node process metrics (CPU, memory, event-loop lag); off in unit tests. */
  processMetrics?: boolean;
}

/** Bound label children kept at most (a guard: route patterns, methods and statuses are few). */
const MAX_BOUND_LABEL_SETS = 1000;

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// One Registry per app instance, never the global default one, so several servers can live in
// one process (tests).
export class Metrics implements RenderObserver, CacheObserver {
  readonly registry = new Registry();
  private readonly renderDuration: Histogram<'format' | 'outcome'>;
  private readonly cacheLookups: Counter<'tier'>;
  private readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  private readonly httpDuration: Histogram<'route' | 'method'>;

  constructor(opts: MetricsOptions) {
    const registers = [this.registry];
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'chartshot_' });

    this.renderDuration = new Histogram({
      name: 'chartshot_render_duration_seconds',
      help: 'Time to render one chart through the page pool, by format and outcome (ok, config, timeout, crash, busy).',
      labelNames: ['format', 'outcome'],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.cacheLookups = new Counter({
      name: 'chartshot_cache_lookups_total',
      help: 'Image cache look-ups by the tier that answered (memory, persistent) or miss.',
      labelNames: ['tier'],
      registers,
    });
    this.httpRequests = new Counter({
      name: 'chartshot_http_requests_total',
      help: 'HTTP requests by route pattern, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'chartshot_http_request_duration_seconds',
      help: 'HTTP request duration by route pattern and method.',
      labelNames: ['route', 'method'],
      buckets: SECONDS_BUCKETS,
      registers,
    });

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
    this.resetSnapshot = () => {
      snapshot = null;
    };
  }

  private readonly resetSnapshot: () => void;
  /** Label children bound once per label set: inc/observe then skip prom-client's label hashing
   *  (a few microseconds a request). Label sets are few (routes x methods x statuses). */
  private readonly requestChildren = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
  private readonly cacheChildren = new Map<string, { inc(): void }>();

  rendered(format: Format, outcome: Outcome, ms: number): void {
    this.renderDuration.observe({ format, outcome }, ms / 1000);
  }

  cacheHit(tier: CacheTier | 'miss'): void {
    let c = this.cacheChildren.get(tier);
    if (!c) this.cacheChildren.set(tier, (c = this.cacheLookups.labels({ tier })));
    c.inc();
  }

  requestDone(route: string, method: string, status: number, ms: number): void {
    const key = `${route}\n${method}\n${status}`;
    let c = this.requestChildren.get(key);
    if (!c) {
      if (this.requestChildren.size >= MAX_BOUND_LABEL_SETS) this.requestChildren.clear();
      c = { count: this.httpRequests.labels({ route, method, status: String(status) }), duration: this.httpDuration.labels({ route, method }) };
      this.requestChildren.set(key, c);
    }
    c.count.inc();
    c.duration.observe(ms / 1000);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  async text(): Promise<string> {
    this.resetSnapshot();
    try {
      return await this.registry.metrics();
    } finally {
      this.resetSnapshot();
    }
  }
}
