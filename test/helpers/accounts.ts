// Accounts whose plan limits cannot decide a test: load tests must measure the pool and the
// browser, not how fast this machine is relative to a per-minute rate limit.
import type { Credentials, TestServer } from './server.js';

/** Far above anything a test can send, and still finite (the limits stay numbers). */
const HIGH = { perMinute: 1_000_000, perHour: 100_000_000, burst: 1_000_000 } as const;

/**
 * An enterprise account with its rate limits raised through the same service call the CLI's
 * `billing set-limits` makes: a load test on it can never be answered 429 rate_limit_exceeded.
 */
export async function unlimitedAccount(s: TestServer): Promise<Credentials> {
  const creds = await s.account('enterprise');
  await s.deps.billing.setCustomLimits(creds.account_id, { ...HIGH });
  return creds;
}
