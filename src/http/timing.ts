// How long a request took, error mapping included: the envelope (envelope.ts) measures it around
// everything but the log line and the metrics, which then report the same duration.
import type { Context } from 'koa';

/** Notes the request's duration since `startedMs` (performance.now()) as ctx.state.durationMs. */
export function noteDuration(ctx: Context, startedMs: number): void {
  ctx.state.durationMs = performance.now() - startedMs;
}

/** The duration noteDuration() noted; 0 when it did not run. */
export function durationOf(ctx: Context): number {
  return ctx.state.durationMs ?? 0;
}
