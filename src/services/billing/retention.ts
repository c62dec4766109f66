// Data retention, run by the scheduler: analytics older than each account's window (its plan's
// now, so a plan change moves the window from that moment) and billing records older than seven
// years are deleted in bounded batches, yielding between batches so other work interleaves.
import { PLANS, type PlanName } from '../../rules/plans.js';
import { analyticsCutoff, analyticsRetentionDays, billingCutoff } from '../../rules/retention.js';
import type { BillingContext } from './records.js';

/** Rows deleted per statement: small enough that no batch holds the database for long. */
export const RETENTION_BATCH = 500;

export interface RetentionPass {
  /** Analytics rows deleted (daily usage, per-chart metrics, closed periods' counters and thresholds). */
  analytics: number;
  /** Billing rows deleted (invoices, billing events, invoice lines). */
  billing: number;
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `step` batch after batch until a batch comes back short; returns the total deleted. */
async function drain(step: (limit: number) => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step(batch);
    total += n;
    if (n < batch) return total;
    await nextTick();
  }
}

/** One purge of everything past its retention at the clock's now; a second run at the same moment deletes nothing. */
export async function purgeRetention(b: BillingContext, batch = RETENTION_BATCH): Promise<RetentionPass> {
  const now = b.clock.now();
  const r = b.store.retention;
  let analytics = 0;
  for (const plan of Object.keys(PLANS) as PlanName[]) {
    const days = analyticsRetentionDays(plan, null);
    if (days === null) continue; // enterprise: per account below, kept for good unless set
    analytics += await drain((n) => r.purgeAnalytics({ plan }, analyticsCutoff(now, days), n), batch);
  }
  for (const { accountId, days } of await r.customRetention()) {
    analytics += await drain((n) => r.purgeAnalytics({ accountId }, analyticsCutoff(now, days), n), batch);
  }
  const billing = await drain((n) => r.purgeBilling(billingCutoff(now), n), batch);
  return { analytics, billing };
}
