// Plan and cycle changes. Upgrades take effect at once (limits, and a proration line for the
// remaining days); downgrades lower the limits at once but the lower fee starts with the next
// period; a cycle change starts with the next period.
import type { PlanName } from '../../rules/plans.js';
import { isUpgrade, planFeePence, prorationPence, type BillingCycle } from '../../rules/pricing.js';
import { invalidInput } from '../../errors.js';
import { gbp } from '../invoiceHtml.js';
import { isoDay, planLabel } from './format.js';
import { closeDuePeriods } from './periods.js';
import { billedAccount, billingRecord, type BillingContext } from './records.js';

export interface PlanChange {
  plan: PlanName;
  effective: 'now' | 'next_period';
  proration_pence: number;
}

export async function changePlan(b: BillingContext, accountId: string, plan: PlanName, cycle?: BillingCycle): Promise<PlanChange> {
  let account = await billedAccount(b, accountId);
  if (account.status === 'terminated') throw invalidInput('account is terminated');
  if (plan === 'trial' || account.plan === 'trial') throw invalidInput('trial accounts cannot change plan; create a paid account');
  await closeDuePeriods(b, accountId);
  account = await billedAccount(b, accountId);
  const rec = await billingRecord(b, account);
  const now = b.clock.now();
  if (cycle && cycle !== rec.cycle) {
    await b.store.billing.update(accountId, { pendingCycle: cycle });
    await b.store.billing.addEvent(accountId, now, 'cycle_change_scheduled', `${rec.cycle} -> ${cycle} from ${isoDay(rec.periodEnd)}`);
  } else if (cycle && rec.pendingCycle) {
    await b.store.billing.update(accountId, { pendingCycle: null });
  }
  if (plan === account.plan) return { plan, effective: 'now', proration_pence: 0 };
  // New API limits apply at once either way; only the fee differs.
  await b.store.accounts.update(accountId, { plan });
  if (!isUpgrade(account.plan, plan)) {
    await b.store.billing.addEvent(accountId, now, 'downgrade', `${account.plan} -> ${plan}; fee from ${isoDay(rec.periodEnd)}`);
    return { plan, effective: 'next_period', proration_pence: 0 };
  }
  const diff = planFeePence(plan, rec.cycle, rec.customPricePence) - planFeePence(rec.billedPlan, rec.cycle, rec.customPricePence);
  let pence = 0;
  if (diff > 0) {
    const p = prorationPence(diff, rec.periodStart, rec.periodEnd, now);
    pence = p.pence;
    await b.store.billing.addLine(accountId, rec.periodStart, {
      kind: 'proration',
      description: `Upgrade from ${planLabel(rec.billedPlan)} to ${planLabel(plan)} on ${isoDay(now)}: ${p.remainingDays} of ${p.periodDays} days at ${gbp(diff)}`,
      amountPence: pence,
    }, now);
    await b.store.billing.update(accountId, { billedPlan: plan });
  }
  await b.store.billing.addEvent(accountId, now, 'upgrade', `${account.plan} -> ${plan}; proration ${pence}`);
  return { plan, effective: 'now', proration_pence: pence };
}
