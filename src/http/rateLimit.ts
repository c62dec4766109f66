// Per-account rate limits on authenticated routes (after apiKeyAuth): X-RateLimit-Limit,
// -Remaining and -Reset on every response, errors included; 429 rate_limit_exceeded with
// Retry-After when over. On generation routes (the default) the trial cap is checked first, so
// an exhausted trial always gets 429 trial_limit_reached. Also records each request's outcome
// for the usage analytics.
import type { Middleware } from 'koa';
import type { RateDecision } from '../chart/rateLimit.js';
import type { AuthContext } from '../services/accounts.js';
import type { UsageService } from '../services/usage.js';
import type { Logger } from '../log.js';

export interface RateLimitOptions {
  /** The route generates charts (counts against usage): check the trial cap first. Default true. */
  generation?: boolean;
}

export function rateLimit(deps: { usage: UsageService; log?: Logger }, opts: RateLimitOptions = {}): Middleware {
  const generation = opts.generation ?? true;
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthContext | undefined;
    if (!auth) throw new Error('rateLimit() must follow apiKeyAuth()');
    const setHeaders = (d: RateDecision) => {
      ctx.set('X-RateLimit-Limit', String(d.limit));
      ctx.set('X-RateLimit-Remaining', String(d.remaining));
      ctx.set('X-RateLimit-Reset', String(d.resetAt));
    };
    let ok = false;
    try {
      await deps.usage.gate(auth, setHeaders, generation);
      await next();
      ok = ctx.status < 400;
    } finally {
      // Analytics only: when it cannot be written (e.g. a full disk) the answer stands, above all
      // a 201 whose chart and count are already committed, and the request's own error is kept.
      await deps.usage.recordRequest(auth.account.id, ok).catch((err: unknown) => deps.log?.error({ err, requestId: ctx.state.requestId }, 'recording request analytics failed'));
    }
  };
}
