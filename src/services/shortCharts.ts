// Short charts: POST /v1/chart/create keeps the normalised request and the image behind an
// unguessable id; GET /v1/chart/{id} serves the image from the cache tiers without
// credentials and without counting, re-rendering it from the stored request (uncounted)
// once the plan's cache duration has passed.
import { randomBytes } from 'node:crypto';
import { PLANS, type Plan } from '../chart/plans.js';
import { AppError, notFound } from '../errors.js';
import type { AccountStore, ChartStore, StoredImage } from '../store/types.js';
import type { AuthContext, Clock } from './accounts.js';
import type { ChartFields, ChartService, GenerateOptions } from './charts.js';
import type { CacheTier, ImageCache } from './imageCache.js';
import { renderOwner, type RenderService } from './render.js';
import { toChartMetrics, type ChartMetrics, type ChartMetricsRecorder } from './chartMetrics.js';

const DAY_MS = 86_400_000;
const CHART_ID = /^[A-Za-z0-9_-]{16,64}$/;
/** How long a served chart is trusted to still exist before the store is asked again. */
const EXISTS_RECHECK_MS = 60_000;

/** 128 random bits, base64url: 22 URL-safe characters that carry no key or secret. */
export function newChartId(): string {
  return randomBytes(16).toString('base64url');
}

/** The image cache key of a chart (request digests, used elsewhere, never contain ':'). */
export function chartCacheKey(chartId: string): string {
  return `chart:${chartId}`;
}

/** How long the plan keeps a rendered chart cached; null = forever. */
export function cacheTtlMs(plan: Plan): number | null {
  return plan.cacheDays === null ? null : plan.cacheDays * DAY_MS;
}

export interface ShortChart {
  id: string;
  url: string;
}

export interface ServedChart {
  image: StoredImage;
  /** Where the image came from: a cache tier, or a re-render just now. */
  tier: CacheTier | 'render';
}

export interface ShortChartDeps {
  charts: ChartService;
  renderer: RenderService;
  store: { readonly charts: ChartStore; readonly accounts: AccountStore };
  cache: ImageCache;
  metrics: ChartMetricsRecorder;
  clock: Clock;
  publicBaseUrl: string;
}

const noSuchChart = () => notFound('no such chart');

export class ShortChartService {
  /** Re-renders in flight by chart id: concurrent misses of one chart share one render and one write. */
  private readonly rerenders = new Map<string, Promise<ServedChart>>();
  /** When a cached image's chart was last seen in the store (entries go with the image). */
  private readonly verifiedAt = new WeakMap<StoredImage, number>();

  constructor(private readonly d: ShortChartDeps) {}

  /** POST /v1/chart/create: one generation; the request is kept with the creator's permissions. */
  async create(auth: AuthContext, fields: ChartFields, opts: GenerateOptions = {}): Promise<ShortChart> {
    const started = performance.now();
    return this.d.charts.generate(auth, fields, async (req, img, counted) => {
      const id = newChartId();
      const key = chartCacheKey(id);
      const record = { id, accountId: auth.account.id, keyId: auth.key.id, request: req, digest: img.digest, createdAt: this.d.clock.now() };
      const image = this.d.cache.prepare(img.body, img.contentType, cacheTtlMs(auth.plan));
      // The chart, its image and its generation commit in one transaction: once the 201 can be
      // sent, all three are on disk; a crash or a full disk before that leaves none of them.
      await counted((count) => this.d.store.charts.createWithImage(record, { key, image }, count));
      this.d.cache.remember(key, image);
      // A create that joined an identical render in flight waited about as long as it took.
      this.d.metrics.rendered(id, img.coalesced ? performance.now() - started : img.renderMs);
      return { id, url: `${this.d.publicBaseUrl}/v1/chart/${id}` };
    }, opts);
  }

  /** GET /v1/chart/{id}: never counted as a generation. Unknown id -> 404 not_found. */
  async serve(id: string): Promise<ServedChart> {
    if (!CHART_ID.test(id)) throw noSuchChart();
    const hit = await this.d.cache.get(chartCacheKey(id));
    // A terminated account's charts are purged from the store (possibly by the CLI, in another
    // process): a cached copy must not outlive them. The check costs a query, so a memory-tier
    // image is re-checked at most every EXISTS_RECHECK_MS.
    if (hit && !(await this.stillExists(id, hit.image))) {
      this.d.cache.forget(chartCacheKey(id));
      throw noSuchChart();
    }
    if (hit) {
      this.d.metrics.hit(id, this.d.clock.now());
      return hit;
    }
    let pending = this.rerenders.get(id);
    if (!pending) {
      pending = this.rerender(id).finally(() => this.rerenders.delete(id));
      this.rerenders.set(id, pending);
    }
    try {
      const served = await pending;
      this.d.metrics.hit(id, this.d.clock.now());
      return served;
    } catch (err) {
      if (!(err instanceof AppError && err.status === 404)) this.d.metrics.error(id, this.d.clock.now());
      throw err;
    }
  }

  private async stillExists(id: string, image: StoredImage): Promise<boolean> {
    const now = this.d.clock.now();
    const checked = this.verifiedAt.get(image);
    if (checked !== undefined && now - checked < EXISTS_RECHECK_MS) return true;
    const exists = await this.d.store.charts.exists(id);
    if (exists) this.verifiedAt.set(image, now);
    return exists;
  }

  /** GET /v1/metrics/{id}: the owner's chart only; any other chart is 404 (CONTRACT §2). */
  async metrics(auth: AuthContext, id: string): Promise<ChartMetrics> {
    const rec = CHART_ID.test(id) ? await this.d.store.charts.find(id) : null;
    if (!rec || rec.accountId !== auth.account.id) throw noSuchChart();
    return toChartMetrics(await this.d.metrics.read(id), rec.createdAt);
  }

  /** Writes the metrics still in memory (graceful shutdown, before the store closes). */
  async close(): Promise<void> {
    await this.d.metrics.close();
  }

  private async rerender(id: string): Promise<ServedChart> {
    const rec = await this.d.store.charts.find(id);
    if (!rec) throw noSuchChart();
    const account = await this.d.store.accounts.find(rec.accountId);
    if (!account || account.status === 'terminated') throw noSuchChart();
    const started = performance.now();
    // the chart's owner account pays for its re-render in the fair queue, not its viewers
    const img = await this.d.renderer.render(rec.request, renderOwner.account(rec.accountId));
    this.d.metrics.rendered(id, img.coalesced ? performance.now() - started : img.renderMs);
    const image = await this.d.cache.put(chartCacheKey(id), img.body, img.contentType, cacheTtlMs(PLANS[account.plan]));
    return { image, tier: 'render' };
  }
}
