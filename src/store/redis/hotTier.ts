// The shared hot tier of cached images in Redis, between each instance's memory and the store:
// one key per image (expiring with it), bounded in bytes by an LRU set of its own keys. A hit is
// one plain GET; its use is recorded in the LRU set in batches (see Touches).
import type { StoredImage } from '../types.js';
import type { RedisLink } from './client.js';

export interface HotImageTier {
  /** The image, or null (absent, evicted, or Redis away: a miss, never an error). */
  get(key: string, now: number): Promise<StoredImage | null>;
  /** Best effort: a failure leaves the image in the store only. */
  put(key: string, image: StoredImage, now: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Largest body the tier takes (an eighth of its budget: one image must not empty it). */
  readonly maxEntryBytes: number;
}

const LRU = 'hot:lru';
const SIZES = 'hot:sizes';
const TOTAL = 'hot:bytes';

// One value per image: [4-byte header length][header JSON][body], so a hit is one round trip.
export function encodeImage(image: StoredImage): Buffer {
  const header = Buffer.from(JSON.stringify({ t: image.contentType, e: image.etag, c: image.createdAt, x: image.expiresAt, ...(image.renderer ? { r: image.renderer } : {}) }), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  return Buffer.concat([len, header, image.body]);
}

export function decodeImage(v: Buffer): StoredImage | null {
  if (v.length < 4) return null;
  const n = v.readUInt32BE(0);
  if (4 + n > v.length) return null;
  try {
    const h = JSON.parse(v.subarray(4, 4 + n).toString('utf8')) as { t: string; e: string; c: number; x: number | null; r?: string };
    return { contentType: h.t, etag: h.e, createdAt: h.c, expiresAt: h.x, body: v.subarray(4 + n), ...(typeof h.r === 'string' ? { renderer: h.r } : {}) };
  } catch {
    return null;
  }
}

/** How long a hit's use may wait before it reaches the LRU set (every put of this instance sends it first). */
const TOUCH_FLUSH_MS = 1000;
const TOUCH_MAX_PENDING = 10_000;

/**
 * Uses of images not yet recorded in the LRU set, by full key name. Recording each hit in the
 * read itself (a script) cost the server about three times a plain GET, since the body passed
 * through Lua; so hits are GETs, and their times go out as one ZADD XX GT per second, or before
 * this instance's next put (the only command that evicts), whichever comes first.
 */
class Touches {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly link: RedisLink) {}

  add(member: string, now: number): void {
    this.pending.set(member, now);
    if (this.pending.size >= TOUCH_MAX_PENDING) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), TOUCH_FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Sends the pending uses (not awaited: the connection keeps commands in order, so a put sent next sees them). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const pending = this.pending;
    this.pending = new Map();
    // Redis away: the uses are dropped (the LRU order is a preference; the byte budget holds regardless)
    if (pending.size === 0 || !this.link.up) return;
    const args: (string | number)[] = [];
    for (const [member, at] of pending) args.push(at, member);
    // XX: an image evicted meanwhile stays out; GT: a later use by another instance stands
    this.link.redis.zadd(LRU, 'XX', 'GT', ...args).catch((err: unknown) => this.link.failed(err, 'hot image tier'));
  }
}

export function redisHotTier(link: RedisLink, maxBytes: number): HotImageTier {
  const r = link.redis;
  // the LRU set holds full key names (the scripts evict by them)
  const prefix = r.options.keyPrefix ?? '';
  const touches = new Touches(link);
  return {
    maxEntryBytes: Math.max(1, Math.floor(maxBytes / 8)),
    async get(key, now) {
      if (!link.up) return null;
      try {
        link.batchWrites();
        const v = await r.getBuffer(`hot:${key}`);
        const image = v ? decodeImage(v) : null;
        if (image) touches.add(`${prefix}hot:${key}`, now);
        return image;
      } catch (err) {
        link.failed(err, 'hot image tier');
        return null;
      }
    },
    async put(key, image, now) {
      if (!link.up || image.body.length > this.maxEntryBytes) return;
      // an expired image is not worth a slot; the TTL makes Redis drop it when it expires
      const ttl = image.expiresAt === null ? '' : String(Math.ceil(image.expiresAt - now));
      if (ttl !== '' && Number(ttl) <= 0) return;
      try {
        // the uses this instance saw are in the LRU set before the put evicts by it
        touches.flush();
        await r.hotPut(`hot:${key}`, LRU, SIZES, TOTAL, encodeImage(image), ttl, String(now), String(maxBytes));
      } catch (err) {
        link.failed(err, 'hot image tier');
      }
    },
    async delete(key) {
      if (!link.up) return;
      try {
        await r.hotDelete(`hot:${key}`, LRU, SIZES, TOTAL);
      } catch (err) {
        link.failed(err, 'hot image tier');
      }
    },
  };
}
