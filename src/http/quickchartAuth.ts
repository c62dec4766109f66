// QuickChart's callers as the router's auth guards (RouteAuth 'quickchartKey' and
// 'quickchartKeyOptional'): a key in X-Api-Key, key or api_key (query or JSON body)
// authenticates and meets the account's rate limit; without one, anonymous use when the route
// allows it (QUICKCHART_ANONYMOUS on /chart), else 401.
import type { Middleware } from 'koa';
import { checkRequestTarget } from '../chart/open.js';
import { invalidInput, unauthorized } from '../errors.js';
import type { AccountService } from '../services/accounts.js';
import type { UsageService } from '../services/usage.js';
import { setJsonBody, type BodyReader } from './body.js';
import { keyInJsonText } from './bodyKey.js';
import { rateLimit } from './rateLimit.js';

export interface QuickChartAuthDeps {
  accounts: Pick<AccountService, 'authenticateKey'>;
  usage: Pick<UsageService, 'gate'>;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

const KEY_REQUIRED = 'an API key is required: the key or api_key parameter, or the X-Api-Key header';

/**
 * The body is read in the order the rest of the API keeps (route, auth, rate limit, body) when
 * the key is outside it. QuickChart's clients put it in the body (quickchart-js last, after the
 * chart), so then the body is read first, at most MAX_BODY_BYTES, and parsed only when it is
 * small (ANONYMOUS_BODY_BYTES) or its text carries a key that authenticates: a large body
 * without a valid key is refused (401, or 400 when keyless use is allowed) without parsing it.
 */
export function quickChartAuth(d: QuickChartAuthDeps, bodies: BodyReader, anonymousAllowed: boolean): Middleware {
  const limit = rateLimit(d);
  return async (ctx, next) => {
    const outside = str(ctx.get('x-api-key')) ?? str(ctx.query.key) ?? str(ctx.query.api_key);
    const post = ctx.method === 'POST';
    if (outside !== undefined) {
      ctx.state.auth = await d.accounts.authenticateKey(outside);
      return limit(ctx, async () => {
        if (post) await bodies.readJson(ctx, bodies.limit('authenticated'));
        await next();
      });
    }
    let sniffed: string | undefined;
    if (post) {
      const bytes = await bodies.read(ctx, bodies.limit('authenticated'));
      const small = bodies.limit('anonymous');
      if (bytes.length > small) {
        sniffed = keyInJsonText(bytes);
        if (sniffed === undefined) {
          if (!anonymousAllowed) throw unauthorized(KEY_REQUIRED);
          throw invalidInput(`body larger than ${small} bytes without an API key`);
        }
        // not a key: 401 before the body is parsed
        ctx.state.auth = await d.accounts.authenticateKey(sniffed);
      }
      setJsonBody(ctx, bytes);
    }
    const body = (ctx.request as { body?: Record<string, unknown> }).body;
    const key = body && typeof body === 'object' ? (str(body.key) ?? str(body.api_key)) : undefined;
    if (key !== undefined) {
      if (key !== sniffed) ctx.state.auth = await d.accounts.authenticateKey(key);
      return limit(ctx, next);
    }
    if (sniffed !== undefined) throw unauthorized("the API key must be the body's own key or api_key field");
    if (!anonymousAllowed) throw unauthorized(KEY_REQUIRED);
    // the open endpoint's URL limit (its config limit is checked with the config)
    checkRequestTarget(ctx.url);
    await next();
  };
}
