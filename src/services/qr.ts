// QR codes drawn in this process with the qrcode package (no browser): cached by their parameters.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import QRCode from 'qrcode';
import type { QrRequest } from '../chart/qr.js';
import { invalidInput } from '../errors.js';

export interface QrImage {
  body: Buffer;
  contentType: string;
  etag: string;
}

const CACHE_BYTES = 32 * 1024 * 1024;

export class QrService {
  private readonly cache = new LRUCache<string, QrImage>({ maxSize: CACHE_BYTES, sizeCalculation: (v) => v.body.length + 128 });

  async render(req: QrRequest): Promise<QrImage> {
    const key = JSON.stringify(req);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const opts = { margin: req.margin, width: req.size, errorCorrectionLevel: req.ecLevel, color: { dark: req.dark, light: req.light } };
    let body: Buffer;
    try {
      body = req.format === 'svg' ? Buffer.from(await QRCode.toString(req.text, { ...opts, type: 'svg' }), 'utf8') : await QRCode.toBuffer(req.text, { ...opts, type: 'png' });
    } catch (err) {
      // the text does not fit a QR code at this error-correction level
      throw invalidInput(`the QR code could not be made: ${(err as Error).message.slice(0, 200)}`);
    }
    const image = { body, contentType: req.format === 'svg' ? 'image/svg+xml' : 'image/png', etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    this.cache.set(key, image);
    return image;
  }
}
