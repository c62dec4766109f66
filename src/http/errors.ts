// The one place errors become HTTP. Each route declares its error format (route.ts
// ErrorFormat): the error object {error, detail} (json), or QuickChart's image and header
// (quickchartErrors.ts). Unknown errors are 500 internal_error with the stack in the log only; a
// store that cannot be reached is 503 service_unavailable with Retry-After (a transient outage,
// which clients and load balancers retry; why: docs/decisions/0040-store-outage-503.md).
import type { Context } from 'koa';
import { AppError, serviceUnavailable } from '../errors.js';
import { redactUrl, type Logger } from '../log.js';
import { describeStorageFailure, StorageError, storeUnreachable } from '../store/errors.js';
import type { ErrorFormat } from './route.js';
import { ERROR_STATUS } from '../errorCodes.js';

/** Writes one refusal as the answer, in one format. */
export type ErrorWriter = (ctx: Context, e: AppError) => Promise<void> | void;

export interface ErrorFormats {
  /** The format of the request's route (router.ts errorFormatOf); json for a request no route matched. */
  formatOf(ctx: Context): ErrorFormat;
  writers: Record<ErrorFormat, ErrorWriter>;
}

/** The 'json' format: the error object. */
export const jsonError: ErrorWriter = (ctx, e) => {
  ctx.status = e.status;
  for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = e.detail ? { error: e.code, detail: e.detail } : { error: e.code };
};

const JSON_ONLY: ErrorFormats = { formatOf: () => 'json', writers: { json: jsonError, quickchart: jsonError } };

/** Answers what a request threw (the envelope's catch, envelope.ts): logged when 5xx, then written in the route's format. */
export type ErrorAnswer = (ctx: Context, err: unknown) => Promise<void>;

export function errorMapper(log: Logger, formats: ErrorFormats = JSON_ONLY): ErrorAnswer {
  const logFailure = (ctx: Context, err: unknown) => {
    const storage = storageFailure(err);
    log.error({ requestId: ctx.state.requestId, err, url: redactUrl(ctx.url), method: ctx.method }, storage ? `request failed: ${storage}` : 'request failed');
  };
  return async (ctx, err) => {
    const appErr = toAppError(err);
    // a 503 to a client that already left (it stopped waiting for a page): nobody reads the
    // answer and nothing failed; a line without a stack, below error level (a client that
    // leaves on purpose must not fill the error log), the access log line stays as it is
    if (appErr.status === 503 && clientLeft(ctx)) log.info({ requestId: ctx.state.requestId, url: redactUrl(ctx.url), method: ctx.method, detail: appErr.detail }, 'request ended: the client went away');
    // the store's going away and coming back are logged once each (store/reachability.ts)
    else if (storeUnreachable(err)) log.debug({ requestId: ctx.state.requestId, url: redactUrl(ctx.url), method: ctx.method, code: err.code }, 'request refused: the store is unreachable');
    else if (appErr.status >= 500) logFailure(ctx, err);
    try {
      await formats.writers[formats.formatOf(ctx)](ctx, appErr);
    } catch (writeErr) {
      // the format could not be written (e.g. its error image): the error object, as any route's
      const e = toAppError(writeErr);
      if (e.status >= 500) logFailure(ctx, writeErr);
      jsonError(ctx, e);
    }
  };
}

/** The client's connection closed before the answer was sent. */
function clientLeft(ctx: Context): boolean {
  return !ctx.res.writableEnded && (ctx.res.destroyed || ctx.req.socket?.destroyed === true);
}

/** Names the cause when the store reports a storage failure (full, read-only, I/O), so the log line says it plainly. */
function storageFailure(err: unknown): string | null {
  return err instanceof StorageError ? describeStorageFailure(err) : null;
}

/** Seconds a request refused because the store is unreachable is told to wait. */
export const STORE_RETRY_AFTER_S = 2;

/** Any thrown value as the AppError it is answered with (unknown errors: 500 internal_error). */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  // nothing of the connection (address, driver message) reaches the client
  if (storeUnreachable(err)) return serviceUnavailable(STORE_RETRY_AFTER_S, 'the database cannot be reached at the moment; retry after Retry-After seconds');
  const e = err as { status?: number; expose?: boolean; message?: string };
  // Koa's own client errors (e.g. malformed URL) carry status < 500 and expose = true.
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new AppError(ERROR_STATUS.invalid_input, 'invalid_input', e.message);
  }
  return new AppError(ERROR_STATUS.internal_error, 'internal_error', 'internal error');
}
