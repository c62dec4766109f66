// The HTTP side of tracing: auth and rate-limit guards as spans of their own, and the matched
// route on the request's span. No-ops (one call each) while tracing is off.
import type { Middleware } from 'koa';
import { tracer } from '../tracing.js';
import type { Guards } from './router.js';

const step = (name: string, mw: Middleware): Middleware => (ctx, next) => tracer().step(name, (n) => mw(ctx, n) as Promise<void>, next as () => Promise<void>);

/** Each guard in a span: `auth apiKey`, `rate limit render`... */
export function tracedGuards(g: Guards): Guards {
  const wrap = <K extends string>(prefix: string, r: Record<K, Middleware>) =>
    Object.fromEntries(Object.entries<Middleware>(r).map(([k, mw]) => [k, step(`${prefix} ${k}`, mw)])) as Record<K, Middleware>;
  return { ...g, auth: wrap('auth', g.auth), rateLimit: wrap('rate limit', g.rateLimit) };
}

/** After the router: the route template (`/v1/chart/:id`), never the raw path, on the request's span. */
export function traceRoute(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      if (route) tracer().setRequest({ 'http.route': route });
    }
  };
}
