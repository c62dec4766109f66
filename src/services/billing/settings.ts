// Per-account billing settings set by the operator: the usage webhook and enterprise custom limits.
import { MAX_RETENTION_DAYS } from '../../rules/retention.js';
import { invalidInput } from '../../errors.js';
import type { BillingRecord } from '../../store/metering.js';
import { checkTargetUrl, RefusedTarget } from '../outboundHttp.js';
import { billedAccount, billingRecord, storedRecord, type BillingContext } from './records.js';

export interface CustomLimits {
  charts?: number | null;
  perMinute?: number;
  perHour?: number;
  burst?: number;
  pricePence?: number;
  /** Days of analytics kept; null: kept for good (the default). */
  retentionDays?: number | null;
  /** Volume discount above 10M charts a month, percent; null: the 5M-10M tier's rate. */
  discountPercent?: number | null;
}

/** http(s) only; a literal private address (or localhost) is refused here, resolved names at send time. */
export async function setWebhook(b: BillingContext, accountId: string, url: string | null, opts: { allowPrivate?: boolean } = {}): Promise<void> {
  if (url !== null) {
    if (url.length > 2048) throw invalidInput('the webhook URL must be at most 2048 characters');
    try {
      checkTargetUrl(url, opts.allowPrivate ?? false);
    } catch (err) {
      if (err instanceof RefusedTarget) throw invalidInput(`the webhook URL must be an http(s) URL to a public address: ${err.message}`);
      throw err;
    }
  }
  await billingRecord(b, await billedAccount(b, accountId));
  await b.store.billing.update(accountId, { webhookUrl: url });
}

export async function setCustomLimits(b: BillingContext, accountId: string, f: CustomLimits): Promise<BillingRecord> {
  const account = await billedAccount(b, accountId);
  if (account.plan !== 'enterprise') throw invalidInput('custom limits are for enterprise accounts');
  if (f.retentionDays != null && !(Number.isSafeInteger(f.retentionDays) && f.retentionDays >= 1 && f.retentionDays <= MAX_RETENTION_DAYS)) {
    throw invalidInput(`--retention-days must be a whole number from 1 to ${MAX_RETENTION_DAYS}, or none`);
  }
  if (f.discountPercent != null && !(Number.isSafeInteger(f.discountPercent) && f.discountPercent >= 0 && f.discountPercent <= 100)) {
    throw invalidInput('--discount-percent must be a whole number from 0 to 100, or none');
  }
  await billingRecord(b, account);
  await b.store.billing.update(accountId, {
    customCharts: f.charts, customPerMinute: f.perMinute, customPerHour: f.perHour, customBurst: f.burst, customPricePence: f.pricePence,
    customRetentionDays: f.retentionDays, customDiscountPercent: f.discountPercent,
  });
  return storedRecord(b, accountId);
}
