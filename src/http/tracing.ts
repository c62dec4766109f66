// The HTTP side of tracing: auth and rate-limit guards as spans of their own, and the matched
// route on the request's span. Installed only while tracing is on (app.ts): off, they cost nothing.
import type { Context, Middleware } from 'koa';
import { tracer } from '../tracing.js';
import type { Guards } from './router.js';
import type { RateLimitStep } from './rateLimit.js';

const step = (name: string, mw: Middleware): Middleware => (ctx, next) => tracer().step(name, (n) => mw(ctx, n) as Promise<void>, next as () => Promise<void>);

/** A rate-limit step in a span; the decision it leaves pending goes on to the rest of the route. */
const rateStep = (name: string, limit: RateLimitStep): RateLimitStep => (ctx, next) => {
  let pending: Promise<void> | undefined;
  return tracer().step(
    name,
    (n) =>
      limit(ctx, (p) => {
        pending = p;
        return n();
      }),
    () => next(pending),
  );
};

/** Each guard in a span: `auth apiKey`, `rate limit render`... */
export function tracedGuards(g: Guards): Guards {
  const wrap = <K extends string, T>(prefix: string, r: Record<K, T>, one: (name: string, t: T) => T) =>
    Object.fromEntries(Object.entries<T>(r).map(([k, t]) => [k, one(`${prefix} ${k}`, t)])) as Record<K, T>;
  return { ...g, auth: wrap('auth', g.auth, step), rateLimit: wrap('rate limit', g.rateLimit, rateStep) };
}

/** After the router (envelope.ts, while tracing is on): the route template (`/v1/chart/:id`), never the raw path, on the request's span. */
export function traceRouteOf(ctx: Context): void {
  const route = (ctx as { _matchedRoute?: string })._matchedRoute;
  if (route) tracer().setRequest({ 'http.route': route });
}
