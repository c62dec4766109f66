// Billing periods: which period a generation made now counts in (a read, never a write), and
// closing ended periods into invoices (the scheduler's job, and a step before plan changes).
//
// An account is billed in arrears: a closed period's invoice carries the fee of the plan the
// period started on, the proration lines of upgrades made during it, and its overage. Only
// active accounts accrue periods.
import { PLANS } from '../../rules/plans.js';
import { DAY_MS, monthlyCharts, overagePence, periodAt, periodEndFrom, planFeePence, volumeDiscount } from '../../rules/pricing.js';
import { invalidInput } from '../../errors.js';
import type { BillingRecord, Invoice, InvoiceLine } from '../../store/metering.js';
import type { Account } from '../../store/types.js';
import { TRIAL_DAYS } from '../accounts.js';
import { newId } from '../credentials.js';
import { gbp } from '../invoiceHtml.js';
import { email, invoicePdfUrl, notices, notify } from './emails.js';
import { isoDay, planLabel } from './format.js';
import { limitFor } from './limits.js';
import { billedAccount, billingRecord, firstRecord, type BillingContext } from './records.js';

/** Cancelled accounts stay read-only (and restorable) this long after their last period. */
export const CANCELLED_READ_ONLY_DAYS = 30;

export interface Period {
  start: number;
  end: number;
  /** Allowance of the period; null = unlimited. */
  limit: number | null;
  trial: boolean;
}

/** What usage counting needs of billing: the period now, read without side effects. */
export interface PeriodReader {
  /** `read`: the account's billing record as the caller already read it (once per request), instead of a store read. */
  currentPeriod(account: Account, read?: () => Promise<BillingRecord | null>): Promise<Period>;
}

/**
 * The usage period a generation made now belongs to, without writing anything. Trial: the key's
 * whole life (start 0). Others: the billing period containing now, as it will be once the
 * scheduler has closed the periods that ended (so a request between a period's end and the next
 * scheduler run already counts in the new period).
 */
export async function currentPeriod(b: BillingContext, account: Account, read?: () => Promise<BillingRecord | null>): Promise<Period> {
  if (account.plan === 'trial') {
    return { start: 0, end: account.createdAt + TRIAL_DAYS * DAY_MS, limit: PLANS.trial.chartsPerPeriod, trial: true };
  }
  const rec = (await (read ? read() : b.store.billing.get(account.id))) ?? firstRecord(account);
  const open = { start: rec.periodStart, end: rec.periodEnd, nextCycle: rec.pendingCycle ?? rec.cycle, last: rec.cancelAtPeriodEnd };
  const { start, end } = account.status === 'active' ? periodAt(open, b.clock.now()) : open;
  return { start, end, limit: limitFor(account, rec), trial: false };
}

/** Closes every period of an active account that has ended by now; returns the invoices issued. */
export async function closeDuePeriods(b: BillingContext, accountId: string): Promise<Invoice[]> {
  const issued: Invoice[] = [];
  for (let guard = 0; guard < 1000; guard++) {
    const account = await billedAccount(b, accountId);
    if (account.status !== 'active' || account.plan === 'trial') break;
    const rec = await billingRecord(b, account);
    if (rec.periodEnd > b.clock.now()) break;
    const inv = await closeOne(b, account, rec, rec.periodEnd);
    if (inv) issued.push(inv);
  }
  return issued;
}

/** Ends the current period now (operator command) and issues its invoice. */
export async function closePeriodNow(b: BillingContext, accountId: string): Promise<Invoice | null> {
  const account = await billedAccount(b, accountId);
  if (account.plan === 'trial') throw invalidInput('trial accounts have no billing periods');
  if (account.status !== 'active') throw invalidInput(`account is ${account.status}: no open period`);
  await closeDuePeriods(b, accountId);
  // closing the due periods may have ended the account (cancelled at period end): read it again
  const now = await billedAccount(b, accountId);
  if (now.status !== 'active') return null;
  const rec = await billingRecord(b, now);
  const at = b.clock.now();
  // a period is at least a millisecond long: closing one that began at this very moment ends it
  // a millisecond later, so its successor never starts where an invoiced period started
  if (rec.periodStart >= at + 1) throw invalidInput('the current period began just now: there is nothing to close yet');
  return closeOne(b, now, rec, Math.max(at, rec.periodStart + 1));
}

