// Measures how long the rest of the chain took, error mapping included, as ctx.state.durationMs
// for the access log and the request metrics outside it (both then report the same duration).
import type { Context, Middleware } from 'koa';

export function timing(): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.state.durationMs = performance.now() - started;
    }
  };
}

/** The duration timing() measured; 0 when it did not run (nothing inside it was reached). */
export function durationOf(ctx: Context): number {
  return ctx.state.durationMs ?? 0;
}
