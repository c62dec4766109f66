// What a request's middleware leaves for the steps after it, declared once: Koa's DefaultState
// is merged with it, so every ctx.state in src/ is this type, and each reader gets what its
// writer set. Values a step hands to the next one go as parameters where Koa allows it (the
// pending rate decision: router.ts); these are the ones that must outlive a single call.
import type { Account } from '../store/types.js';
import type { AuthContext } from '../services/accounts.js';
import type { SignedIn } from '../services/dashboard/sessions.js';
import { unauthorized } from '../errors.js';

export interface State {
  /** requestId(): X-Request-Id and every log line of the request. */
  requestId?: string;
  /** timing(): how long everything inside it took, ms (access log, metrics). */
  durationMs?: number;
  /** apiKeyAuth() (or QuickChart's caller step): the key's caller. */
  auth?: AuthContext;
  /** apiKeyAuth(): the caller came with a signed URL instead of a key. */
  signed?: boolean;
  /** sessionAuth(): the session's account. */
  account?: Account;
  /** rateLimit(): the request reached the account's rate limit, whatever it answered (request analytics). */
  rateLimited?: boolean;
  /** dashboardSessionAuth(): the dashboard session the visitor's cookie names. */
  signedIn?: SignedIn;
  /** The dashboard page's CSP nonce. */
  nonce?: string;
  /** body.ts: the JSON text of the body's chart (or, without one, c) object exactly as sent; the
   *  route hands it to the service with the fields, so the page gets it without serialising again. */
  bodyConfigJson?: string;
}

declare module 'koa' {
  interface DefaultState extends State {}
}

/** The caller apiKeyAuth() authenticated, on a route behind it (auth: 'apiKey' or 'apiKeyOrSigned'). */
export function callerOf(ctx: { state: State }): AuthContext {
  if (!ctx.state.auth) throw unauthorized();
  return ctx.state.auth;
}
