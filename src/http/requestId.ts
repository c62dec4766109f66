// Gives every request an id: ctx.state.requestId for log lines and X-Request-Id on every
// response, errors and "no route" included (the error mapper keeps headers already set).
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';

/** The request's id, first thing in the envelope (envelope.ts). */
export function assignRequestId(ctx: Context): void {
  const id = randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
}
