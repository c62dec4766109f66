// A small typed client of a chartshot server: render, short URLs and signed URLs, with the API's
// error codes as typed errors. Uses the global fetch; no dependency beyond Node itself.
import { createHmac } from 'node:crypto';
import { ERROR_CODES, type ErrorCode } from '../errorCodes.js';

/** The error codes a chartshot server answers with ({error, detail}): the server's own table. */
export type ChartshotErrorCode = ErrorCode;

export type ImageFormat = 'png' | 'svg' | 'pdf';

/** The body of POST /v1/chart and POST /v1/chart/create. */
export interface ChartRequest {
  /** A Chart.js config object, or its JSON text. */
  chart?: Record<string, unknown> | string;
  /** Alias of chart. */
  c?: Record<string, unknown> | string;
  width: number;
  height: number;
  format?: ImageFormat;
  backgroundColor?: string;
  /** Output pixels per CSS pixel, 1-4 (servers that support it). */
  devicePixelRatio?: number;
  /** IANA time zone the chart is drawn in, e.g. Europe/Berlin; default the server's TIMEZONE (UTC). */
  timezone?: string;
  /** BCP 47 locale it is formatted in, e.g. de-DE; default the server's LOCALE (en-US). */
  locale?: string;
}

export interface RenderResult {
  body: Buffer;
  contentType: string;
  format: ImageFormat;
  /** X-Chartshot-Renderer: `chartjs=<v>; chromium=<v>; fonts=<hash>; timezone=<TIMEZONE>; locale=<LOCALE>`, or null from an older server. */
  renderer: string | null;
  /** With render(req, { parts: true }): the chart's part boxes (title, subtitle, legend, chartArea,
   *  scales by id) in output pixels; absent from a server that does not measure them. */
  parts?: Record<string, { x: number; y: number; width: number; height: number }>;
}

/** X-Chartshot-Parts as boxes: anything but an object of {x, y, width, height} numbers is no answer. */
function partsOf(text: string | null): RenderResult['parts'] {
  if (!text) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: NonNullable<RenderResult['parts']> = {};
  for (const [name, b] of Object.entries(v as Record<string, unknown>)) {
    const box = b as Record<string, unknown>;
    if (typeof b !== 'object' || b === null || !['x', 'y', 'width', 'height'].every((k) => typeof box[k] === 'number' && Number.isFinite(box[k]))) return undefined;
    out[name] = { x: box.x as number, y: box.y as number, width: box.width as number, height: box.height as number };
  }
  return out;
}

export interface ShortChart {
  url: string;
  id: string;
}

export interface ChartshotOptions {
  /** The server, e.g. https://charts.example.com */
  baseUrl: string;
  /** Sent as X-Api-Key by render and create. */
  apiKey?: string;
  /** Needed by signUrl: the key's public id and signing secret. */
  keyId?: string;
  signingSecret?: string;
  /** Per request, ms (default 60000). */
  timeoutMs?: number;
}

/** An answer other than success: `code` is the server's error code (or `network_error`, `bad_response`). */
export class ChartshotError extends Error {
  constructor(
    readonly code: ChartshotErrorCode | 'network_error' | 'bad_response',
    /** HTTP status; 0 when no answer arrived. */
    readonly status: number,
    readonly detail?: string,
    /** Seconds, from Retry-After (429 and 503). */
    readonly retryAfter?: number,
  ) {
    super(detail ? `${code}: ${detail}` : code);
    this.name = 'ChartshotError';
  }
}

const CODES: ReadonlySet<string> = new Set<ChartshotErrorCode>(ERROR_CODES);

const MAX_SIGNED_LIFETIME_S = 366 * 86400;

async function errorOf(res: Response): Promise<ChartshotError> {
  const retry = Number(res.headers.get('retry-after'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON: a proxy's page, say */
  }
  const { error, detail } = (body ?? {}) as { error?: unknown; detail?: unknown };
  const code = typeof error === 'string' && CODES.has(error) ? (error as ChartshotErrorCode) : 'bad_response';
  const text = typeof detail === 'string' ? detail : code === 'bad_response' ? `HTTP ${res.status}` : undefined;
  return new ChartshotError(code, res.status, text, retryAfter);
}

export class Chartshot {
  private readonly base: string;

  constructor(private readonly opts: ChartshotOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  /** POST /v1/chart: the image; with `parts`, also its chart's part boxes (golden tests). */
  async render(req: ChartRequest, opts: { parts?: boolean } = {}): Promise<RenderResult> {
    const res = await this.post('/v1/chart', req, opts.parts ? { 'x-chartshot-parts': '1' } : {});
    const contentType = res.headers.get('content-type') ?? '';
    const format: ImageFormat = contentType.startsWith('image/svg') ? 'svg' : contentType.startsWith('application/pdf') ? 'pdf' : 'png';
    const parts = opts.parts ? partsOf(res.headers.get('x-chartshot-parts')) : undefined;
    return { body: Buffer.from(await res.arrayBuffer()), contentType, format, renderer: res.headers.get('x-chartshot-renderer'), ...(parts ? { parts } : {}) };
  }

  /** POST /v1/chart/create: a permanent short URL, served without credentials. */
  async create(req: ChartRequest): Promise<ShortChart> {
    const res = await this.post('/v1/chart/create', req);
    const body = (await res.json().catch(() => null)) as { url?: unknown; id?: unknown } | null;
    if (typeof body?.url !== 'string') throw new ChartshotError('bad_response', res.status, 'no url in the answer');
    const id = typeof body.id === 'string' ? body.id : body.url.slice(body.url.lastIndexOf('/') + 1);
    return { url: body.url, id };
  }

  /**
   * A GET /v1/chart URL usable without the API key until it expires: HMAC-SHA256 (hex) with the
   * signing secret over the query string before `&sig=`, which comes last.
   */
  signUrl(req: ChartRequest, expires: { inSeconds: number } | { at: Date }): string {
    const { keyId, signingSecret } = this.opts;
    if (!keyId || !signingSecret) throw new TypeError('signUrl needs keyId and signingSecret');
    const now = Math.floor(Date.now() / 1000);
    const exp = 'at' in expires ? Math.floor(expires.at.getTime() / 1000) : now + Math.floor(expires.inSeconds);
    if (!Number.isFinite(exp) || exp <= now || exp > now + MAX_SIGNED_LIFETIME_S) throw new RangeError('a signed URL expires between now and one year ahead');
    const q = new URLSearchParams();
    const chart = req.chart ?? req.c;
    if (chart === undefined) throw new TypeError('chart is required');
    q.set('chart', typeof chart === 'string' ? chart : JSON.stringify(chart));
    q.set('width', String(req.width));
    q.set('height', String(req.height));
    if (req.format) q.set('format', req.format);
    if (req.backgroundColor) q.set('backgroundColor', req.backgroundColor);
    if (req.devicePixelRatio !== undefined) q.set('devicePixelRatio', String(req.devicePixelRatio));
    if (req.timezone) q.set('timezone', req.timezone);
    if (req.locale) q.set('locale', req.locale);
    q.set('key_id', keyId);
    q.set('exp', String(exp));
    const raw = q.toString();
    return `${this.base}/v1/chart?${raw}&sig=${createHmac('sha256', signingSecret).update(raw).digest('hex')}`;
  }

  private async post(path: string, body: ChartRequest, extra: Record<string, string> = {}): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    let res: Response;
    try {
      res = await fetch(this.base + path, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000) });
    } catch (err) {
      throw new ChartshotError('network_error', 0, (err as Error).message);
    }
    if (!res.ok) throw await errorOf(res);
    return res;
  }
}
