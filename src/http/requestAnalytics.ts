// Counts each rate-limited request in its account's analytics (total requests, success rate),
// with the outcome the client got: ok when the final status is below 400.
import type { Context } from 'koa';
import type { UsageService } from '../services/usage.js';
import type { Logger } from '../log.js';
import { logStoreFailure } from '../store/reachability.js';
import { isRateLimited } from './rateLimit.js';

/** Once the route answered or threw (`ok`: it answered below 400), before errors are mapped (envelope.ts). */
export async function recordAnalytics(usage: Pick<UsageService, 'recordRequest'>, log: Logger, ctx: Context, ok: boolean): Promise<void> {
  // the requests that passed authentication and met the rate limits, as those count them
  if (!isRateLimited(ctx)) return;
  const auth = ctx.state.auth!; // rateLimit() runs after authentication only
  // Analytics only: when it cannot be written (e.g. a full disk) the answer stands, above
  // all a 201 whose chart and count are already committed, and the request's own error is kept.
  await usage.recordRequest(auth.account.id, ok).catch((err: unknown) => logStoreFailure(log, err, { requestId: ctx.state.requestId }, 'recording request analytics failed'));
}
