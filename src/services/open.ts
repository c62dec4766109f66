// The open (unauthenticated) render use case: gate, cache, per-client window, watermarked render
// without functions. Why: docs/decisions/0008-open-endpoint.md.
import { LRUCache } from 'lru-cache';
import { clientKey } from '../rules/clientAddress.js';
import { EDIT_ID, editState, playgroundUrl, parseOpenQuery, type EditState, type OpenChartQuery, type OpenRequest } from '../chart/open.js';
import { renderDigest, withConfigJson, withZoneLocale, type RenderRequest } from '../chart/request.js';
import { AppError, invalidConfig, rateLimited, renderFailed } from '../errors.js';
import type { OpenRenderWindows, StoredImage } from '../store/types.js';
import { StorageError, storeUnreachable } from '../store/errors.js';
import type { Clock } from '../clock.js';
import type { CacheHit, ImageCache } from './imageCache.js';
import { renderOwner, type RenderService } from './render.js';
import { Flights } from './flights.js';
import type { PageBudget } from './pageBudget.js';
import type { SharedFlights } from '../store/redis/flights.js';

export type OpenCacheTier = 'edge' | 'r2' | 'miss';


export interface OpenImage {
  body: Buffer;
  contentType: string;
  etag: string;
  /** edge = memory tier, r2 = persistent tier, miss = rendered for this request. */
  tier: OpenCacheTier;
  /** The playground link that opens this chart: X-Edit-Url and Link rel=edit. */
  editUrl: string;
  /** X-Chartshot-Renderer of what drew it, when the cache recorded it. */
  renderer?: string;
  /** False: drawn on a page whose shared state the render changed (it was reset), so not cached
   *  and not to be cached by anyone (Cache-Control: no-store). */
  cached?: boolean;
}

/** An OpenImage of a stored or drawn image, from the tier it came from (without its edit link). */
function openImage(image: StoredImage, tier: OpenCacheTier): Omit<OpenImage, 'editUrl'> {
  return { body: image.body, contentType: image.contentType, etag: image.etag, tier, ...(image.renderer ? { renderer: image.renderer } : {}) };
}
const hitTier = (hit: { tier: string }): OpenCacheTier => (hit.tier === 'persistent' ? 'r2' : 'edge');

export interface OpenServiceOptions {
  rendersPerHour: number;
  publicBaseUrl: string;
  /** How long an open image stays in the cache; default 30 days. */
  cacheTtlMs?: number;
  /** Byte budget of the open images in the persistent cache (OPEN_CACHE_MAX_MB); oldest evicted first. */
  cacheMaxBytes?: number;
  /** Renders shared with other instances (Redis): one instance renders an uncached chart, the others wait for it. */
  flights?: SharedFlights;
  /** Page time per client address: renders past it are refused at once (429 rate_limited). */
  pageBudget?: PageBudget;
}

export const OPEN_WINDOW_MS = 3_600_000;
export const OPEN_CACHE_TTL_MS = 30 * 86_400_000;
export const OPEN_CACHE_MAX_BYTES = 1024 * 1024 * 1024;
const PURGE_EVERY_MS = 10 * 60_000;
/** Bytes of request targets remembered for the short path of cache hits (targets are at most 8 KB). */
const ADMITTED_TARGET_BYTES = 8 * 1024 * 1024;

/** Where an admitted request target's image lives, and its edit link. */
interface AdmittedTarget {
  key: string;
  editUrl: string;
}

// How it caches and counts:
// - Cache key: a digest of exactly what the page draws ("open:" + renderDigest: the config's
//   JSON text as it reaches the page, key order kept, plus the normalised size, format and
//   background), so two URLs that differ only in parameter order, explicit defaults or unknown
//   parameters share one image, while two configs whose keys come in another order do not (a
//   data object's key order is the order of its points: whoever asked first would otherwise
//   decide the image every caller of the other URL gets, marked immutable).
// - TTL 30 days: the persistent tier cannot be grown without bound by anonymous traffic,
//   while the rendering is deterministic (toDataURL is byte-identical across renders), so an
//   image re-rendered after expiry has the same bytes and ETag as before.
// - What counts: every render this service starts, once it passed the pure checks, whether
//   it then succeeds or fails (a failing config costs the box as much as a good one). Cache
//   hits are free, and so is a request that joins a render of the same image already in
//   flight (it costs nothing more); checks before the window (gate, sizes) are free too.
// - Client: the IP Koa reports (the socket address, or the right-most X-Forwarded-For entry
//   when TRUST_PROXY). IPv4-mapped IPv6 is IPv4; other IPv6 addresses count per /64, the
//   block one subscriber usually holds, so rotating through it gains nothing.
export class OpenChartService {
  /** Renders of this service in flight, by cache key: later identical requests wait for them for free. */
  private readonly pending = new Flights<StoredImage>();
  /** Images answered without being stored: their render's page failed the state check. */
  private readonly notStored = new WeakSet<StoredImage>();
  private lastPurge = 0;

