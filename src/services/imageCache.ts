// Cache tiers for rendered images: lru-cache in memory, bounded in bytes, then (with Redis) a
// tier shared by every instance, in front of the store's persistent tier. Keys: digests or chart ids.
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import type { ImageStore, StoredImage } from '../store/types.js';
import type { HotImageTier } from '../store/redis/hotTier.js';
import { systemClock, type Clock } from '../clock.js';

/** shared: the hot tier every instance reads (Redis). */
export type CacheTier = 'memory' | 'shared' | 'persistent';

export interface CacheHit {
  image: StoredImage;
  tier: CacheTier;
}

/** A lookup that may return an expired image (fresh: false): a short chart's last good image. */
export interface CacheLookup extends CacheHit {
  fresh: boolean;
}

export interface CacheObserver {
  cacheHit(tier: CacheTier | 'miss'): void;
}

export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

export class ImageCache {
  private readonly memory: LRUCache<string, StoredImage> | null;

  constructor(
    private readonly persistent: ImageStore,
    maxMemoryBytes: number,
    private readonly clock: Clock = systemClock,
    private readonly observer?: CacheObserver,
    private readonly shared?: HotImageTier,
  ) {
    this.memory =
      maxMemoryBytes > 0
        ? new LRUCache<string, StoredImage>({
            maxSize: maxMemoryBytes,
            sizeCalculation: (img) => img.body.length + 200,
            // An image larger than an eighth of the tier would evict too much: keep it on disk only.
            maxEntrySize: Math.max(1, Math.floor(maxMemoryBytes / 8)),
          })
        : null;
  }

  /** A fresh image from the fastest tier that has one; expired images count as absent. */
  async get(key: string): Promise<CacheHit | null> {
    const now = this.clock.now();
    const mem = this.memory?.get(key);
    if (mem && (mem.expiresAt === null || mem.expiresAt > now)) {
      this.observer?.cacheHit('memory');
      return { image: mem, tier: 'memory' };
    }
    if (mem) this.memory?.delete(key);
    const hot = await this.shared?.get(key, now);
    if (hot && (hot.expiresAt === null || hot.expiresAt > now)) {
      this.memory?.set(key, hot);
      this.observer?.cacheHit('shared');
      return { image: hot, tier: 'shared' };
    }
    const disk = await this.persistent.get(key);
    if (disk && (disk.expiresAt === null || disk.expiresAt > now)) {
      this.memory?.set(key, disk);
      void this.shared?.put(key, disk, now);
      this.observer?.cacheHit('persistent');
      return { image: disk, tier: 'persistent' };
    }
    this.observer?.cacheHit('miss');
    return null;
  }

  /** A fresh image from the shared or persistent tier, not counted: polled while another instance renders it. */
  async probe(key: string): Promise<StoredImage | null> {
    const now = this.clock.now();
    const fresh = (img: StoredImage | null | undefined) => (img && (img.expiresAt === null || img.expiresAt > now) ? img : null);
    const image = fresh(await this.shared?.get(key, now)) ?? fresh(await this.persistent.get(key));
    if (image) this.memory?.set(key, image);
    return image;
  }

  /**
   * The memory tier's fresh image, synchronously, or null (nothing is counted then: the caller
   * falls back to get() or lookup(), which count). `accept` may refuse the image first. The
   * short path of cache hits.
   */
  peekMemory(key: string, accept?: (image: StoredImage) => boolean): StoredImage | null {
    const mem = this.memory?.get(key);
    if (!mem || (mem.expiresAt !== null && mem.expiresAt <= this.clock.now())) return null;
    if (accept && !accept(mem)) return null;
    this.observer?.cacheHit('memory');
    return mem;
  }

  /** There is a shared tier (Redis) behind the memory tier. */
  get hasShared(): boolean {
    return this.shared !== undefined;
  }

