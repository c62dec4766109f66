// The render use case: coalesce identical requests, render through the pool, encode.
import type { Renderer } from '../render/renderer.js';
import { RenderError } from '../render/renderer.js';
import { PdfError, pngToPdf, type PdfConverter } from '../render/pdf.js';
import { configJsonOf, renderDigest, withConfigJson, withZoneLocale, type RenderRequest } from '../chart/request.js';
import { AppError, invalidConfig, invalidInput, renderFailed, serviceUnavailable } from '../errors.js';
import { PAGE_BUDGETS, type CallerClass, type RenderDeadlines } from '../render/budgets.js';
import type { Format } from '../rules/plans.js';
import { Flights } from './flights.js';
import { mayRunCallerCode } from '../chart/callerCode.js';
import { dateAdapterHint } from '../chart/configHints.js';
import type { PartBox } from '../render/renderer.js';
import { LOCALE_RULE, TIMEZONE_RULE, type ZoneLocale } from '../chart/zoneLocale.js';

export interface RenderedImage {
  body: Buffer;
  contentType: string;
  format: Format;
  /** Time the page spent on it, ms (0 when served from a shared in-flight render). */
  renderMs: number;
  /** True when this call joined a render already in flight. */
  coalesced: boolean;
  /** renderDigest of the request (or the caller's own digest): callers that key caches or records by it need not hash again. */
  digest: string;
  /** X-Chartshot-Renderer of the Chart.js version that drew it (absent when the pool cannot tell). */
  renderer?: string;
  /** The chart's part boxes, when the render asked for them (renderWithParts). */
  parts?: Record<string, PartBox>;
  /** False when the page's shared state after the render was not the loaded page's (or caller code
   *  not proven pure ran): the page was reset, and the image is not one to keep for others
   *  (the open endpoint caches only clean renders). */
  pageClean: boolean;
}

