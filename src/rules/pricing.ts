// Billing arithmetic, pure: period dates in UTC calendar months, plan fees, overage, proration,
// and which period a moment falls in. Amounts are whole pence.
import { PLANS, type PlanName } from './plans.js';

export type BillingCycle = 'monthly' | 'annual';

export const DAY_MS = 86_400_000;
/** Unlimited quotas (enterprise without a custom allowance) are reported as this integer. */
export const UNLIMITED = 2_147_483_647;

const PLAN_RANK: Record<PlanName, number> = { trial: 0, starter: 1, growth: 2, enterprise: 3 };

export function isUpgrade(from: PlanName, to: PlanName): boolean {
  return PLAN_RANK[to] > PLAN_RANK[from];
}

/** Adds calendar months in UTC, clamping the day (31 Jan + 1 month = 28/29 Feb). */
export function addMonthsUtc(ms: number, months: number): number {
  const d = new Date(ms);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime();
}

export function periodEndFrom(start: number, cycle: BillingCycle): number {
  return addMonthsUtc(start, cycle === 'annual' ? 12 : 1);
}

/** An open period as stored: its dates and the cycle of the periods after it. */
export interface OpenPeriod {
  start: number;
  end: number;
  nextCycle: BillingCycle;
  /** The account ends with this period (cancelled at period end): no period follows it. */
  last: boolean;
}

/**
 * The period `at` falls in when every period ended by then has been closed: each one starts where
 * the last ended (the chain closing walks, so day clamping matches). A last period is followed
 * by one more and no further, as closing it stops the account's periods.
 */
export function periodAt(open: OpenPeriod, at: number): { start: number; end: number } {
  let { start, end } = open;
  for (let guard = 0; end <= at && guard < 1000; guard++) {
    start = end;
    end = periodEndFrom(start, open.nextCycle);
    if (open.last) break;
  }
  return { start, end };
}

/** Plan fee for one period, pence: annual = 10 monthly fees (2 months free). */
export function planFeePence(plan: PlanName, cycle: BillingCycle, customMonthlyPence: number | null = null): number {
  const monthly = plan === 'enterprise' ? (customMonthlyPence ?? 0) : (PLANS[plan].monthlyPricePence ?? 0);
  return cycle === 'annual' ? monthly * 10 : monthly;
}

/** Overage: per started 1,000 charts beyond the allowance. */
export function overagePence(used: number, limit: number | null, per1000Pence: number | null): { over: number; units: number; pence: number } {
  if (limit === null || per1000Pence === null || used <= limit) return { over: Math.max(0, used - (limit ?? used)), units: 0, pence: 0 };
  const over = used - limit;
  const units = Math.ceil(over / 1000);
  return { over, units, pence: units * per1000Pence };
}

/** Proration of a fee difference for the remaining (started) days of a period. */
export function prorationPence(diffPence: number, periodStart: number, periodEnd: number, at: number): { pence: number; remainingDays: number; periodDays: number } {
  const periodDays = Math.max(1, Math.round((periodEnd - periodStart) / DAY_MS));
  const remainingDays = Math.min(periodDays, Math.max(0, Math.ceil((periodEnd - at) / DAY_MS)));
  return { pence: Math.round((diffPence * remainingDays) / periodDays), remainingDays, periodDays };
}

/** Enterprise volume discount tiers by charts per month: each tier starts at its lower bound (inclusive). */
export const VOLUME_TIERS: readonly { readonly from: number; readonly percent: number; readonly label: string }[] = [
  { from: 500_000, percent: 10, label: '500K-1M' },
  { from: 1_000_000, percent: 20, label: '1M-5M' },
  { from: 5_000_000, percent: 30, label: '5M-10M' },
];
/** "Above 10M" is strictly above: 10,000,000 itself is still in the 5M-10M tier. */
export const VOLUME_CUSTOM_ABOVE = 10_000_000;

export interface VolumeDiscount {
  /** Tier name as shown on the invoice ("1M-5M", "above 10M"). */
  label: string;
  percent: number;
  /** Negative (a discount), whole pence. */
  pence: number;
}

/**
 * The discount of a period's whole charge by the tier its monthly charts fall in (not marginal).
 * Above 10M the account's custom percent applies; without one, the 5M-10M rate continues, so a
 * higher volume never costs more. null when no tier applies or nothing is charged.
 */
export function volumeDiscount(monthlyCharts: number, chargePence: number, customPercent: number | null): VolumeDiscount | null {
  let tier: { percent: number; label: string } | null = null;
  for (const t of VOLUME_TIERS) if (monthlyCharts >= t.from) tier = t;
  if (monthlyCharts > VOLUME_CUSTOM_ABOVE) tier = { percent: customPercent ?? tier!.percent, label: 'above 10M' };
  if (!tier || tier.percent <= 0 || chargePence <= 0) return null;
  return { label: tier.label, percent: tier.percent, pence: 0 - Math.round((chargePence * tier.percent) / 100) };
}

/** Charts per month of a period's usage: an annual period's count is spread over its 12 months. */
export function monthlyCharts(used: number, cycle: BillingCycle): number {
  return cycle === 'annual' ? Math.floor(used / 12) : used;
}
