// The one place errors become HTTP: the error object {error, detail}; unknown errors are
// 500 internal_error with the stack in the log only.
import type { Middleware } from 'koa';
import { AppError } from '../errors.js';
import { redactUrl, type Logger } from '../log.js';
import { describeStorageFailure, StorageError } from '../store/errors.js';

export function errorMapper(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const appErr = toAppError(err);
      if (appErr.status >= 500) {
        const storage = storageFailure(err);
        log.error({ requestId: ctx.state.requestId, err, url: redactUrl(ctx.url), method: ctx.method }, storage ? `request failed: ${storage}` : 'request failed');
      }
      ctx.status = appErr.status;
      for (const [k, v] of Object.entries(appErr.headers)) ctx.set(k, v);
      // Refused before its body was read (query cap, no route, auth...): close rather than let
      // Node drain a body of any size to keep the connection alive.
      if (!ctx.req.complete && (ctx.get('content-length') || ctx.get('transfer-encoding'))) ctx.set('Connection', 'close');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = appErr.detail ? { error: appErr.code, detail: appErr.detail } : { error: appErr.code };
    }
  };
}

/** Names the cause when the store reports a storage failure (full, read-only, I/O), so the log line says it plainly. */
function storageFailure(err: unknown): string | null {
  return err instanceof StorageError ? describeStorageFailure(err) : null;
}

/** Any thrown value as the AppError it is answered with (unknown errors: 500 internal_error). */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; expose?: boolean; message?: string };
  // Koa's own client errors (e.g. malformed URL) carry status < 500 and expose = true.
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new AppError(400, 'invalid_input', e.message);
  }
  return new AppError(500, 'internal_error', 'internal error');
}
