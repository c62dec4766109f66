// Reports each request (route pattern, method, final status, duration) to the metrics.
import type { Context } from 'koa';
import { durationOf } from './timing.js';

export interface RequestObserver {
  requestDone(route: string, method: string, status: number, ms: number): void;
}

/** Reports the answered request (envelope.ts), with its final status and duration. */
export function reportRequest(observer: RequestObserver | undefined, ctx: Context): void {
  // the router's pattern (/v1/chart/:id), never the raw path: label sets stay few
  const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
  observer?.requestDone(String(route), ctx.method, ctx.status, durationOf(ctx));
}
