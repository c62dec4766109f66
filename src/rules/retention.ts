// Data retention, pure: how long an account's analytics are kept (its plan's window, or an
// enterprise account's own) and where the cut-offs fall at a given moment.
import { PLANS, type PlanName } from './plans.js';
import { addMonthsUtc, DAY_MS } from './pricing.js';

/** Invoices, payments and dunning history are kept this long, whatever the plan. */
export const BILLING_RETENTION_YEARS = 7;

/** Longest analytics window an account may set, and the most days analytics may be asked for. */
export const MAX_RETENTION_DAYS = 36_500;

/** Days of analytics kept; null = kept for good (enterprise unless configured). */
export function analyticsRetentionDays(plan: PlanName, customDays: number | null): number | null {
  if (plan === 'enterprise') return customDays;
  return PLANS[plan].analyticsRetentionDays;
}

/**
 * What survives a purge at `now` with a window of `days`: the last `days` UTC days, today
 * included (the days GET /usage/analytics?days=N reads). `day`: the first day number kept;
 * `at`: the first moment kept (the start of that day), for rows stamped in ms.
 */
export function analyticsCutoff(now: number, days: number): { day: number; at: number } {
  const day = Math.floor(now / DAY_MS) - days + 1;
  return { day, at: day * DAY_MS };
}

/** Billing records stamped before this moment are older than 7 calendar years at `now`. */
export function billingCutoff(now: number): number {
  return addMonthsUtc(now, -12 * BILLING_RETENTION_YEARS);
}
