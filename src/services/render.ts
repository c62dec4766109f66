// The render use case: coalesce identical requests, render through the pool, encode.
import type { PagePool } from '../render/pool.js';
import { RenderError } from '../render/pool.js';
import { pngToPdf } from '../render/pdf.js';
import { requestDigest, type RenderRequest } from '../chart/request.js';
import { AppError, invalidInput, renderFailed, serviceUnavailable } from '../errors.js';
import type { Format } from '../chart/plans.js';

export interface RenderedImage {
  body: Buffer;
  contentType: string;
  format: Format;
  /** Time the page spent on it, ms (0 when served from a shared in-flight render). */
  renderMs: number;
  /** True when this call joined a render already in flight. */
  coalesced: boolean;
}

export const CONTENT_TYPES: Record<Format, string> = {
  png: 'image/png',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

export interface RenderObserver {
  rendered(format: Format, outcome: 'ok' | 'config' | 'timeout' | 'crash' | 'busy', ms: number): void;
}

export class RenderService {
  private readonly inFlight = new Map<string, Promise<Omit<RenderedImage, 'coalesced'>>>();

  constructor(
    private readonly pool: PagePool,
    private readonly observer?: RenderObserver,
  ) {}

  /** Renders a request; identical requests in flight at once share one render. */
  async render(req: RenderRequest): Promise<RenderedImage> {
    const key = requestDigest(req);
    const shared = this.inFlight.get(key);
    if (shared) return { ...(await shared), coalesced: true };
    const p = this.renderNow(req);
    this.inFlight.set(key, p);
    try {
      return { ...(await p), coalesced: false };
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async renderNow(req: RenderRequest): Promise<Omit<RenderedImage, 'coalesced'>> {
    const started = performance.now();
    try {
      const res = await this.pool.render({
        config: req.config,
        width: req.width,
        height: req.height,
        format: req.format === 'svg' ? 'svg' : 'png',
        backgroundColor: req.backgroundColor,
        allowFunctions: req.allowFunctions,
        watermark: req.watermark,
      });
      let body: Buffer = req.format === 'svg' ? Buffer.from(res.data, 'utf8') : Buffer.from(res.data, 'base64');
      if (req.format === 'pdf') body = await pngToPdf(body, req.width, req.height);
      const ms = performance.now() - started;
      this.observer?.rendered(req.format, 'ok', ms);
      return { body, contentType: CONTENT_TYPES[req.format], format: req.format, renderMs: ms };
    } catch (err) {
      const ms = performance.now() - started;
      if (err instanceof RenderError) {
        this.observer?.rendered(req.format, err.kind, ms);
        throw toAppError(err);
      }
      this.observer?.rendered(req.format, 'crash', ms);
      throw err;
    }
  }
}

function toAppError(err: RenderError): AppError {
  switch (err.kind) {
    case 'config':
      // Chart.js refused the config (unknown type, bad scale...): a client mistake.
      return invalidInput(`chart config could not be rendered: ${err.message}`);
    case 'busy':
      return serviceUnavailable(1, err.message);
    case 'timeout':
      return renderFailed(err.message);
    default:
      return renderFailed('the renderer failed; please retry');
  }
}
