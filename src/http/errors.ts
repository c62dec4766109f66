// The one place errors become HTTP: SPEC's error object {error, detail}; unknown errors
// are 500 internal_error with the stack in the log only.
import type { Middleware } from 'koa';
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.js';
import { redactUrl, type Logger } from '../log.js';

export interface RequestObserver {
  requestDone(route: string, method: string, status: number, ms: number): void;
}

export function errorMapper(log: Logger, observer?: RequestObserver): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}`);
      }
      // The router's answers to a method a path does not take (405) or no route knows (501):
      // a client's mistake either way, answered with the error object and the Allow header.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        const allow = ctx.response.get('Allow');
        throw new AppError(405, 'invalid_input', `method ${ctx.method} is not allowed here${allow ? `; allowed: ${allow}` : ''}`, allow ? { Allow: allow } : {});
      }
    } catch (err) {
      const appErr = toAppError(err);
      if (appErr.status >= 500) {
        const storage = storageFailure(err);
        log.error({ requestId, err, url: redactUrl(ctx.url), method: ctx.method }, storage ? `request failed: ${storage}` : 'request failed');
      }
      ctx.status = appErr.status;
      for (const [k, v] of Object.entries(appErr.headers)) ctx.set(k, v);
      // Refused before its body was read (query cap, no route, auth...): close rather than let
      // Node drain a body of any size to keep the connection alive.
      if (!ctx.req.complete && (ctx.get('content-length') || ctx.get('transfer-encoding'))) ctx.set('Connection', 'close');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = appErr.detail ? { error: appErr.code, detail: appErr.detail } : { error: appErr.code };
    } finally {
      const ms = performance.now() - started;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      observer?.requestDone(String(route), ctx.method, ctx.status, ms);
      if (log.isLevelEnabled('info')) {
        log.info(
          { requestId, method: ctx.method, url: redactUrl(ctx.url), status: ctx.status, ms: Math.round(ms * 10) / 10, ip: ctx.ip },
          'request',
        );
      }
    }
  };
}

/** Names the cause when the store's disk failed (full, read-only, I/O), so the log line says it plainly. */
export function storageFailure(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return `the disk or database is full (${code})`;
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return `the database is read-only (${code})`;
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CORRUPT' || code === 'SQLITE_CANTOPEN') return `database storage error (${code})`;
  return null;
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; expose?: boolean; message?: string };
  // Koa's own client errors (e.g. malformed URL) carry status < 500 and expose = true.
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new AppError(400, 'invalid_input', e.message);
  }
  return new AppError(500, 'internal_error', 'internal error');
}
