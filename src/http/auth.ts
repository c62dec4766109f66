// Who is calling: an API key (X-Api-Key or api_key), a signed URL (key_id, exp, sig), or a
// session token (Authorization: Bearer). Sets ctx.state.auth / ctx.state.account.
import type { Middleware } from 'koa';
import type { AccountService } from '../services/accounts.js';
import { verifySignedQuery } from '../services/signing.js';
import type { Clock } from '../clock.js';
import { unauthorized } from '../errors.js';

/** The usual habit of other APIs, answered with where this one takes its key. */
const BEARER_HINT =
  'send the API key in the X-Api-Key header (or the api_key query parameter); Authorization: Bearer is only for session tokens on /usage and /billing';

/** A route that accepts signed URLs gives the clock their expiry is checked against. */
export type KeyAuthOptions = { allowSigned?: false } | { allowSigned: true; clock: Clock };

export function apiKeyAuth(accounts: AccountService, opts: KeyAuthOptions = {}): Middleware {
  return async (ctx, next) => {
    if (opts.allowSigned && (ctx.method === 'GET' || ctx.method === 'HEAD') && /(^|&)sig=/.test(ctx.querystring)) {
      const keyId = typeof ctx.query.key_id === 'string' ? ctx.query.key_id : '';
      const resolved = await verifySignedQuery(ctx.querystring, opts.clock.now(), async () => accounts.authenticateKeyId(keyId));
      ctx.state.auth = resolved;
      ctx.state.signed = true;
    } else {
      const header = ctx.get('x-api-key');
      const query = typeof ctx.query.api_key === 'string' ? ctx.query.api_key : undefined;
      if (!header && !query && /^\s*Bearer\s/i.test(ctx.get('authorization'))) throw unauthorized(BEARER_HINT);
      ctx.state.auth = await accounts.authenticateKey(header || query);
    }
    await next();
  };
}

export function sessionAuth(accounts: AccountService): Middleware {
  return async (ctx, next) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    ctx.state.account = await accounts.authenticateSession(m?.[1]);
    await next();
  };
}
