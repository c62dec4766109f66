// The router's non-answers become errors for the error mapper: no route for the path (404),
// or a method the path does not take (405, with Allow; the router says 501 for a method no
// route knows, a client's mistake all the same).
import type { Context } from 'koa';
import { AppError } from '../errors.js';
import { ERROR_STATUS } from '../errorCodes.js';

/** What a request no route takes is answered with (also a page route's fallback). */
export const noRouteError = (ctx: Pick<Context, 'method' | 'path'>): AppError => new AppError(ERROR_STATUS.not_found, 'not_found', `no route for ${ctx.method} ${ctx.path}`);

/** After the router (envelope.ts): its non-answer, thrown for the error mapper; nothing when a route answered. */
export function throwIfUnrouted(ctx: Context): void {
  if (ctx.body !== undefined) return;
  if (ctx.status === 404) {
    throw noRouteError(ctx);
  }
  if (ctx.status === 405 || ctx.status === 501) {
    const allow = ctx.response.get('Allow');
    throw new AppError(405, 'invalid_input', `method ${ctx.method} is not allowed here${allow ? `; allowed: ${allow}` : ''}`, allow ? { Allow: allow } : {});
  }
}
