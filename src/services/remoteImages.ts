// Images a config names by URL (QuickChart's backgroundImageUrl), fetched here and never by the
// page: only from hosts the operator listed in REMOTE_IMAGES_ALLOW, through the outbound guard
// (public addresses only, the vetted address connected to, no redirects), bounded in bytes, time
// and count, cached by URL, and handed to the page as data URLs. A data URL is taken as it is.
import { LRUCache } from 'lru-cache';
import { invalidInput, serviceUnavailable } from '../errors.js';
import { getGuarded, RefusedTarget, TooLarge } from './outboundHttp.js';

export interface RemoteImagesOptions {
  /** REMOTE_IMAGES_ALLOW: host names (lower case) whose images may be fetched; empty: none. */
  allow: readonly string[];
  /** Largest image, bytes. */
  maxBytes?: number;
  /** Whole fetch, ms. */
  timeoutMs?: number;
  /** Tests only (never read from the environment): loopback and private addresses allowed. */
  allowPrivate?: boolean;
  /** Bytes of fetched images kept. */
  cacheBytes?: number;
  /** How long a fetched image is reused, ms. */
  cacheTtlMs?: number;
}

export const REMOTE_IMAGE_LIMITS = Object.freeze({
  maxBytes: 2 * 1024 * 1024,
  timeoutMs: 5000,
  /** Different URLs being fetched at once, whole process; past it 503 (the request may be retried). */
  inFlight: 16,
  /** Decoded pixels of one image (4096 x 4096: 64 MB as RGBA in the page). */
  maxPixels: 4096 * 4096,
  cacheBytes: 32 * 1024 * 1024,
  cacheTtlMs: 3_600_000,
});

/** The image types a page decodes, told by their first bytes (never by the Content-Type alone). */
export function sniffImageType(b: Buffer): 'png' | 'jpeg' | 'gif' | 'webp' | null {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 6 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a')) return 'gif';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}

/**
 * Width and height from the header, so that a small file that decodes to a huge bitmap (a
 * decompression bomb) is refused before the page decodes it; null when the header is not read.
 */
export function imageDimensions(b: Buffer, type: 'png' | 'jpeg' | 'gif' | 'webp'): [number, number] | null {
  try {
    if (type === 'png') return [b.readUInt32BE(16), b.readUInt32BE(20)];
    if (type === 'gif') return [b.readUInt16LE(6), b.readUInt16LE(8)];
    if (type === 'webp') {
      const chunk = b.toString('latin1', 12, 16);
      if (chunk === 'VP8 ') return [b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff];
      if (chunk === 'VP8L') {
        const bits = b.readUInt32LE(21);
        return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
      }
      if (chunk === 'VP8X') return [b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1];
      return null;
    }
    // JPEG: the first start-of-frame marker (SOF0-SOF15 but DHT, JPG and DAC)
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return [b.readUInt16BE(i + 7), b.readUInt16BE(i + 5)];
      i += 2 + b.readUInt16BE(i + 2);
    }
    return null;
  } catch {
    return null;
  }
}

const DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]*={0,2})$/;

/** Parses REMOTE_IMAGES_ALLOW's text: host names, comma-separated (config.ts validates). */
export function parseAllowList(raw: string | undefined): string[] {
  if (!raw || raw.trim() === '') return [];
  return raw
    .split(',')
    .map((h) => h.trim().toLowerCase().replace(/\.$/, ''))
    .filter((h) => h !== '');
}

export class RemoteImages {
  private readonly allow: ReadonlySet<string>;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly cache: LRUCache<string, string>;
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(private readonly o: RemoteImagesOptions) {
    this.allow = new Set(o.allow.map((h) => h.toLowerCase()));
    this.maxBytes = o.maxBytes ?? REMOTE_IMAGE_LIMITS.maxBytes;
    this.timeoutMs = o.timeoutMs ?? REMOTE_IMAGE_LIMITS.timeoutMs;
    this.cache = new LRUCache<string, string>({
      maxSize: o.cacheBytes ?? REMOTE_IMAGE_LIMITS.cacheBytes,
      sizeCalculation: (v, k) => v.length + k.length,
      ttl: o.cacheTtlMs ?? REMOTE_IMAGE_LIMITS.cacheTtlMs,
    });
  }

