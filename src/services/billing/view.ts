// What the account endpoints answer: the billing summary and the invoice list, shaped for JSON.
import type { PlanName } from '../../rules/plans.js';
import { UNLIMITED, type BillingCycle } from '../../rules/pricing.js';
import { notFound } from '../../errors.js';
import type { Invoice } from '../../store/metering.js';
import type { Account } from '../../store/types.js';
import { invoicePdfUrl } from './emails.js';
import { limitFor } from './limits.js';
import { closeDuePeriods, currentPeriod, invoiceLines } from './periods.js';
import { billingRecord, storedRecord, type BillingContext } from './records.js';

export interface BillingInfo {
  plan: PlanName;
  billing_cycle: BillingCycle;
  usage_limit: number;
  current_usage: number;
  billing_period_start: string;
  billing_period_end: string;
  next_billing_date: string;
  amount_due: number;
}

export interface InvoiceSummary {
  id: string;
  date: string;
  amount: number;
  status: string;
  download_url: string;
}

/** Closes the periods that ended first, so that amount_due includes their invoices. */
export async function billingInfo(b: BillingContext, account: Account): Promise<BillingInfo> {
  if (account.plan === 'trial') {
    const trial = await currentPeriod(b, account);
    const { used } = await b.store.usage.get(account.id, trial.start);
    return shapeInfo(account, 'monthly', account.createdAt, trial.end, trial.limit, used, 0);
  }
  await billingRecord(b, account);
  if (account.status === 'active') await closeDuePeriods(b, account.id);
  const rec = await storedRecord(b, account.id);
  const { used } = await b.store.usage.get(account.id, rec.periodStart);
  const unpaid = (await b.store.billing.invoices(account.id)).filter((i) => i.status !== 'paid');
  let amountDue = unpaid.reduce((s, i) => s + i.totalPence, 0);
  if (account.status === 'active') amountDue += (await invoiceLines(b, account, rec)).reduce((s, l) => s + l.amountPence, 0);
  return shapeInfo(account, rec.cycle, rec.periodStart, rec.periodEnd, limitFor(account, rec), used, amountDue);
}

function shapeInfo(account: Account, cycle: BillingCycle, start: number, end: number, limit: number | null, used: number, amountDuePence: number): BillingInfo {
  return {
    plan: account.plan,
    billing_cycle: cycle,
    usage_limit: limit ?? UNLIMITED,
    current_usage: used,
    billing_period_start: new Date(start).toISOString(),
    billing_period_end: new Date(end).toISOString(),
    next_billing_date: new Date(end).toISOString(),
    amount_due: amountDuePence / 100,
  };
}

export async function invoiceList(b: BillingContext, account: Account): Promise<InvoiceSummary[]> {
  return (await b.store.billing.invoices(account.id)).map((i) => ({
    id: i.id,
    date: new Date(i.issuedAt).toISOString(),
    amount: i.totalPence / 100,
    status: i.status,
    download_url: invoicePdfUrl(b, i.id),
  }));
}

/** An invoice of this account (another account's is not found). */
export async function invoiceOf(b: BillingContext, account: Account, id: string): Promise<Invoice> {
  const inv = id.length <= 100 ? await b.store.billing.invoice(id) : null;
  if (!inv || inv.accountId !== account.id) throw notFound('no such invoice');
  return inv;
}
