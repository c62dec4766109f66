// Errors on QuickChart's routes, its way: the status, the message in X-quickchart-error, and an
// image of the message in the requested format as the body, so an <img> shows what went wrong.
import type { Context } from 'koa';
import { clientKey } from '../rules/clientAddress.js';
import { requestedFormat } from '../chart/quickchart.js';
import type { ErrorImageService } from '../services/errorImages.js';
import { renderOwner } from '../services/render.js';
import type { ErrorWriter } from './errors.js';
import { setImageHeaders, type RendererHeader } from './imageHeaders.js';

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
  // read here, as this may answer a refusal of the query parser (the URL's
  // length is bounded by the server's header limit): only the format matters
  const params = new URLSearchParams(ctx.querystring);
  const query = { f: params.get('f') ?? undefined, format: params.get('format') ?? undefined };
  return { ...query, ...(body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}) };
}

/**
 * The 'quickchart' error format (route.ts ErrorFormat), written by the one error mapper
 * (errors.ts) for the routes that declare it. fingerprint: X-Chartshot-Renderer of the images.
 */
export function quickChartErrorWriter(d: { errorImages: ErrorImageService; fingerprint?: RendererHeader }): ErrorWriter {
  return async (ctx, e) => {
    const message = e.detail ?? e.code;
    const auth = ctx.state.auth;
    const owner = auth ? renderOwner.account(auth.account.id) : renderOwner.address(clientKey(ctx.ip));
    // over a limit or the pool is busy: drawing the message would take what was refused
    const draw = e.status !== 429 && e.status !== 503;
    const img = await d.errorImages.image(message, requestedFormat(fieldsOf(ctx)), owner, draw);
    ctx.status = e.status;
    for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
    ctx.set(ERROR_HEADER, headerMessage(message));
    ctx.set('Cache-Control', 'no-store');
    ctx.type = img.contentType;
    setImageHeaders(ctx, img.contentType, d.fingerprint?.header());
    ctx.body = img.body;
  };
}