  /** The image `url` names as a data:image URL; `feature` names the parameter in errors (400). */
  async dataUrl(url: string, feature: string): Promise<string> {
    if (url.startsWith('data:')) return this.checkDataUrl(url, feature);
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw invalidInput(`${feature} must be an http(s) URL or a data:image URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalidInput(`${feature} must be an http(s) URL or a data:image URL`);
    const host = u.hostname.toLowerCase().replace(/\.$/, '');
    if (!this.allow.has(host)) {
      throw invalidInput(
        this.allow.size === 0
          ? `${feature}: remote images are off on this server (REMOTE_IMAGES_ALLOW is empty); send the image as a data:image URL, or ask the operator to list ${host}`
          : `${feature}: ${host} is not in REMOTE_IMAGES_ALLOW; send the image as a data:image URL, or ask the operator to list the host`,
      );
    }
    const key = u.href;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    let flight = this.inFlight.get(key);
    if (!flight) {
      if (this.inFlight.size >= REMOTE_IMAGE_LIMITS.inFlight) throw serviceUnavailable(1, `${feature}: too many remote images being fetched at once; try again`);
      flight = this.fetchImage(key, feature).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, flight);
    }
    return flight;
  }

  private checkDataUrl(url: string, feature: string): string {
    const m = DATA_URL.exec(url);
    if (!m) throw invalidInput(`${feature}: a data URL must be data:image/(png|jpeg|gif|webp);base64,...`);
    const bytes = Buffer.from(m[2]!, 'base64');
    if (bytes.length > this.maxBytes) throw invalidInput(`${feature}: the image is ${bytes.length} bytes; at most ${this.maxBytes}`);
    if (sniffImageType(bytes) !== (m[1] as string)) throw invalidInput(`${feature}: the data URL's bytes are not a ${m[1]} image`);
    checkPixels(bytes, m[1] as 'png', feature);
    return url;
  }

  private async fetchImage(url: string, feature: string): Promise<string> {
    let res;
    try {
      res = await getGuarded(url, { timeoutMs: this.timeoutMs, maxBytes: this.maxBytes, allowPrivate: this.o.allowPrivate === true, headers: { accept: 'image/png,image/jpeg,image/gif,image/webp' } });
    } catch (err) {
      throw invalidInput(`${feature}: ${url.length > 200 ? url.slice(0, 200) + '...' : url} could not be fetched: ${why(err, this.maxBytes, this.timeoutMs)}`);
    }
    if (res.status >= 300 && res.status < 400) throw invalidInput(`${feature}: the image URL answered a redirect (${res.status}); redirects are not followed: name the final URL`);
    if (res.status !== 200) throw invalidInput(`${feature}: the image URL answered ${res.status}`);
    const type = sniffImageType(res.body);
    if (!type) throw invalidInput(`${feature}: the URL did not answer a png, jpeg, gif or webp image`);
    checkPixels(res.body, type, feature);
    const data = `data:image/${type};base64,${res.body.toString('base64')}`;
    this.cache.set(url, data);
    return data;
  }
}

function checkPixels(b: Buffer, type: 'png' | 'jpeg' | 'gif' | 'webp', feature: string): void {
  const d = imageDimensions(b, type);
  if (!d) throw invalidInput(`${feature}: the ${type} image's size could not be read`);
  if (d[0] * d[1] > REMOTE_IMAGE_LIMITS.maxPixels) {
    throw invalidInput(`${feature}: the image is ${d[0]}x${d[1]} pixels; at most ${REMOTE_IMAGE_LIMITS.maxPixels} pixels (4096x4096)`);
  }
}

function why(err: unknown, maxBytes: number, timeoutMs: number): string {
  if (err instanceof TooLarge) return `the image is larger than ${maxBytes} bytes`;
  if (err instanceof RefusedTarget) return err.message.replace(/; set WEBHOOK_ALLOW_PRIVATE=true to allow it$/, '') + ' (remote images come from public addresses only)';
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'ABORT_ERR') return `no complete answer within ${timeoutMs} ms`;
  return (e.code ?? e.message ?? 'network error').slice(0, 120);
}
