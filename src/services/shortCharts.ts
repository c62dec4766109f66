// Short charts: POST /v1/chart/create keeps the request and image behind an unguessable id;
// GET /v1/chart/{id} serves it without credentials or counting, re-rendering it once expired.
import { tracer } from '../tracing.js';
import { LRUCache } from 'lru-cache';
import { randomBytes } from 'node:crypto';
import { KEY_GONE_DETAIL, needsKey, requestUnderKey } from '../chart/callerCode.js';
import { PLANS, type Plan } from '../rules/plans.js';
import { storedRequest, type RenderRequest } from '../chart/request.js';
import { AppError, notFound, serviceUnavailable, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { Account, AccountStore, ChartRecord, ChartStore, KeyStore, RerenderFailure, RerenderLimits, StoredImage } from '../store/types.js';
import type { AuthContext } from './accounts.js';
import type { Clock } from '../clock.js';
import type { ChartFields, ChartService, GenerateOptions } from './charts.js';
import type { CacheTier, ImageCache } from './imageCache.js';
import { renderOwner, type RenderService } from './render.js';
import { classOfPlan } from '../render/budgets.js';
import type { SharedFlights } from '../store/redis/flights.js';
import { toChartMetrics, type ChartMetrics, type ChartMetricsRecorder } from './chartMetrics.js';
import { isChartId } from '../chart/chartId.js';

const DAY_MS = 86_400_000;
/** How long a served chart is trusted to still exist before the store is asked again. */
const EXISTS_RECHECK_MS = 60_000;
/** How long a "this key may no longer run code" verdict is trusted before the store is asked again. */
const KEY_RECHECK_MS = 60_000;
/** Failed re-renders are remembered with this backoff: 1 min, doubling, at most a day. */
export const BACKOFF_FIRST_MS = 60_000;
export const BACKOFF_MAX_MS = DAY_MS;
/** Remembered errors: the ones a stored request itself causes (a busy pool or a store failure is not its fault). */
const REMEMBERED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['render_failed', 'invalid_input']);

export function rerenderBackoffMs(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(Math.max(0, failures - 1), 30));
}

/**
 * Re-render limits. Per chart: 3 at once, one more every 10 minutes (a chart re-renders once
 * per cache duration when all is well). Per account: page time, since a looping callback costs
 * a full RENDER_TIMEOUT_MS where a chart costs tens of ms: a budget of 6 render timeouts, one
 * timeout earned back every 40 s (default timeout: 60 s of page time, 15 s a minute).
 */
export function rerenderLimits(renderTimeoutMs: number): RerenderLimits {
  return { chartBurst: 3, chartRefillMs: 10 * 60_000, accountBudgetMs: 6 * renderTimeoutMs, accountRefillPerMs: renderTimeoutMs / 40_000 };
}

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
  /** Where the image came from: a cache tier, a re-render just now, or the last good image past its expiry. */
  tier: CacheTier | 'render' | 'stale';
}

export interface RerenderOptions {
  /** Re-renders this instance runs at once (the rest of the pool stays for paid renders). */
  concurrency: number;
  /** RENDER_TIMEOUT_MS: scales the per-account budget and the Retry-After of a busy answer. */
  renderTimeoutMs: number;
  limits?: RerenderLimits;
}

export interface ShortChartDeps {
  charts: ChartService;
  renderer: RenderService;
  store: { readonly charts: ChartStore; readonly accounts: AccountStore; readonly keys: KeyStore };
  cache: ImageCache;
  metrics: ChartMetricsRecorder;
  clock: Clock;
  publicBaseUrl: string;
  rerender?: RerenderOptions;
  log?: Logger;
  /** Re-renders shared with other instances (Redis): an expired chart is re-rendered by one of them. */
  flights?: SharedFlights;
}

/** A re-render admitted by every limit, about to run. */
interface Job {
  rec: ChartRecord;
  account: Account;
  request: RenderRequest;
  hadFailure: boolean;
}

interface Attempt {
  /** Settles once admitted (the render started) or refused (rejects with the answer). */
  admitted: Promise<void>;
  done: Promise<ServedChart>;
  /** GETs that took this attempt (the first included). */
  callers: number;
}

/** A refusal remembered in memory until `until` (the store keeps the authoritative backoff). */
interface Refusal {
  until: number;
  status: number;
  code: ErrorCode;
  detail: string | undefined;
}

/** Errors that mean the chart is gone (404): never answered with a stale image. */
const goneErrors = new WeakSet<AppError>();
function gone(): AppError {
  const e = notFound('no such chart');
  goneErrors.add(e);
  return e;
}