  /** Callers waiting for this service's renders in flight (the first of each included). */
  callersInFlight(): number {
    return this.pending.callers();
  }

  /**
   * Request targets (path and query exactly as received) that passed every check and were
   * answered with an image, by the cache key of that image. Every check of this endpoint is a
   * pure function of the target, so the same target passes them again: its cache hit may skip
   * parsing, the gate, the caps and the digest (serveFromMemory). In memory only, bounded.
   */
  private readonly admitted = new LRUCache<string, AdmittedTarget>({
    maxSize: ADMITTED_TARGET_BYTES,
    sizeCalculation: (v, k) => k.length + v.key.length + v.editUrl.length + 64,
  });

  constructor(
    private readonly renderer: RenderService,
    private readonly cache: ImageCache,
    private readonly windows: OpenRenderWindows,
    private readonly clock: Clock,
    private readonly opts: OpenServiceOptions,
  ) {}

  /**
   * `target`: the request target as received, remembered once the request is answered with an
   * image, so that its next cache hit can take serveFromMemory. `signal`: the client went away
   * (a render all of whose clients left leaves the renderer's queue).
   */
  async render(query: OpenChartQuery, clientIp: string, target?: string, signal?: AbortSignal): Promise<OpenImage> {
    const req = parseOpenQuery(query, this.renderer.zone);
    // the digest and the page share one serialisation (a config that came as text has it already)
    const render = withConfigJson(req.render);
    const digest = renderDigest(render);
    const key = `open:${digest}`;
    const edit = playgroundUrl(this.opts.publicBaseUrl, req, digest);
    const editUrl = edit.url;
    const hit = await this.cache.get(key).catch(missWhileStoreAway);
    if (hit) {
      if (target !== undefined) this.admitted.set(target, { key, editUrl });
      return { ...openImage(hit.image, hitTier(hit)), editUrl };
    }
    const client = clientKey(clientIp);
    // only a request that starts a render spends its address's window
    if (!this.pending.has(key)) await this.admit(client);
    // another request may have started the same render while the window was checked: join it
    const { value: image, joined } = await this.pending.join(key, (abort) => this.start(key, render, client, digest, abort), signal);
    // the ?id= link must open: stored with the image (same TTL, same budget), once per render
    if (edit.stored && !joined) {
      // the image is good either way: a failed write costs only the link (it then opens an example)
      await this.storeEditState(digest, req).catch(() => undefined);
    }
    // remembered once answered with an image (a refused request, a 429, is not)
    if (this.notStored.has(image)) return { ...openImage(image, 'miss'), editUrl, cached: false };
    if (target !== undefined) this.admitted.set(target, { key, editUrl });
    return { ...openImage(image, 'miss'), editUrl };
  }

  /**
   * A request normalised elsewhere (keyless QuickChart-style /chart when the operator allows it):
   * the same cache, per-address window and fair queue as render(), without the playground link.
   * `digest`: the image's renderDigest, its key in the open cache (keyless /chart/create's id).
   */
  async renderPrepared(prepared: RenderRequest, clientIp: string, signal?: AbortSignal): Promise<Omit<OpenImage, 'editUrl'> & { digest: string }> {
    // keyed by what it is drawn in: TIMEZONE and LOCALE where it names no zone or locale
    const req = withZoneLocale(withConfigJson(prepared), this.renderer.zone);
    const digest = renderDigest(req);
    const key = `open:${digest}`;
    const hit = await this.cache.get(key).catch(missWhileStoreAway);
    if (hit) {
      return { ...openImage(hit.image, hitTier(hit)), digest };
    }
    const client = clientKey(clientIp);
    if (!this.pending.has(key)) await this.admit(client);
    const { value: image } = await this.pending.join(key, (abort) => this.start(key, req, client, digest, abort), signal);
    return { ...openImage(image, 'miss'), digest, ...(this.notStored.has(image) ? { cached: false } : {}) };
  }

  /** A cache hit of a request target answered before, from the memory tier, or null (ask render()). */
  serveFromMemory(target: string): OpenImage | null {
    const known = this.admitted.get(target);
    if (!known) return null;
    const image = this.cache.peekMemory(known.key);
    if (!image) return null;
    return { ...openImage(image, 'edge'), editUrl: known.editUrl };
  }

  /**
   * serveFromMemory() from the shared tier (Redis) while the memory tier holds nothing for the
   * target's image. Null, or a promise of null: ask render() (null at once: nothing to ask).
   */
  serveFromShared(target: string): Promise<OpenImage | null> | null {
    const known = this.cache.hasShared ? this.admitted.get(target) : undefined;
    if (!known) return null;
    return this.cache.peekShared(known.key).then((image) =>
      image ? { ...openImage(image, 'edge'), editUrl: known.editUrl } : null,
    );
  }

