// The router's non-answers become errors for the error mapper: no route for the path (404),
// or a method the path does not take (405, with Allow; the router says 501 for a method no
// route knows, a client's mistake all the same).
import type { Middleware } from 'koa';
import { AppError } from '../errors.js';

export function noRoute(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new AppError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}`);
    }
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
      const allow = ctx.response.get('Allow');
      throw new AppError(405, 'invalid_input', `method ${ctx.method} is not allowed here${allow ? `; allowed: ${allow}` : ''}`, allow ? { Allow: allow } : {});
    }
  };
}