  /**
   * The shared tier's fresh image when the memory tier holds nothing under `key` (with memory,
   * get() and lookup() would answer from there), or null; counted like get()'s shared hit. The
   * short path of cache hits on an instance whose memory missed.
   */
  async peekShared(key: string): Promise<StoredImage | null> {
    if (!this.shared || this.memory?.has(key)) return null;
    const now = this.clock.now();
    const hot = await this.shared.get(key, now);
    if (!hot || (hot.expiresAt !== null && hot.expiresAt <= now)) return null;
    this.memory?.set(key, hot);
    this.observer?.cacheHit('shared');
    return hot;
  }

  /**
   * Like get(), but an expired image is returned too, marked fresh: false (served stale while
   * it is re-rendered). A stale copy in memory is returned as it is: reading the row again on
   * every GET of a chart whose re-render is held back would cost a blob read per request.
   */
  async lookup(key: string): Promise<CacheLookup | null> {
    const now = this.clock.now();
    const mem = this.memory?.get(key);
    if (mem) {
      this.observer?.cacheHit('memory');
      return { image: mem, tier: 'memory', fresh: mem.expiresAt === null || mem.expiresAt > now };
    }
    // the shared tier holds fresh images only (they expire there): a stale one is the store's
    const hot = await this.shared?.get(key, now);
    if (hot && (hot.expiresAt === null || hot.expiresAt > now)) {
      this.memory?.set(key, hot);
      this.observer?.cacheHit('shared');
      return { image: hot, tier: 'shared', fresh: true };
    }
    const disk = await this.persistent.get(key);
    if (!disk) {
      this.observer?.cacheHit('miss');
      return null;
    }
    this.memory?.set(key, disk);
    void this.shared?.put(key, disk, now);
    this.observer?.cacheHit('persistent');
    return { image: disk, tier: 'persistent', fresh: disk.expiresAt === null || disk.expiresAt > now };
  }

  /** `renderer`: X-Chartshot-Renderer of what drew it (RenderedImage.renderer), served with it. */
  async put(key: string, body: Buffer, contentType: string, ttlMs: number | null, renderer?: string): Promise<StoredImage> {
    const image = this.prepare(body, contentType, ttlMs, renderer);
    await this.persistent.put(key, image);
    this.memory?.set(key, image);
    // awaited: another instance waiting for this render polls the cache (cross-instance flights)
    await this.shared?.put(key, image, image.createdAt);
    return image;
  }

  /**
   * put() for the open endpoint's keys ("open:"), then evicts the oldest open rows until they
   * fit the byte budget (OPEN_CACHE_MAX_MB). Other keys (short charts) are never evicted.
   */
  async putOpen(key: string, body: Buffer, contentType: string, ttlMs: number | null, maxBytes: number, renderer?: string): Promise<StoredImage> {
    if (!key.startsWith('open:')) throw new Error('putOpen takes open: keys only');
    const image = await this.put(key, body, contentType, ttlMs, renderer);
    await this.persistent.trimOpenCache(maxBytes);
    return image;
  }

  /** The row put() would store: for a caller that writes it in its own transaction, then remember()s it. */
  prepare(body: Buffer, contentType: string, ttlMs: number | null, renderer?: string): StoredImage {
    const now = this.clock.now();
    return { body, contentType, etag: etagOf(body), createdAt: now, expiresAt: ttlMs === null ? null : now + ttlMs, ...(renderer ? { renderer } : {}) };
  }

  /** Puts an image already stored in the persistent tier into the memory (and shared) tier. */
  remember(key: string, image: StoredImage): void {
    this.memory?.set(key, image);
    // not awaited: the shared tier is best effort and never fails (a failure is a later miss)
    void this.shared?.put(key, image, this.clock.now());
  }

  /** Drops one key from the memory and shared tiers (the persistent row is removed by its owner). */
  forget(key: string): void {
    this.memory?.delete(key);
    void this.shared?.delete(key);
  }

  /** Forgets the in-memory tier (tests: prove the persistent tier answers). */
  clearMemory(): void {
    this.memory?.clear();
  }
}
