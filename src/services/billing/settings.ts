// Per-account billing settings set by the operator: the usage webhook and enterprise custom limits.
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
}

/** http(s) only; a literal private address (or localhost) is refused here, resolved names at send time. */
export async function setWebhook(b: BillingContext, accountId: string, url: string | null, opts: { allowPrivate?: boolean } = {}): Promise<void> {
  if (url !== null) {
    if (url.length > 2048) throw invalidInput('--url must be at most 2048 characters');
    try {
      checkTargetUrl(url, opts.allowPrivate ?? false);
    } catch (err) {
      if (err instanceof RefusedTarget) throw invalidInput(`--url must be an http(s) URL to a public address: ${err.message}`);
      throw err;
    }
  }
  await billingRecord(b, await billedAccount(b, accountId));
  await b.store.billing.update(accountId, { webhookUrl: url });
}

export async function setCustomLimits(b: BillingContext, accountId: string, f: CustomLimits): Promise<BillingRecord> {
  const account = await billedAccount(b, accountId);
  if (account.plan !== 'enterprise') throw invalidInput('custom limits are for enterprise accounts');
  await billingRecord(b, account);
  await b.store.billing.update(accountId, {
    customCharts: f.charts, customPerMinute: f.perMinute, customPerHour: f.perHour, customBurst: f.burst, customPricePence: f.pricePence,
  });
  return storedRecord(b, accountId);
}