function refusalError(r: Refusal, now: number): AppError {
  const headers: Record<string, string> = r.status >= 500 ? { 'Retry-After': String(Math.max(1, Math.ceil((r.until - now) / 1000))) } : {};
  return new AppError(r.status, r.code, r.detail, headers);
}

function failureRefusal(f: RerenderFailure): Refusal {
  const code = REMEMBERED.has(f.code as ErrorCode) ? (f.code as ErrorCode) : 'render_failed';
  return { until: f.retryAt, status: code === 'invalid_input' ? 400 : 500, code, detail: f.detail ?? undefined };
}

const ignore = () => {};

const noSuchChart = () => notFound('no such chart');

// A stored request may carry caller code that works today and loops tomorrow, so re-renders
// are contained: the last good image is served (stale) while a re-render runs in
// the background or has failed; a failed re-render is remembered in the store with an
// exponential backoff and its error replayed at once meanwhile; re-renders are limited per
// chart (a token bucket), per account (a budget of page time) and per instance (at most half
// the pool at once); a revoked or expired key's functions never run again.
export class ShortChartService {
  /** Re-renders in flight by chart id: concurrent GETs of one chart share one attempt and one write. */
  private readonly rerenders = new Map<string, Attempt>();
  /** When a chart was last seen in the store, by id: its cached image, from any tier, may be served meanwhile. */
  private readonly verifiedAt = new LRUCache<string, number>({ max: 100_000 });
  /** Recent refusals by chart id, so that a flood of GETs costs no store read each. */
  private readonly refusals = new LRUCache<string, Refusal>({ max: 10_000 });
  private active = 0;
  private readonly concurrency: number;
  private readonly limits: RerenderLimits;
  private readonly busyRetryS: number;

  constructor(private readonly d: ShortChartDeps) {
    const r = d.rerender ?? { concurrency: 1, renderTimeoutMs: 10_000 };
    this.concurrency = Math.max(1, r.concurrency);
    this.limits = r.limits ?? rerenderLimits(r.renderTimeoutMs);
    this.busyRetryS = Math.max(1, Math.ceil(r.renderTimeoutMs / 1000));
  }

  /**
   * POST /v1/chart/create: one generation; the request is kept with the creator's permissions.
   * `urlPath`: where the returned URL serves it (/chart/render/ for QuickChart's clients).
   */
  async create(auth: AuthContext, fields: ChartFields, opts: GenerateOptions = {}, urlPath = '/v1/chart/'): Promise<ShortChart> {
    const started = performance.now();
    return this.d.charts.generate(auth, fields, async (req, img, counted) => {
      const id = newChartId();
      const key = chartCacheKey(id);
      const record = { id, accountId: auth.account.id, keyId: auth.key.id, request: storedRequest(req), digest: img.digest, createdAt: this.d.clock.now() };
      const image = this.d.cache.prepare(img.body, img.contentType, cacheTtlMs(auth.plan), img.renderer);
      // The chart, its image and its generation commit in one transaction: once the 201 can be
      // sent, all three are on disk; a crash or a full disk before that leaves none of them.
      await counted((count) => this.d.store.charts.createWithImage(record, { key, image }, count));
      this.d.cache.remember(key, image);
      // A create that joined an identical render in flight waited about as long as it took.
      this.d.metrics.rendered(id, img.coalesced ? performance.now() - started : img.renderMs);
      return { id, url: `${this.d.publicBaseUrl}${urlPath}${id}` };
    }, opts);
  }

