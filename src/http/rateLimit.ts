// Per-account rate limits on authenticated routes (after apiKeyAuth): X-RateLimit-Limit,
// -Remaining and -Reset on every response, errors included; 429 rate_limit_exceeded with
// Retry-After when over. On generation routes (the default) the trial cap is checked first, so
// an exhausted trial always gets 429 trial_limit_reached. The requests it sees are the ones
// requestAnalytics.ts counts. On routes that only render and answer the image, a render may
// start while the limit is still being decided (UsageService.decideWhileRendering): the step
// passes the pending decision on to the rest of the route (router.ts hands it to the handler as a
// parameter), and the service counts and answers nothing before it settles.
import type { Context } from 'koa';
import type { RateDecision } from '../rules/rateLimit.js';
import type { AuthContext } from '../services/accounts.js';
import type { UsageService } from '../services/usage.js';

export interface RateLimitOptions {
  /** The route generates charts (counts against usage): check the trial cap first. Default true. */
  generation?: boolean;
  /** The route's render may start while the limit is being decided: the pending decision goes to
   *  the rest of the route, whose render waits for it before counting or answering. Default false. */
  decideWhileRendering?: boolean;
}

/**
 * A rate-limit step: decides the caller's limit around the rest of the route (`next`). `next` is
 * given the decision while it is still pending (the route may render meanwhile), else nothing.
 * A plain Koa middleware fits where it is called as one (no decision is then left pending).
 */
export type RateLimitStep = (ctx: Context, next: (pending?: Promise<void>) => Promise<void>) => Promise<void>;

export function rateLimit(deps: { usage: Pick<UsageService, 'gate'> & Partial<Pick<UsageService, 'decideWhileRendering'>> }, opts: RateLimitOptions = {}): RateLimitStep {
  const generation = opts.generation ?? true;
  return async (ctx, next) => {
    const auth: AuthContext | undefined = ctx.state.auth;
    if (!auth) throw new Error('rateLimit() must follow apiKeyAuth()');
    ctx.state.rateLimited = true;
    const setHeaders = (d: RateDecision) => {
      ctx.set('X-RateLimit-Limit', String(d.limit));
      ctx.set('X-RateLimit-Remaining', String(d.remaining));
      ctx.set('X-RateLimit-Reset', String(d.resetAt));
    };
    if (opts.decideWhileRendering && deps.usage.decideWhileRendering?.(auth)) {
      // decided once the loop's turn is over (setImmediate): by then the route has sent its
      // render to the page. With SQLite the limit's write and the count behind it are
      // synchronous and went before the render's CDP call; they now overlap its drawing
      // (docs/performance.md, small charts)
      const decided = new Promise<void>((resolve) => setImmediate(resolve)).then(() => deps.usage.gate(auth, setHeaders, generation));
      decided.catch(() => {});
      try {
        await next(decided);
      } finally {
        // over the limit is the answer, whatever else went wrong
        await decided;
      }
      return;
    }
    await deps.usage.gate(auth, setHeaders, generation);
    await next();
  };
}

/** True once the request reached rateLimit() (authenticated, on a rate-limited route), whatever the limits answered. */
export function isRateLimited(ctx: Context): boolean {
  return ctx.state.rateLimited === true;
}
