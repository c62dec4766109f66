// QR codes made in this process (the qrcode package's matrix, our own 1-bit PNG; no browser):
// cached by their parameters, new ones limited per client address.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import QRCode from 'qrcode';
import type { QrRequest } from '../chart/qr.js';
import { clientKey } from '../rules/clientAddress.js';
import { invalidInput, rateLimited } from '../errors.js';
import type { Clock } from '../clock.js';
import type { OpenRenderWindows } from '../store/types.js';
import { encodeQrPng, type QrModules } from './qrPng.js';
import { composedQrRequest } from './qrCompose.js';
import { renderOwner, type RenderService } from './render.js';
import type { RemoteImages } from './remoteImages.js';

export interface QrImage {
  body: Buffer;
  contentType: string;
  etag: string;
}

const CACHE_BYTES = 32 * 1024 * 1024;
/** New QR codes (cache misses) one client address may have made per hour. */
export const QR_CODES_PER_ADDRESS_PER_HOUR = 300;
const QR_WINDOW_MS = 3_600_000;

export class QrService {
  private readonly cache = new LRUCache<string, QrImage>({ maxSize: CACHE_BYTES, sizeCalculation: (v) => v.body.length + 128 });

  constructor(
    private readonly windows: OpenRenderWindows,
    private readonly clock: Clock,
    /** Captions and center images are drawn by a renderer page, center images fetched by RemoteImages. */
    private readonly page?: { renderer: Pick<RenderService, 'render'>; images: Pick<RemoteImages, 'dataUrl'> },
  ) {}

  async render(req: QrRequest, clientIp: string): Promise<QrImage> {
    const key = JSON.stringify(req);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const take = await this.windows.take(`qr-client:${clientKey(clientIp)}`, this.clock.now(), QR_WINDOW_MS, QR_CODES_PER_ADDRESS_PER_HOUR);
    if (!take.allowed) {
      throw rateLimited(take.retryAfterMs / 1000, `at most ${QR_CODES_PER_ADDRESS_PER_HOUR} new QR codes per hour from one address; codes made before are still served`);
    }
    let qr: ReturnType<typeof QRCode.create>;
    try {
      qr = QRCode.create(req.text, { errorCorrectionLevel: req.ecLevel });
    } catch (err) {
      // the text does not fit a QR code at this error-correction level
      throw invalidInput(`the QR code could not be made: ${(err as Error).message.slice(0, 200)}`);
    }
    const opts = { margin: req.margin, width: req.size, errorCorrectionLevel: req.ecLevel, color: { dark: req.dark, light: req.light } };
    const body = req.caption || req.centerImage
      ? await this.compose(req, qr.modules, clientIp)
      : req.format === 'svg'
        ? Buffer.from(await QRCode.toString(req.text, { ...opts, type: 'svg' }), 'utf8')
        : await encodeQrPng(qr.modules, { width: req.size, margin: req.margin, dark: req.dark, light: req.light });
    const image = { body, contentType: req.format === 'svg' ? 'image/svg+xml' : 'image/png', etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    this.cache.set(key, image);
    return image;
  }

  /** A code with a caption or a center image: drawn by a page (the anonymous class's deadline and budgets). */
  private async compose(req: QrRequest, modules: QrModules, clientIp: string): Promise<Buffer> {
    if (!this.page) throw invalidInput('QR captions and center images are not available on this server');
    // fetched first: a refused image costs no page
    const center = req.centerImage ? await this.page.images.dataUrl(req.centerImage.url, 'centerImageUrl') : undefined;
    const png = await encodeQrPng(modules, { width: req.size, margin: req.margin, dark: req.dark, light: req.light });
    const side = png.readUInt32BE(16);
    const img = await this.page.renderer.render(composedQrRequest(req, png, side, center), renderOwner.address(clientKey(clientIp)), undefined, undefined, 'anonymous');
    return img.body;
  }
}