  /**
   * GET /v1/chart/{id}: never counted as a generation. Unknown id -> 404 not_found. An expired
   * image is served stale (tier 'stale') while a re-render runs in the background or is held
   * back; without any image the GET waits for the re-render, or gets the refusal at once.
   */
  async serve(id: string): Promise<ServedChart> {
    if (!isChartId(id)) throw noSuchChart();
    const key = chartCacheKey(id);
    const hit = await tracer().span('cache lookup', {}, async (span) => {
      const found = await this.d.cache.lookup(key);
      span.set({ 'chartshot.cache_tier': found ? found.tier : 'miss', 'chartshot.cache_fresh': found?.fresh ?? false });
      return found;
    });
    // A terminated account's charts are purged from the store (possibly by the CLI, in another
    // process): a cached copy must not outlive them. The check costs a query, so a memory-tier
    // image is re-checked at most every EXISTS_RECHECK_MS.
    if (hit && !(await this.stillExists(id))) {
      this.d.cache.forget(key);
      throw noSuchChart();
    }
    if (hit?.fresh) {
      this.d.metrics.hit(id, this.d.clock.now());
      return { image: hit.image, tier: hit.tier };
    }
    if (!hit && !(await this.d.store.charts.exists(id))) throw noSuchChart();
    const attempt = this.rerenders.get(id) ?? this.start(id, hit !== null);
    attempt.callers++;
    if (hit) {
      try {
        await attempt.admitted;
      } catch (err) {
        if (err instanceof AppError && goneErrors.has(err)) {
          this.d.cache.forget(key);
          throw err;
        }
        // held back (backoff, limits, a revoked key): the last good image stands in
      }
      this.d.metrics.hit(id, this.d.clock.now());
      return { image: hit.image, tier: 'stale' };
    }
    try {
      const served = await attempt.done;
      this.d.metrics.hit(id, this.d.clock.now());
      return served;
    } catch (err) {
      if (!(err instanceof AppError && err.status === 404)) this.d.metrics.error(id, this.d.clock.now());
      throw err;
    }
  }

  /**
   * serve() for the common case, synchronously: a fresh image in the memory tier whose chart
   * was seen in the store within EXISTS_RECHECK_MS. Null: ask serve(), which does the rest
   * (store checks, re-renders, stale images) and counts its own hit.
   */
  serveFromMemory(id: string): StoredImage | null {
    if (!isChartId(id)) return null;
    const now = this.d.clock.now();
    if (!this.recentlySeen(id, now)) return null;
    const image = this.d.cache.peekMemory(chartCacheKey(id));
    if (!image) return null;
    this.d.metrics.hit(id, now);
    return image;
  }

  /**
   * serveFromMemory() one tier further: a fresh image in the shared tier (Redis) while the memory
   * tier holds nothing for the chart, whose chart was seen in the store within EXISTS_RECHECK_MS.
   * Null, or a promise of null: ask serve() (null at once when there is nothing to ask: no
   * shared tier, or a chart not seen lately). The same answer serve() would give, counted the same.
   */
  serveFromShared(id: string): Promise<StoredImage | null> | null {
    if (!this.d.cache.hasShared || !isChartId(id) || !this.recentlySeen(id, this.d.clock.now())) return null;
    return this.d.cache.peekShared(chartCacheKey(id)).then((image) => {
      if (image) this.d.metrics.hit(id, this.d.clock.now());
      return image;
    });
  }

  private recentlySeen(id: string, now: number): boolean {
    const checked = this.verifiedAt.get(id);
    return checked !== undefined && now - checked < EXISTS_RECHECK_MS;
  }

  private async stillExists(id: string): Promise<boolean> {
    const now = this.d.clock.now();
    if (this.recentlySeen(id, now)) return true;
    const exists = await this.d.store.charts.exists(id);
    if (exists) this.verifiedAt.set(id, now);
    else this.verifiedAt.delete(id);
    return exists;
  }

  /** GET /v1/metrics/{id}: the owner's chart only; any other chart is 404, so ids cannot be probed. */
  async metrics(auth: AuthContext, id: string): Promise<ChartMetrics> {
    const rec = isChartId(id) ? await this.d.store.charts.find(id) : null;
    if (!rec || rec.accountId !== auth.account.id) throw noSuchChart();
    return toChartMetrics(await this.d.metrics.read(id), rec.createdAt);
  }

  /** GETs waiting for re-renders in flight (the first of each included). */
  callersInFlight(): number {
    let n = 0;
    for (const a of this.rerenders.values()) n += a.callers;
    return n;
  }

  /** Settles when every background re-render has (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.rerenders.size > 0) await Promise.allSettled([...this.rerenders.values()].map((a) => a.done));
  }

  /** Lets background re-renders finish, then writes the metrics still in memory (graceful shutdown, before the store closes). */
  async close(): Promise<void> {
    await this.idle();
    await this.d.metrics.close();
  }

  /** Registers the chart's attempt before its first await, so that concurrent GETs share it. */
  private start(id: string, background: boolean): Attempt {
    const job = this.admit(id);
    const done = job.then((j) => this.run(id, j, background));
    const attempt: Attempt = { admitted: job.then(ignore), done, callers: 0 };
    this.rerenders.set(id, attempt);
    // Whoever waits handles the outcome; a background attempt has nobody waiting.
    attempt.admitted.catch(ignore);
    done.catch(ignore).finally(() => this.rerenders.delete(id));
    return attempt;
  }

