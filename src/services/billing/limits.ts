// An account's monthly allowance and rate limits: its plan's, or an enterprise account's custom ones.
import { PLANS } from '../../rules/plans.js';
import type { RateLimits } from '../../rules/rateLimit.js';
import type { BillingRecord } from '../../store/metering.js';
import type { Account } from '../../store/types.js';

/** Charts per period; null = unlimited. */
export function limitFor(account: Account, rec: BillingRecord | null): number | null {
  if (account.plan === 'enterprise') return rec?.customCharts ?? null;
  return PLANS[account.plan].chartsPerPeriod;
}

export function rateLimitsFor(account: Account, rec: BillingRecord | null): RateLimits {
  const base = PLANS[account.plan].rate;
  if (account.plan !== 'enterprise' || !rec) return base;
  return {
    perMinute: rec.customPerMinute ?? base.perMinute,
    perHour: rec.customPerHour ?? base.perHour,
    burst: rec.customBurst ?? base.burst,
  };
}
