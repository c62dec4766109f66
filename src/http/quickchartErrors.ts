// Errors on QuickChart's routes, its way: the status, the message in X-quickchart-error, and an
// image of the message in the requested format as the body, so an <img> shows what went wrong.
import type { Context, Middleware } from 'koa';
import { clientKey } from '../chart/clientAddress.js';
import { requestedFormat } from '../chart/quickchart.js';
import { redactUrl, type Logger } from '../log.js';
import type { AuthContext } from '../services/accounts.js';
import type { ErrorImageService } from '../services/errorImages.js';
import { renderOwner } from '../services/render.js';
import { toAppError } from './errors.js';
import { setImageHeaders } from './imageHeaders.js';

export const ERROR_HEADER = 'X-quickchart-error';
const MAX_HEADER_CHARS = 300;

/** Header-safe: printable ASCII only (no CR/LF), bounded. */
export function headerMessage(message: string): string {
  return message
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, MAX_HEADER_CHARS);
}

function fieldsOf(ctx: Context): Record<string, unknown> {
  let body: unknown;
  try {
    body = (ctx.request as { body?: unknown }).body;
  } catch {
    // a malformed body throws when read: it is the error being answered
  }
  // read here, as this may run before the query parser did or after it refused (the URL's
  // length is bounded by the server's header limit): only the format matters
  const params = new URLSearchParams(ctx.querystring);
  const query = { f: params.get('f') ?? undefined, format: params.get('format') ?? undefined };
  return { ...query, ...(body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}) };
}

/** QuickChart's paths: their errors are images even when refused before routing (query, body). */
export const QUICKCHART_PATHS = /^\/(?:chart(?:\/.*)?|qr)$/;

/** quickChartErrors() for requests to QuickChart's paths; other paths pass untouched. */
export function quickChartPathErrors(d: { errorImages: ErrorImageService; log: Logger }): Middleware {
  const inner = quickChartErrors(d);
  return (ctx, next) => (QUICKCHART_PATHS.test(ctx.path) ? inner(ctx, next) : next());
}

export function quickChartErrors(d: { errorImages: ErrorImageService; log: Logger }): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = toAppError(err);
      if (e.status >= 500) d.log.error({ requestId: ctx.state.requestId, err, url: redactUrl(ctx.url), method: ctx.method }, 'request failed');
      const message = e.detail ?? e.code;
      const auth = ctx.state.auth as AuthContext | undefined;
      const owner = auth ? renderOwner.account(auth.account.id) : renderOwner.address(clientKey(ctx.ip));
      // over a limit or the pool is busy: drawing the message would take what was refused
      const draw = e.status !== 429 && e.status !== 503;
      const img = await d.errorImages.image(message, requestedFormat(fieldsOf(ctx)), owner, draw);
      ctx.status = e.status;
      for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
      ctx.set(ERROR_HEADER, headerMessage(message));
      ctx.set('Cache-Control', 'no-store');
      if (!ctx.req.complete && (ctx.get('content-length') || ctx.get('transfer-encoding'))) ctx.set('Connection', 'close');
      ctx.type = img.contentType;
      setImageHeaders(ctx, img.contentType);
      ctx.body = img.body;
    }
  };
}
