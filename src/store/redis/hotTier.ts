// The shared hot tier of cached images in Redis, between each instance's memory and the store:
// one key per image (expiring with it), bounded in bytes by an LRU set of its own keys.
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
  const header = Buffer.from(JSON.stringify({ t: image.contentType, e: image.etag, c: image.createdAt, x: image.expiresAt }), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  return Buffer.concat([len, header, image.body]);
}

export function decodeImage(v: Buffer): StoredImage | null {
  if (v.length < 4) return null;
  const n = v.readUInt32BE(0);
  if (4 + n > v.length) return null;
  try {
    const h = JSON.parse(v.subarray(4, 4 + n).toString('utf8')) as { t: string; e: string; c: number; x: number | null };
    return { contentType: h.t, etag: h.e, createdAt: h.c, expiresAt: h.x, body: v.subarray(4 + n) };
  } catch {
    return null;
  }
}

export function redisHotTier(link: RedisLink, maxBytes: number): HotImageTier {
  const r = link.redis;
  return {
    maxEntryBytes: Math.max(1, Math.floor(maxBytes / 8)),
    async get(key, now) {
      if (!link.up) return null;
      try {
        const v = await r.hotGetBuffer(`hot:${key}`, LRU, String(now));
        return v ? decodeImage(v) : null;
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
