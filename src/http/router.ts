// The route table made a router: each route's chain reads auth -> rate limit -> body ->
// precheck -> input -> handler, built from its descriptor. A body is read only once the path
// matched and the caller passed authentication and the rate limit, with the limit of its
// caller's class: a request the router does not match is answered 404 without reading it.
import Router, { type RouterMiddleware } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { isAsset, type RouteAuth, type RouteEntry, type RouteRateLimit, type StaticAsset } from './route.js';
import { inputReader } from './validate.js';
import { jsonBody } from './body.js';

export interface Guards {
  auth: Record<Exclude<RouteAuth, 'none'>, Middleware>;
  rateLimit: Record<RouteRateLimit, Middleware>;
}

export function buildRouter(entries: readonly RouteEntry[], guards: Guards): Router {
  const router = new Router();
  for (const e of entries) {
    if (isAsset(e)) {
      const { file } = e;
      router.get(e.path, (ctx) => sendFile(ctx, file));
      continue;
    }
    const chain: RouterMiddleware[] = [];
    if (e.auth !== 'none') chain.push(guards.auth[e.auth]);
    if (e.rateLimit) chain.push(guards.rateLimit[e.rateLimit]);
    // a route whose caller may be anyone reads at most ANONYMOUS_BODY_BYTES; one behind a key, MAX_BODY_BYTES
    if (e.input?.in === 'body' && e.body !== 'precheck') chain.push(jsonBody(e.auth === 'none' ? 'anonymous' : 'authenticated'));
    if (e.precheck) chain.push(e.precheck);
    const read = e.input ? inputReader(e.input) : undefined;
    // The descriptor's handler was typed by its own schema (route()); the reader checked it.
    chain.push((ctx) => e.handler(ctx, read?.(ctx) as never));
    router.register(e.path, [e.method], chain);
  }
  return router;
}

export function sendFile(ctx: Context, file: StaticAsset['file']): void {
  for (const [k, v] of Object.entries(file.headers)) ctx.set(k, v);
  ctx.type = file.type;
  ctx.body = file.body;
}
