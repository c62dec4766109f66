// Failed payments: the dunning steps walked by the days since the first failure (retries and
// warnings, suspension, termination), and a successful payment ending them.
import { DAY_MS } from '../../rules/pricing.js';
import { invalidInput } from '../../errors.js';
import type { BillingRecord } from '../../store/metering.js';
import type { Account } from '../../store/types.js';
import { notices, notify } from './emails.js';
import { reactivate, terminate } from './lifecycle.js';
import { billedAccount, billingRecord, storedRecord, type BillingContext } from './records.js';

/** Days after the first failed payment at which each dunning step happens. */
export const DUNNING = { secondRetryDay: 3, finalRetryDay: 7, suspendDay: 10, terminateDay: 30 } as const;

export async function paymentFailed(b: BillingContext, accountId: string): Promise<BillingRecord> {
  const account = await billedAccount(b, accountId);
  if (account.plan === 'trial') throw invalidInput('trial accounts have no payments');
  if (account.status === 'terminated') throw invalidInput('account is terminated');
  const rec = await billingRecord(b, account);
  const now = b.clock.now();
  await b.store.billing.failInvoices(accountId);
  if (rec.paymentFailedAt !== null) {
    await b.store.billing.addEvent(accountId, now, 'payment_failed', 'still failing');
    await advanceDunning(b, accountId);
    return storedRecord(b, accountId);
  }
  await b.store.billing.update(accountId, { paymentFailedAt: now, dunningStage: 1 });
  await notify(b, account, now, 'payment_failed', notices.paymentFailed());
  await b.store.billing.addEvent(accountId, now, 'payment_retry', 'attempt 1 (day 1)');
  return storedRecord(b, accountId);
}

export async function paymentSucceeded(b: BillingContext, accountId: string): Promise<Account> {
  const account = await billedAccount(b, accountId);
  if (account.status === 'terminated') throw invalidInput('account is terminated');
  const rec = await billingRecord(b, account);
  const now = b.clock.now();
  const paid = await b.store.billing.payInvoices(accountId, now);
  await b.store.billing.addEvent(accountId, now, 'payment_succeeded', `${paid} invoice(s) paid`);
  if (account.status === 'suspended') await reactivate(b, account, rec, now, 'reactivated');
  else await b.store.billing.update(accountId, { paymentFailedAt: null, dunningStage: 0 });
  return billedAccount(b, accountId);
}

/** Takes every step due by now that was not taken yet, once each and in order. */
export async function advanceDunning(b: BillingContext, accountId: string): Promise<void> {
  const account = await billedAccount(b, accountId);
  const rec = await billingRecord(b, account);
  if (rec.paymentFailedAt === null || account.status === 'terminated') return;
  const now = b.clock.now();
  const day = Math.floor((now - rec.paymentFailedAt) / DAY_MS) + 1;
  const stage = async (n: number) => b.store.billing.update(accountId, { dunningStage: n });
  let done = rec.dunningStage;
  if (done < 2 && day >= DUNNING.secondRetryDay) {
    await stage((done = 2));
    await b.store.billing.addEvent(accountId, now, 'payment_retry', `attempt 2 (day ${DUNNING.secondRetryDay})`);
    await notify(b, account, now, 'payment_warning', notices.paymentWarning());
  }
  if (done < 3 && day >= DUNNING.finalRetryDay) {
    await stage((done = 3));
    await b.store.billing.addEvent(accountId, now, 'payment_retry', `attempt 3, final (day ${DUNNING.finalRetryDay})`);
    await notify(b, account, now, 'suspension_warning', notices.suspensionWarning(DUNNING.suspendDay));
  }
  if (done < 4 && day >= DUNNING.suspendDay) {
    await stage((done = 4));
    await b.store.accounts.update(accountId, { status: 'suspended' });
    await notify(b, account, now, 'suspended', notices.suspended());
  }
  if (done < 5 && day >= DUNNING.terminateDay) {
    await stage(5);
    await terminate(b, account, now, `payment failing for ${DUNNING.terminateDay} days`);
  }
}