export const CONTENT_TYPES: Record<Format, string> = {
  png: 'image/png',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/** The Content-Type of a request's image: its format's, or the page encoder's (QuickChart's webp and jpg). */
export function contentTypeOf(req: Pick<RenderRequest, 'format' | 'raster'>): string {
  return req.raster ? `image/${req.raster.type}` : CONTENT_TYPES[req.format];
}

export interface RenderObserver {
  rendered(format: Format, outcome: 'ok' | 'config' | 'timeout' | 'crash' | 'busy', ms: number): void;
}

/** Owner names for the pool's fair queue: one line per account (all its keys share it), one
 *  per client address (an IPv4 address or IPv6 /64, as the open endpoint counts them). */
export const renderOwner = {
  account: (accountId: string): string => `account:${accountId}`,
  address: (clientKey: string): string => `address:${clientKey}`,
};

export interface RenderServiceOptions {
  /** MAX_IMAGE_BYTES: the page refuses a larger image before handing it back. */
  maxImageBytes?: number;
  /** Render deadline of each caller class, ms; absent: every class gets the pool's RENDER_TIMEOUT_MS. */
  deadlines?: RenderDeadlines;
  /** Where PDFs are made (worker threads); absent: on the calling thread (the CLI). */
  pdf?: PdfConverter;
}

/**
 * How a render was stopped, read from the error it ended with (the AppError keeps the page's
 * RenderError as its cause): 'budget' = an in-page budget refused it; 'timeout' = it ran past
 * its deadline and was interrupted; null = anything else. For page-time accounting per caller.
 */
export function renderStoppedBy(err: unknown): 'budget' | 'timeout' | null {
  const e = err instanceof RenderError ? err : err instanceof Error && err.cause instanceof RenderError ? err.cause : null;
  return e && (e.kind === 'budget' || e.kind === 'timeout') ? e.kind : null;
}

/** An SVG may carry at most this many bytes per pixel of its size, plus SVG_BASE_BYTES. */
export const SVG_BYTES_PER_PIXEL = 4;
export const SVG_BASE_BYTES = 8 * 1024 * 1024;

/**
 * The most bytes a render may hand back: MAX_IMAGE_BYTES, and for SVG also a bound that grows
 * with the image's area. A PNG cannot exceed its raw pixels by much, but an SVG is text that
 * caller code can make as long as the render timeout allows. Legitimate charts stay well
 * inside it: a 100,000-point line at 1200x600 is 80 KB of SVG, a 20,000-point scatter at
 * 400x300 2.8 MB. Undefined max: the page's own ceiling.
 */
export function imageLimit(format: Format, width: number, height: number, max: number | undefined): number | undefined {
  if (format !== 'svg') return max;
  const area = SVG_BASE_BYTES + SVG_BYTES_PER_PIXEL * width * height;
  return max === undefined ? area : Math.min(max, area);
}

export class RenderService {
  private readonly inFlight = new Flights<Omit<RenderedImage, 'coalesced' | 'digest'>>();

  constructor(
    private readonly pool: Renderer,
    private readonly observer?: RenderObserver,
    private readonly opts: RenderServiceOptions = {},
  ) {}

  /** TIMEZONE and LOCALE: what a request that names no zone or locale is drawn in. */
  get zone(): ZoneLocale {
    return this.pool.zone;
  }

  /** Callers waiting for renders in flight (the first of each included). */
  callersInFlight(): number {
    return this.inFlight.callers();
  }

  /**
   * Renders a request; identical requests in flight at once share one render. `owner` names
   * the caller for the pool's fair admission queue (an account id, a client address): under
   * overload each owner waits in its own line, served in turn. A request that joins a render
   * in flight costs no page and is not queued. `digest` keys that sharing: renderDigest(req)
   * unless the caller has computed it already (the open endpoint keys its cache by it too).
   * `signal` aborts when the client goes away: a render every caller of which has gone leaves
   * the admission queue. `caller` picks the render's deadline and in-page budgets
   * (render/budgets.ts); renders of different classes never share a flight. A caller that
   * computes the digest itself gives the request withConfigJson first, so the config is
   * serialised once. `onReleased`: told the page time the render cost after its answer, when it
   * left its page to be reset (PageRequest.onReleased; the render that started the flight).
   */
  async render(given: RenderRequest, owner?: string, digestGiven?: string, signal?: AbortSignal, caller: CallerClass = 'paid', onReleased?: (pageMs: number) => void): Promise<RenderedImage> {
    // the digest and the page share the config's one JSON text; the zone and locale it is drawn
    // in are part of both
    const req = withZoneLocale(withConfigJson(given), this.pool.zone);
    const digest = digestGiven ?? renderDigest(req);
    const flight = caller === 'paid' ? digest : `${caller}:${digest}`;
    const { value, joined } = await this.inFlight.join(flight, (abort) => this.renderNow(req, owner, abort, caller, false, onReleased), signal);
    const renderer = this.rendererOf(req);
    return { ...value, coalesced: joined, digest, ...(renderer !== undefined ? { renderer } : {}) };
  }

  /**
   * A render for golden-image tests (chartshot test, chartshot/testing): the image with its
   * chart's part boxes (title, legend, chartArea, scales by id) as the page measured them. Never
   * shares a flight with other renders: only these ask the page for the boxes.
   */
  async renderWithParts(given: RenderRequest, owner?: string, signal?: AbortSignal, caller: CallerClass = 'paid', onReleased?: (pageMs: number) => void): Promise<RenderedImage & { parts: Record<string, PartBox> }> {
    const req = withConfigJson(given);
    const value = await this.renderNow(req, owner, signal ?? new AbortController().signal, caller, true, onReleased);
    const renderer = this.rendererOf(req);
    return { ...value, parts: value.parts ?? {}, coalesced: false, digest: renderDigest(req), ...(renderer !== undefined ? { renderer } : {}) };
  }

  /** The PDF of a drawn PNG, made off the event loop when a converter was given; its failures
   *  as the API's errors. */
  private async toPdf(png: Buffer, width: number, height: number): Promise<Buffer> {
    try {
      return this.opts.pdf ? await this.opts.pdf.convert(png, width, height) : await pngToPdf(png, width, height);
    } catch (err) {
      if (!(err instanceof PdfError)) throw err;
      if (err.kind === 'busy' || err.kind === 'closed') throw serviceUnavailable(1, err.message);
      if (err.kind === 'input') throw invalidInput(`the image cannot be made a PDF: ${err.message}`);
      throw renderFailed(err.message);
    }
  }

  private rendererOf(req: RenderRequest): string | undefined {
    try {
      return this.pool.fingerprint().header(req.chartjs ?? 4);
    } catch {
      return undefined;
    }
  }

  private async renderNow(req: RenderRequest, owner: string | undefined, signal: AbortSignal, caller: CallerClass, parts = false, onReleased?: (pageMs: number) => void): Promise<Omit<RenderedImage, 'coalesced' | 'digest'> & { parts?: Record<string, PartBox> }> {
    const started = performance.now();
    const deadlineMs = this.opts.deadlines?.[caller];
    const maxImageBytes = imageLimit(req.format, req.width, req.height, this.opts.maxImageBytes);
    try {
      const res = await this.pool.render(
        {
          config: req.config,
          // the JSON text the digest was computed from: the config is not serialised again
          configJson: configJsonOf(req),
          width: req.width,
          height: req.height,
          format: req.format === 'svg' ? 'svg' : 'png',
          backgroundColor: req.backgroundColor,
          allowFunctions: req.allowFunctions,
          watermark: req.watermark,
          ...(req.chartjs !== undefined ? { chartjs: req.chartjs } : {}),
          ...(req.devicePixelRatio !== undefined ? { devicePixelRatio: req.devicePixelRatio } : {}),
          ...(req.configJs !== undefined ? { configJs: req.configJs } : {}),
          ...(req.textPatches !== undefined && req.textPatches.length > 0 ? { textPatches: req.textPatches } : {}),
          ...(req.raster !== undefined && req.format === 'png' ? { raster: req.raster } : {}),
          ...(req.images !== undefined ? { images: req.images } : {}),
          ...(req.timezone !== undefined ? { timezone: req.timezone } : {}),
          ...(req.locale !== undefined ? { locale: req.locale } : {}),
          maxImageBytes,
          budget: PAGE_BUDGETS[caller],
          ...(deadlineMs !== undefined ? { deadlineMs } : {}),
          ...(parts ? { parts: true } : {}),
          ...(onReleased !== undefined ? { onReleased } : {}),
        },
        owner,
        signal,
      );
      let body: Buffer = req.format === 'svg' ? Buffer.from(res.data, 'utf8') : Buffer.from(res.data, 'base64');
      if (req.format === 'pdf') body = await this.toPdf(body, req.width, req.height);
      const ms = performance.now() - started;
      this.observer?.rendered(req.format, 'ok', ms);
      return { body, contentType: req.format === 'png' ? contentTypeOf(req) : CONTENT_TYPES[req.format], format: req.format, renderMs: ms, pageClean: res.needsReset === false, ...(res.parts ? { parts: res.parts } : {}) };
    } catch (err) {
      const ms = performance.now() - started;
      if (err instanceof RenderError) {
        // an oversized image, a memory budget or another budget is the caller's config, as far as the metrics go
        this.observer?.rendered(req.format, err.kind === 'too_large' || err.kind === 'memory' || err.kind === 'budget' || err.kind === 'zone' ? 'config' : err.kind, ms);
        const app =
          err.kind === 'too_large'
            ? invalidInput(tooLargeDetail(err, req, maxImageBytes, this.opts.maxImageBytes))
            : // "render exceeded its memory budget of N MB", or Chromium's cgroup limit
              err.kind === 'memory'
              ? invalidInput(err.message)
              : toAppError(err, req, caller);
        // the page's own account stays readable (renderStoppedBy)
        Object.defineProperty(app, 'cause', { value: err, configurable: true });
        throw app;
      }
      this.observer?.rendered(req.format, 'crash', ms);
      throw err;
    }
  }
}

/**
 * The size the page measured (a field of its error) against the limit this service set: names
 * the limit that applied. Without a limit of ours the page's own ceiling applied: its words.
 */
function tooLargeDetail(err: RenderError, req: RenderRequest, limit: number | undefined, max: number | undefined): string {
  if (err.imageBytes === undefined || limit === undefined) return err.message;
  if (limit === max) return `the image would be ${err.imageBytes} bytes; at most MAX_IMAGE_BYTES = ${max}`;
  return `the image would be ${err.imageBytes} bytes; at most ${limit} for a ${req.width}x${req.height} SVG (${SVG_BYTES_PER_PIXEL} bytes a pixel + ${SVG_BASE_BYTES / 1048576} MiB)`;
}

function toAppError(err: RenderError, req: RenderRequest, caller: CallerClass): AppError {
  switch (err.kind) {
    case 'config':
      // Chart.js refused the config (unknown type, bad scale...): a client mistake.
      return invalidInput(`chart config could not be rendered: ${err.message}${dateAdapterHint(err.message)}`);
    case 'budget':
      // the page's message names the budget ("budget: scale "x" would build more than N ticks")
      return caller === 'anonymous' ? invalidConfig(err.message) : invalidInput(`chart config could not be rendered: ${err.message}`);
    case 'zone':
      // a name Node's ICU knows and Chromium's does not (the message is the field)
      return err.message === 'locale'
        ? invalidConfig(`locale ${req.locale ?? ''} is unknown to this renderer: use ${LOCALE_RULE}`)
        : invalidConfig(`timezone ${req.timezone ?? ''} is unknown to this renderer: use ${TIMEZONE_RULE}`);
    case 'busy':
      // Retry-After: the pool's estimate of when a page would be free (at least 1 s)
      return serviceUnavailable((err.retryAfterMs ?? 1000) / 1000, err.message);
    case 'timeout':
      // an anonymous render gets no more page time than its class's deadline: its config asked
      // for more than that budget (never a 5xx: the service is fine, the chart is too costly)
      if (caller === 'anonymous') return invalidConfig(`budget: the chart took longer than the ${err.message.replace(/^render timed out after /, '')} an anonymous render may take`);
      // only caller code can keep a page busy that long; without any, the chart itself was too big
      return renderFailed(`${err.message}: ${req.configJs !== undefined || mayRunCallerCode(req) ? 'a callback did not return' : 'the chart took too long to draw'}`);
    default:
      // a crash under caller code is most often the code itself (V8's heap limit, the page closed
      // or navigated away): "retry" would send it to crash another page. Not blamed on the caller
      // all the same: a renderer killed from outside looks the same from here.
      return renderFailed(
        req.configJs !== undefined || mayRunCallerCode(req)
          ? "the page crashed while running the chart's functions (out of memory, or they closed or left the page?); the same chart will crash it again"
          : 'the renderer failed; please retry',
      );
  }
}