/** The lines the period of `rec` would be invoiced with now: plan fee, prorations, overage, volume discount. */
export async function invoiceLines(b: BillingContext, account: Account, rec: BillingRecord): Promise<InvoiceLine[]> {
  const lines: InvoiceLine[] = [];
  const fee = planFeePence(rec.periodPlan, rec.cycle, rec.customPricePence);
  lines.push({
    kind: 'plan',
    description: `${planLabel(rec.periodPlan)} plan, ${rec.cycle} (${isoDay(rec.periodStart)} to ${isoDay(rec.periodEnd)})`,
    amountPence: fee,
  });
  lines.push(...(await b.store.billing.lines(account.id, rec.periodStart)));
  const used = (await b.store.usage.get(account.id, rec.periodStart)).used;
  const limit = limitFor(account, rec);
  const per1000 = PLANS[account.plan].overagePer1000Pence;
  const o = overagePence(used, limit, per1000);
  if (o.pence > 0) {
    lines.push({
      kind: 'overage',
      description: `Overage: ${o.over.toLocaleString('en-GB')} charts over ${limit!.toLocaleString('en-GB')} (${o.units} x 1,000 at ${gbp(per1000!)})`,
      amountPence: o.pence,
    });
  }
  if (account.plan === 'enterprise') {
    const discount = volumeDiscountLine(lines, monthlyCharts(used, rec.cycle), rec.customDiscountPercent);
    if (discount) lines.push(discount);
  }
  return lines;
}

/** An enterprise period's volume discount: a percentage of everything charged so far, by its tier. */
function volumeDiscountLine(lines: InvoiceLine[], charts: number, customPercent: number | null): InvoiceLine | null {
  const charged = lines.reduce((s, l) => s + Math.max(0, l.amountPence), 0);
  const d = volumeDiscount(charts, charged, customPercent);
  if (!d) return null;
  return {
    kind: 'discount',
    description: `Volume discount, ${d.label} tier (${charts.toLocaleString('en-GB')} charts a month): ${d.percent}% of ${gbp(charged)}`,
    amountPence: d.pence,
  };
}

/** Issues the invoice of the period of `rec`, ended at endAt, and opens the next; null when another closer won. */
async function closeOne(b: BillingContext, account: Account, rec: BillingRecord, endAt: number): Promise<Invoice | null> {
  const lines = await invoiceLines(b, account, { ...rec, periodEnd: endAt });
  const total = lines.reduce((s, l) => s + l.amountPence, 0);
  const inv: Invoice = {
    id: newId('inv_'),
    accountId: account.id,
    issuedAt: endAt,
    periodStart: rec.periodStart,
    periodEnd: endAt,
    plan: rec.periodPlan,
    cycle: rec.cycle,
    lines,
    totalPence: total,
    status: total > 0 ? 'open' : 'paid',
    paidAt: total > 0 ? null : endAt,
  };
  const cancelling = rec.cancelAtPeriodEnd;
  const cycle = rec.pendingCycle ?? rec.cycle;
  const readOnlyUntil = endAt + CANCELLED_READ_ONLY_DAYS * DAY_MS;
  const nextPeriod = { periodStart: endAt, periodEnd: periodEndFrom(endAt, cycle), cycle, pendingCycle: null };
  const next: Partial<BillingRecord> = cancelling
    ? { ...nextPeriod, cancelAtPeriodEnd: false, readOnlyUntil }
    : { ...nextPeriod, periodPlan: account.plan, billedPlan: account.plan };
  if (!(await b.store.billing.closePeriod(account.id, rec.periodStart, inv, next))) return null;
  const mail = account.email && total > 0 ? [email(account, notices.invoiceIssued(inv, invoicePdfUrl(b, inv.id)))] : [];
  await b.store.billing.addEventWithNotices(account.id, endAt, 'invoice_issued', `${inv.id} ${total}`, mail);
  if (cancelling) {
    await b.store.accounts.update(account.id, { status: 'cancelled' });
    await notify(b, account, endAt, 'cancelled', notices.cancelled(endAt, readOnlyUntil));
  }
  return inv;
}
