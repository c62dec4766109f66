// The route table made a router: each route's chain reads (page ->) auth -> rate limit -> body ->
// precheck -> input -> handler, built from its descriptor. A body is read only once the path
// matched and the caller passed authentication and the rate limit, with the limit of its
// caller's class: a request the router does not match is answered 404 without reading it. A
// request whose method and path are exactly those of a route without parameters, which no other
// route also takes, goes straight to that route's chain; the rest goes through @koa/router's scan.
import Router, { type RouterContext, type RouterMiddleware } from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { authReadsBody, isAsset, type ErrorFormat, type RouteAuth, type RouteDescriptor, type RouteEntry, type RouteRateLimit, type StaticAsset } from './route.js';
import { inputReader } from './validate.js';
import type { BodyReader } from './body.js';
import type { RateLimitStep } from './rateLimit.js';
import type { State } from './state.js';

export interface Guards {
  auth: Record<Exclude<RouteAuth, 'none'>, Middleware>;
  rateLimit: Record<RouteRateLimit, RateLimitStep>;
  /** First on every page route, before its auth (the page's nonce and headers); none when absent. */
  page?: Middleware;
  /** Reads a route's JSON body after its auth and rate limit, with the process's body limits. */
  body: Pick<BodyReader, 'json'>;
}

/** The route table as @koa/router holds it, and its middleware: exact paths first, then the scan. */
export interface BuiltRouter {
  router: Router<State>;
  routes: Middleware;
}

export function buildRouter(entries: readonly RouteEntry[], guards: Guards): BuiltRouter {
  const router = new Router<State>();
  const chains: Array<{ method: string; path: string; chain: RouterMiddleware<State>[] }> = [];
  for (const e of entries) {
    if (isAsset(e)) {
      const { file } = e;
      const send: RouterMiddleware<State> = (ctx) => sendFile(ctx, file);
      router.get(e.path, send);
      chains.push({ method: 'GET', path: e.path, chain: [send] });
      continue;
    }
    const chain: RouterMiddleware<State>[] = [];
    if (e.page && guards.page) chain.push(guards.page);
    if (e.auth !== 'none') chain.push(guards.auth[e.auth]);
    // a route whose caller may be anyone reads at most ANONYMOUS_BODY_BYTES; one behind a key, MAX_BODY_BYTES
    const body = e.input?.in === 'body' && !authReadsBody(e.auth) ? guards.body.json(e.auth === 'none' ? 'anonymous' : 'authenticated') : undefined;
    const { precheck } = e;
    const read = e.input ? inputReader(e.input) : undefined;
    // body -> precheck -> input -> handler, the rate decision still pending (if any) in hand: a
    // parameter of the handler, never a value parked on the context
    const rest = (ctx: RouterContext<State>, pending: Promise<void> | undefined): Promise<void> => {
      // The descriptor's handler was typed by its own schema (route()); the reader checked it.
      const handle = async () => e.handler(ctx, read?.(ctx) as never, pending);
      const checked = precheck ? () => precheck(ctx, handle) : handle;
      return body ? body(ctx, checked) : checked();
    };
    const limit = e.rateLimit ? guards.rateLimit[e.rateLimit] : undefined;
    chain.push(limit ? (ctx) => limit(ctx, (pending) => rest(ctx, pending)) : (ctx) => rest(ctx, undefined));
    // pages keep the exact match they always had; the API ignores case and a trailing slash
    router.register(e.path, e.method === 'ANY' ? router.methods : [e.method], chain, e.page ? { sensitive: true, strict: true } : {});
    if (e.method !== 'ANY') chains.push({ method: e.method, path: e.path, chain });
  }
  return { router, routes: exactFirst(router, chains) };
}

/** A path without parameters, wildcards or optional parts: one request path matches it as written. */
const isExactPath = (path: string): boolean => !/[:*?()]/.test(path);

/**
 * The router's middleware with a table of exact paths in front: a request whose method and path
 * are exactly those of a route without parameters runs that route's chain, with what the router
 * would leave on the context (the route's pattern, no params). A path is in the table only when
 * the scan itself would run that one route and nothing else for it (no earlier pattern and no
 * second route takes the same method and path), so both ways answer alike; anything else (case
 * or trailing-slash variants, HEAD, patterns, no route: 404/405) goes through the scan. The scan
 * tests every route's regular expression in turn, which cost about as much as the rest of the
 * routing together.
 */
function exactFirst(router: Router<State>, chains: ReadonlyArray<{ method: string; path: string; chain: RouterMiddleware<State>[] }>): Middleware {
  const exact = new Map<string, Middleware>();
  for (const { method, path, chain } of chains) {
    if (!isExactPath(path)) continue;
    const taken = router.match(path, method).pathAndMethod;
    if (taken.length !== 1 || taken[0]!.path !== path) continue;
    const run = sequence(chain as Middleware[]);
    exact.set(`${method} ${path}`, (ctx, next) => {
      const c = ctx as RouterContext<State> & { _matchedRoute?: string };
      c._matchedRoute = path;
      c.params = {};
      return run(ctx, next);
    });
  }
  const routes = router.routes() as Middleware;
  const allowed = router.allowedMethods() as Middleware;
  const scan: Middleware = (ctx, next) => routes(ctx, () => allowed(ctx, next));
  const dispatch: Middleware = (ctx, next) => (exact.get(`${ctx.method} ${ctx.path}`) ?? scan)(ctx, next);
  // as @koa/router's own middleware names its router (what reads the route table from an app finds it)
  return Object.assign(dispatch, { router });
}

/** Middlewares run one inside the next, as the router runs a route's chain. */
function sequence(chain: readonly Middleware[]): Middleware {
  return chain.reduceRight<Middleware>((inner, mw) => (ctx, next: Next) => mw(ctx, () => inner(ctx, next)), (_ctx, next) => next());
}

/**
 * The error format of the route a request is for (its path and method), for the one error
 * mapper: refusals before routing (the query parser) and inside the route's chain answer in
 * the route's format; a request no route takes (404, 405) answers with the error object.
 */
export function errorFormatOf(router: Router, entries: readonly RouteEntry[]): (ctx: Context) => ErrorFormat {
  const formats = new Map<string, ErrorFormat>();
  for (const e of entries) if (!isAsset(e) && e.errorFormat) formats.set(routeKey(e), e.errorFormat);
  // only routes of another format need the lookup: without any, every request answers JSON
  if (formats.size === 0) return () => 'json';
  return (ctx) => {
    const layer = router.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length > 0);
    if (!layer) return 'json';
    for (const m of layer.methods) {
      const f = formats.get(`${m} ${layer.path}`);
      if (f) return f;
    }
    return 'json';
  };
}

const routeKey = (r: Pick<RouteDescriptor, 'method' | 'path'>) => `${r.method} ${r.path}`;

export function sendFile(ctx: Context, file: StaticAsset['file']): void {
  for (const [k, v] of Object.entries(file.headers)) ctx.set(k, v);
  ctx.type = file.type;
  ctx.body = file.body;
}