  /**
   * An image renderPrepared() stored, by its digest, from any tier, or null (never drawn,
   * expired, or evicted under OPEN_CACHE_MAX_MB): what a keyless /chart/render/{id} serves.
   */
  async storedImage(digest: string): Promise<CacheHit | null> {
    return this.cache.get(`open:${digest}`);
  }

  /** The edit state behind a {base}/playground?id= link, or null (unknown, expired or evicted). */
  async editState(id: string): Promise<EditState | null> {
    if (!EDIT_ID.test(id)) return null;
    const hit = await this.cache.get(editKey(id));
    if (!hit) return null;
    try {
      return JSON.parse(hit.image.body.toString('utf8')) as EditState;
    } catch {
      return null;
    }
  }

  private async storeEditState(digest: string, req: OpenRequest): Promise<void> {
    const body = Buffer.from(JSON.stringify(editState(req)), 'utf8');
    await this.cache.putOpen(editKey(digest), body, 'application/json', this.opts.cacheTtlMs ?? OPEN_CACHE_TTL_MS, this.opts.cacheMaxBytes ?? OPEN_CACHE_MAX_BYTES);
  }

  private async admit(client: string): Promise<void> {
    // page time first: a refused render spends nothing of the window
    this.opts.pageBudget?.admit({ address: client });
    const now = this.clock.now();
    if (now - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now;
      // housekeeping: with the database away (the windows in Redis) it waits for the next purge
      await this.windows.purge(now - OPEN_WINDOW_MS).catch(missWhileStoreAway);
    }
    const take = await this.windows.take(client, now, OPEN_WINDOW_MS, this.opts.rendersPerHour);
    if (!take.allowed) {
      throw rateLimited(take.retryAfterMs / 1000, `at most ${this.opts.rendersPerHour} new renders per hour from one address; cached images are still served`);
    }
  }

  private async start(key: string, req: RenderRequest, client: string, digest: string, signal: AbortSignal): Promise<StoredImage> {
    // anonymous: the short deadline and the in-page budgets of render/budgets.ts
    const draw = (later?: (pageMs: number) => void) => this.renderer.render(req, renderOwner.address(client), digest, signal, 'anonymous', later);
    const budget = this.opts.pageBudget;
    const render = async () => {
      // the address is charged the page time of the render it started, failed ones included
      const img = await (budget ? budget.run({ address: client }, draw, (i) => (i.coalesced ? 0 : i.renderMs)) : draw());
      // an image drawn on a page whose shared state its render changed is answered, never kept:
      // what anonymous traffic receives from the cache comes from pages that passed the check
      if (!img.pageClean) {
        const image = this.cache.prepare(img.body, img.contentType, null, img.renderer);
        this.notStored.add(image);
        return image;
      }
      try {
        return await this.cache.putOpen(key, img.body, img.contentType, this.opts.cacheTtlMs ?? OPEN_CACHE_TTL_MS, this.opts.cacheMaxBytes ?? OPEN_CACHE_MAX_BYTES, img.renderer);
      } catch (err) {
        missWhileStoreAway(err);
        // the database is away: the image is answered, not kept (as one from a page that failed its check)
        const image = this.cache.prepare(img.body, img.contentType, null, img.renderer);
        this.notStored.add(image);
        return image;
      }
    };
    try {
      const shared = this.opts.flights;
      return await (shared ? shared.run(key, render, () => this.cache.probe(key).catch(missWhileStoreAway), signal) : render());
    } catch (err) {
      throw openRenderError(err);
    }
  }
}

/** Edit states share the open cache (its "open:" budget and TTL); a digest never contains ':'. */
const editKey = (id: string) => `open:edit:${id}`;

/** The open endpoint's own codes: Chart.js refusing the config is invalid_config; any other
 *  client error passes; an unexpected failure is render_failed (the cause stays for the log). */
/**
 * The open endpoint's images are a cache: while the database (its persistent tier) cannot be
 * reached, a lookup there is a miss and the image is drawn; any other failure is thrown on.
 */
function missWhileStoreAway(err: unknown): null {
  if (storeUnreachable(err)) return null;
  throw err;
}

function openRenderError(err: unknown): unknown {
  // a storage failure is the store's, not the renderer's: answered as the store's error
  if (err instanceof StorageError) return err;
  if (err instanceof AppError) {
    if (err.code === 'invalid_input') return invalidConfig(err.detail ?? 'the config could not be rendered');
    return err;
  }
  const e = renderFailed('the renderer failed; please retry');
  Object.defineProperty(e, 'cause', { value: err });
  return e;
}

