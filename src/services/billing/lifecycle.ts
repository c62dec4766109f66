// Cancellation, restoration, reactivation and termination of a billed account. A cancelled
// account stays active to the end of its period, then read-only (and restorable) for a while;
// restoring it starts a fresh period, so read-only time is never charged.
import { periodEndFrom } from '../../rules/pricing.js';
import { invalidInput } from '../../errors.js';
import type { BillingRecord } from '../../store/metering.js';
import type { Account } from '../../store/types.js';
import { notices, notify } from './emails.js';
import { CANCELLED_READ_ONLY_DAYS, closeDuePeriods } from './periods.js';
import { billedAccount, billingRecord, storedRecord, type BillingContext } from './records.js';

export async function cancel(b: BillingContext, accountId: string): Promise<BillingRecord> {
  const account = await billedAccount(b, accountId);
  if (account.plan === 'trial') throw invalidInput('trial accounts have no subscription');
  if (account.status !== 'active') throw invalidInput(`account is ${account.status}`);
  await closeDuePeriods(b, accountId);
  const rec = await billingRecord(b, account);
  await b.store.billing.update(accountId, { cancelAtPeriodEnd: true });
  await notify(b, account, b.clock.now(), 'cancel_requested', notices.cancelRequested(rec.periodEnd, CANCELLED_READ_ONLY_DAYS));
  return storedRecord(b, accountId);
}

export async function restore(b: BillingContext, accountId: string): Promise<Account> {
  const account = await billedAccount(b, accountId);
  const rec = await billingRecord(b, account);
  const now = b.clock.now();
  if (account.status === 'terminated') throw invalidInput('account is terminated: its data is deleted');
  if (account.status === 'active') {
    if (!rec.cancelAtPeriodEnd) throw invalidInput('account is active: nothing to restore');
    await b.store.billing.update(accountId, { cancelAtPeriodEnd: false });
    await b.store.billing.addEvent(accountId, now, 'restored', 'cancellation withdrawn');
    return account;
  }
  if (account.status === 'cancelled' && rec.readOnlyUntil !== null && now >= rec.readOnlyUntil) {
    throw invalidInput(`the ${CANCELLED_READ_ONLY_DAYS}-day restoration window has passed`);
  }
  await reactivate(b, account, rec, now, 'restored');
  return billedAccount(b, accountId);
}

/** Back to active: a fresh period starts now (no charges for the read-only time). */
export async function reactivate(b: BillingContext, account: Account, rec: BillingRecord, now: number, kind: string): Promise<void> {
  const fresh = rec.periodEnd <= now || account.status === 'cancelled';
  await b.store.billing.update(account.id, {
    readOnlyUntil: null,
    paymentFailedAt: null,
    dunningStage: 0,
    cancelAtPeriodEnd: false,
    ...(fresh ? { periodStart: now, periodEnd: periodEndFrom(now, rec.cycle), periodPlan: account.plan, billedPlan: account.plan } : {}),
  });
  await b.store.accounts.update(account.id, { status: 'active' });
  await b.store.billing.addEvent(account.id, now, kind, `${account.status} -> active`);
}

/** terminated: the account's data is deleted (invoices and billing events are kept). */
export async function terminate(b: BillingContext, account: Account, now: number, why: string): Promise<void> {
  await notify(b, account, now, 'terminated', notices.terminated(why));
  await b.store.accounts.update(account.id, { status: 'terminated' });
  await b.store.purgeAccountData(account.id);
}
