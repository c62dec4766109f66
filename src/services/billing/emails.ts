// The e-mails billing and usage send: their texts, and the outbox items that carry them.
import type { Invoice, OutboxItem } from '../../store/metering.js';
import type { Account } from '../../store/types.js';
import { gbp } from '../invoiceHtml.js';
import { isoDay } from './format.js';
import type { BillingContext } from './records.js';

export interface Notice {
  subject: string;
  text: string;
}

const n = (subject: string, text: string): Notice => ({ subject, text });
const count = (v: number) => v.toLocaleString('en-GB');

export const notices = {
  invoiceIssued: (inv: Invoice, pdfUrl: string) =>
    n(`Invoice ${inv.id}: ${gbp(inv.totalPence)}`, `Your invoice for ${isoDay(inv.periodStart)} to ${isoDay(inv.periodEnd)} is ${gbp(inv.totalPence)}.\n${pdfUrl}`),
  cancelRequested: (periodEnd: number, readOnlyDays: number) =>
    n('Your chartshot subscription is cancelled', `Your account stays fully active until ${isoDay(periodEnd)}, then read-only for ${readOnlyDays} days. No further charges.`),
  cancelled: (endedAt: number, readOnlyUntil: number) =>
    n('Your chartshot account is now read-only',
      `Your subscription ended on ${isoDay(endedAt)}. Your charts stay available read-only until ${isoDay(readOnlyUntil)}; you can restore the account until then.`),
  paymentFailed: () => n('Your chartshot payment failed', 'We could not take your payment. We will retry it; please check your payment details.'),
  paymentWarning: () => n('Your chartshot payment is still failing', 'Our second attempt to take your payment failed. Please update your payment details.'),
  suspensionWarning: (suspendDay: number) =>
    n('Your chartshot account will be suspended', `Our final attempt to take your payment failed. Your account will be suspended (read-only) on day ${suspendDay}.`),
  suspended: () =>
    n('Your chartshot account is suspended', 'Your account is read-only: existing charts stay available, new charts and API keys are disabled until payment succeeds.'),
  terminated: (why: string) => n('Your chartshot account is closed', `Your account was closed (${why}) and its data deleted.`),
  usageThreshold: (percent: number, used: number, limit: number) =>
    n(`You have used ${percent}% of your chartshot charts`, `${count(used)} of ${count(limit)} charts used this period.`),
  trialUsedUp: (limit: number) => n('Your chartshot trial is used up', `All ${limit} trial charts are used.`),
  overageStarted: (limit: number) =>
    n('chartshot overage started', `You are past your ${count(limit)} charts; further charts are billed as overage next cycle.`),
};

/** Only for an account with an address (the caller checks). */
export function email(account: Account, notice: Notice): OutboxItem {
  return { kind: 'email', accountId: account.id, target: account.email!, subject: notice.subject, body: notice.text };
}

/** Records a billing event and, when the account has an address, queues its e-mail with it. */
export async function notify(b: BillingContext, account: Account, at: number, kind: string, notice: Notice): Promise<void> {
  await b.store.billing.addEventWithNotices(account.id, at, kind, null, account.email ? [email(account, notice)] : []);
}

export function invoicePdfUrl(b: BillingContext, invoiceId: string): string {
  return `${b.publicBaseUrl}/billing/invoices/${encodeURIComponent(invoiceId)}/pdf`;
}
