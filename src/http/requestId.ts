// Gives every request an id: ctx.state.requestId for log lines and X-Request-Id on every
// response, errors and "no route" included (the error mapper keeps headers already set).
import type { Middleware } from 'koa';
import { randomUUID } from 'node:crypto';

export function requestId(): Middleware {
  return async (ctx, next) => {
    const id = randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
