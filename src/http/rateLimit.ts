// Per-account rate limits on authenticated routes (after apiKeyAuth): X-RateLimit-Limit,
// -Remaining and -Reset on every response, errors included; 429 rate_limit_exceeded with
// Retry-After when over. On generation routes (the default) the trial cap is checked first, so
// an exhausted trial always gets 429 trial_limit_reached. The requests it sees are the ones
// requestAnalytics.ts counts. On routes that only render and answer the image, a render may
// start while the limit is still being decided (UsageService.decideWhileRendering): the route
// hands rateDecided(ctx) to the service, which counts and answers nothing before it settles.
import type { Context, Middleware } from 'koa';
import type { RateDecision } from '../chart/rateLimit.js';
import type { AuthContext } from '../services/accounts.js';
import type { UsageService } from '../services/usage.js';

export interface RateLimitOptions {
  /** The route generates charts (counts against usage): check the trial cap first. Default true. */
  generation?: boolean;
  /** The route passes rateDecided(ctx) to the render, which waits for it before counting or
   *  answering: its render may start while the limit is being decided. Default false. */
  decideWhileRendering?: boolean;
}

export function rateLimit(deps: { usage: Pick<UsageService, 'gate'> & Partial<Pick<UsageService, 'decideWhileRendering'>> }, opts: RateLimitOptions = {}): Middleware {
  const generation = opts.generation ?? true;
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthContext | undefined;
    if (!auth) throw new Error('rateLimit() must follow apiKeyAuth()');
    ctx.state.rateLimited = true;
    const setHeaders = (d: RateDecision) => {
      ctx.set('X-RateLimit-Limit', String(d.limit));
      ctx.set('X-RateLimit-Remaining', String(d.remaining));
      ctx.set('X-RateLimit-Reset', String(d.resetAt));
    };
    if (opts.decideWhileRendering && deps.usage.decideWhileRendering?.(auth)) {
      const decided = deps.usage.gate(auth, setHeaders, generation);
      decided.catch(() => {});
      ctx.state.rateDecided = decided;
      try {
        await next();
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

/** The rate decision a render must wait for before it counts or answers, when it was not made before the route ran. */
export function rateDecided(ctx: Context): Promise<void> | undefined {
  return ctx.state.rateDecided as Promise<void> | undefined;
}

/** True once the request reached rateLimit() (authenticated, on a rate-limited route), whatever the limits answered. */
export function isRateLimited(ctx: Context): boolean {
  return ctx.state.rateLimited === true;
}
