// What every billing module works on: the store tables billing reads, the clock, and an
// account's billing record (created with its first period when missing).
import type { Clock } from '../../clock.js';
import { invalidInput } from '../../errors.js';
import { periodEndFrom } from '../../rules/pricing.js';
import type { BillingRecord } from '../../store/metering.js';
import type { Account, Store } from '../../store/types.js';

export type BillingTables = Pick<Store, 'accounts' | 'billing' | 'usage' | 'locks' | 'purgeAccountData' | 'retention'>;

export interface BillingContext {
  readonly store: BillingTables;
  readonly clock: Clock;
  /** Base of the invoice links in e-mails and listings. */
  readonly publicBaseUrl: string;
}

export async function billedAccount(b: BillingContext, accountId: string): Promise<Account> {
  const a = await b.store.accounts.find(accountId);
  if (!a) throw invalidInput(`no account ${accountId}`);
  return a;
}

/** The record an account starts with: monthly, its first period from the account's creation. */
export function firstRecord(account: Account): BillingRecord {
  return {
    accountId: account.id,
    cycle: 'monthly',
    periodStart: account.createdAt,
    periodEnd: periodEndFrom(account.createdAt, 'monthly'),
    periodPlan: account.plan,
    billedPlan: account.plan,
    pendingCycle: null,
    cancelAtPeriodEnd: false,
    readOnlyUntil: null,
    paymentFailedAt: null,
    dunningStage: 0,
    webhookUrl: null,
    customCharts: null,
    customPerMinute: null,
    customPerHour: null,
    customBurst: null,
    customPricePence: null,
    customRetentionDays: null,
    customDiscountPercent: null,
  };
}

/** The billing record of an account, stored now when missing. */
export async function billingRecord(b: BillingContext, account: Account): Promise<BillingRecord> {
  return (await b.store.billing.get(account.id)) ?? b.store.billing.ensure(firstRecord(account));
}

/** The record after a write that cannot remove it. */
export async function storedRecord(b: BillingContext, accountId: string): Promise<BillingRecord> {
  return (await b.store.billing.get(accountId))!;
}
