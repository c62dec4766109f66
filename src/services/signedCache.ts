// Signed GET /v1/chart URLs answered again from memory for a short while. A signed URL needs no
// key and is sent `no-store` (a revoked key or a past exp must stop it at once, so no browser or
// proxy may keep it), and one pasted in a page or a mail is fetched again and again: without this
// each GET drew the chart again, and a PDF was converted again. The key is the full query as
// sent, signature included; a lookup happens only after the signature, its expiry, the key and
// the account were checked for this request (http/auth.ts, ChartService.generate), so a revoked
// or expired URL is refused even while its image is held here. Bounded in bytes and in seconds;
// least recently used first out. Why: docs/decisions/0039-pdf-off-the-event-loop.md.
import type { Clock } from '../clock.js';
import type { RenderedImage } from './render.js';

export interface SignedCacheOptions {
  /** How long an image is served again after its render, ms. */
  ttlMs: number;
  /** Bytes of images (and their queries) held at most. */
  maxBytes: number;
  /** An image larger than this is never held. */
  maxEntryBytes: number;
}

export const DEFAULT_SIGNED_CACHE: SignedCacheOptions = { ttlMs: 60_000, maxBytes: 64 * 1024 * 1024, maxEntryBytes: 16 * 1024 * 1024 };

interface Entry {
  img: RenderedImage;
  bytes: number;
  until: number;
}

export class SignedImageCache {
  readonly #opts: SignedCacheOptions;
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  readonly counters = { hits: 0, misses: 0, stored: 0 };

  constructor(
    private readonly clock: Clock,
    opts: Partial<SignedCacheOptions> = {},
  ) {
    this.#opts = { ...DEFAULT_SIGNED_CACHE, ...opts };
  }

  /** Bytes and images held now. */
  get size(): { bytes: number; entries: number } {
    return { bytes: this.#bytes, entries: this.#entries.size };
  }

  /** The image of `query` while it is fresh; undefined otherwise. Call only once the request's
   *  signature and key were checked. */
  get(query: string): RenderedImage | undefined {
    const e = this.#entries.get(query);
    const now = this.clock.now();
    if (!e || now >= e.until || now < e.until - this.#opts.ttlMs) {
      if (e) this.#drop(query, e);
      this.counters.misses++;
      return undefined;
    }
    // most recently used last
    this.#entries.delete(query);
    this.#entries.set(query, e);
    this.counters.hits++;
    return e.img;
  }

  /** Keeps a successful render of `query`; an image that does not fit is not kept. */
  set(query: string, img: RenderedImage): void {
    const bytes = img.body.length + query.length * 2;
    if (bytes > this.#opts.maxEntryBytes || bytes > this.#opts.maxBytes) return;
    const old = this.#entries.get(query);
    if (old) this.#drop(query, old);
    // only what a response needs: the parts and a request's own fields are never kept
    const kept: RenderedImage = { body: img.body, contentType: img.contentType, format: img.format, renderMs: img.renderMs, pageClean: img.pageClean, coalesced: img.coalesced, digest: img.digest, ...(img.renderer !== undefined ? { renderer: img.renderer } : {}) };
    this.#entries.set(query, { img: kept, bytes, until: this.clock.now() + this.#opts.ttlMs });
    this.#bytes += bytes;
    this.counters.stored++;
    for (const [q, e] of this.#entries) {
      if (this.#bytes <= this.#opts.maxBytes) break;
      this.#drop(q, e);
    }
  }

  #drop(query: string, e: Entry): void {
    this.#entries.delete(query);
    this.#bytes -= e.bytes;
  }
}