  /** Every check a re-render must pass, cheapest first; throws the answer when it may not run. */
  private async admit(id: string): Promise<Job> {
    const now = this.d.clock.now();
    const known = this.refusals.get(id);
    if (known && known.until > now) throw refusalError(known, now);
    const failure = await this.d.store.charts.rerenderFailure(id);
    if (failure && failure.retryAt > now) throw this.refuse(id, failureRefusal(failure), now);
    // Taken before the costlier reads below, so a flood of GETs while every slot is busy costs little.
    if (this.active >= this.concurrency) throw serviceUnavailable(this.busyRetryS, 'too many chart re-renders in progress, try again');
    this.active++;
    try {
      return { ...(await this.admitChart(id, now)), hadFailure: failure !== null };
    } catch (err) {
      this.active--;
      throw err;
    }
  }

  private async admitChart(id: string, now: number): Promise<Omit<Job, 'hadFailure'>> {
    const rec = await this.d.store.charts.find(id);
    if (!rec) throw gone();
    const account = await this.d.store.accounts.find(rec.accountId);
    if (!account || account.status === 'terminated') throw gone();
    const key = needsKey(rec.request) ? await this.d.store.keys.find(rec.keyId) : null;
    const request = requestUnderKey(rec.request, key, now);
    if (!request) {
      throw this.refuse(id, { until: now + KEY_RECHECK_MS, status: 404, code: 'not_found', detail: KEY_GONE_DETAIL }, now);
    }
    const take = await this.d.store.charts.takeRerender(id, rec.accountId, now, this.limits);
    if (!take.allowed) {
      const detail = take.limit === 'chart' ? 'this chart was re-rendered too often, try again later' : "this chart's account has used its re-render budget, try again later";
      throw this.refuse(id, { until: now + take.retryAfterMs, status: 503, code: 'service_unavailable', detail }, now);
    }
    return { rec, account, request };
  }

  private refuse(id: string, r: Refusal, now: number): AppError {
    this.refusals.set(id, r);
    return refusalError(r, now);
  }

  private async run(id: string, job: Job, background: boolean): Promise<ServedChart> {
    const started = performance.now();
    // time this instance spent rendering: an instance that only waited for another instance's
    // render of the same chart charges nothing (the one that rendered does)
    let renderMs = 0;
    try {
      const key = chartCacheKey(id);
      const render = async () => {
        const t = performance.now();
        try {
          // the chart's owner account pays for its re-render in the fair queue, not its viewers
          const img = await this.d.renderer.render(job.request, renderOwner.account(job.rec.accountId), undefined, undefined, classOfPlan(job.account.plan));
          this.d.metrics.rendered(id, img.coalesced ? performance.now() - started : img.renderMs);
          return await this.d.cache.put(key, img.body, img.contentType, cacheTtlMs(PLANS[job.account.plan]), img.renderer);
        } finally {
          renderMs = performance.now() - t;
        }
      };
      const image = await (this.d.flights ? this.d.flights.run(key, render, () => this.d.cache.probe(key)) : render());
      if (job.hadFailure) await this.d.store.charts.clearRerenderFailure(id);
      this.refusals.delete(id);
      return { image, tier: 'render' };
    } catch (err) {
      const answer = await this.remember(id, err);
      if (background) this.d.metrics.error(id, this.d.clock.now());
      throw answer;
    } finally {
      this.active--;
      if (renderMs > 0) {
        await this.d.store.charts
          .chargeRerender(job.rec.accountId, this.d.clock.now(), renderMs, this.limits)
          .catch((err: unknown) => this.d.log?.error({ err, chartId: id }, 'charging a re-render to its account failed'));
      }
    }
  }

  /** Remembers a failure the stored request caused; returns the error to answer with. */
  private async remember(id: string, err: unknown): Promise<unknown> {
    if (!(err instanceof AppError) || !REMEMBERED.has(err.code)) return err;
    const now = this.d.clock.now();
    const error = { status: err.status, code: err.code, detail: err.detail?.slice(0, 500) ?? null };
    try {
      const f = await this.d.store.charts.recordRerenderFailure(id, now, error, rerenderBackoffMs);
      return f ? this.refuse(id, failureRefusal(f), now) : err;
    } catch (storeErr) {
      // Not remembered in the store: at least this instance holds back for the first backoff.
      this.d.log?.error({ err: storeErr, chartId: id }, 'remembering a failed re-render failed');
      return this.refuse(id, { until: now + BACKOFF_FIRST_MS, status: err.status, code: err.code, detail: err.detail }, now);
    }
  }
}
