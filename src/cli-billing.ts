// `chartshot billing ...`: the payment and lifecycle events of the billing engine, driven by the
// operator (or a payment provider's hook script). --now <ISO> runs a command as of that time
// (walking the lifecycle by hand; the scheduler of a running server uses the real clock).
import type { Config } from './config.js';
import { BILLING_USAGE, BillingUsageError } from './cli-billing-usage.js';
import { parsePlanName, PLANS } from './rules/plans.js';
import { newStoreNotice, openStoreNoting } from './store/open.js';
import { BillingService } from './services/billing/index.js';
import type { BillingCycle } from './rules/pricing.js';
import { systemClock, type Clock } from './clock.js';


export interface BillingArgs {
  account?: string;
  plan?: string;
  cycle?: string;
  url?: string;
  now?: string;
  charts?: string;
  'per-minute'?: string;
  'per-hour'?: string;
  burst?: string;
  'price-pence'?: string;
  'retention-days'?: string;
  'discount-percent'?: string;
  json?: boolean;
}

function need(v: string | undefined, flag: string): string {
  if (!v) throw new BillingUsageError(`${flag} is required`);
  return v;
}

function count(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v))) throw new BillingUsageError(`${flag} must be a positive whole number`);
  return Number(v);
}

/** A whole number (range checked by the service), "none" (null), or absent (unchanged). */
function wholeOrNone(v: string | undefined, flag: string): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  if (!/^\d{1,9}$/.test(v)) throw new BillingUsageError(`${flag} must be a whole number or none`);
  return Number(v);
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function runBilling(config: Config, sub: string | undefined, a: BillingArgs): Promise<void> {
  let clock: Clock = systemClock;
  if (a.now !== undefined) {
    const t = Date.parse(a.now);
    if (Number.isNaN(t)) throw new BillingUsageError('--now must be an ISO 8601 date-time');
    clock = { now: () => t };
  }
  const { store, created } = await openStoreNoting(config);
  if (created) process.stderr.write(newStoreNotice(config));
  const billing = new BillingService(store, clock, config.publicBaseUrl);
  const print = (value: unknown, text: string): void => {
    process.stdout.write((a.json ? JSON.stringify(value) : text) + '\n');
  };
  const accountStatus = async (id: string) => {
    const account = await store.accounts.find(id);
    if (!account) throw new BillingUsageError(`no account ${id}`);
    const rec = account.plan === 'trial' ? null : await billing.record(account);
    return {
      account_id: id,
      plan: account.plan,
      status: account.status,
      billing_cycle: rec?.cycle ?? null,
      period_start: iso(rec?.periodStart ?? null),
      period_end: iso(rec?.periodEnd ?? null),
      pending_cycle: rec?.pendingCycle ?? null,
      cancel_at_period_end: rec?.cancelAtPeriodEnd ?? false,
      read_only_until: iso(rec?.readOnlyUntil ?? null),
      payment_failed_at: iso(rec?.paymentFailedAt ?? null),
      webhook_url: rec?.webhookUrl ?? null,
    };
  };
  const statusText = (s: Awaited<ReturnType<typeof accountStatus>>) =>
    `${s.account_id} ${s.plan} ${s.status}${s.billing_cycle ? ` ${s.billing_cycle} ${s.period_start} -> ${s.period_end}` : ''}` +
    `${s.cancel_at_period_end ? ' (cancels at period end)' : ''}${s.payment_failed_at ? ` (payment failing since ${s.payment_failed_at})` : ''}`;
  try {
    switch (sub) {
      case 'payment-failed':
      case 'payment-succeeded':
      case 'cancel':
      case 'restore':
      case 'status': {
        const id = need(a.account, '--account');
        if (!(await store.accounts.find(id))) throw new BillingUsageError(`no account ${id}`);
        if (sub === 'payment-failed') await billing.paymentFailed(id);
        else if (sub === 'payment-succeeded') await billing.paymentSucceeded(id);
        else if (sub === 'cancel') await billing.cancel(id);
        else if (sub === 'restore') await billing.restore(id);
        const s = await accountStatus(id);
        const events = sub === 'status' ? (await store.billing.events(id)).map((e) => ({ at: iso(e.at), kind: e.kind, detail: e.detail })) : undefined;
        return print(events ? { ...s, events } : s, statusText(s) + (events ? '\n' + events.map((e) => `  ${e.at} ${e.kind}${e.detail ? ' ' + e.detail : ''}`).join('\n') : ''));
      }
      case 'change-plan': {
        const id = need(a.account, '--account');
        const plan = parsePlanName(need(a.plan, '--plan'));
        if (!plan) throw new BillingUsageError(`--plan must be one of ${Object.keys(PLANS).join(', ')} (pro = growth)`);
        if (a.cycle !== undefined && a.cycle !== 'monthly' && a.cycle !== 'annual') throw new BillingUsageError('--cycle must be monthly or annual');
        const r = await billing.changePlan(id, plan, a.cycle as BillingCycle | undefined);
        const s = await accountStatus(id);
        return print({ ...s, effective: r.effective, proration_pence: r.proration_pence },
          `${statusText(s)}\nplan ${r.plan}: fee ${r.effective === 'now' ? 'changes now' : 'changes at the next period'}${r.proration_pence ? `, proration £${(r.proration_pence / 100).toFixed(2)}` : ''}`);
      }
      case 'close-period': {
        const id = need(a.account, '--account');
        const inv = await billing.closePeriodNow(id);
        const out = inv && { id: inv.id, total_pence: inv.totalPence, status: inv.status, lines: inv.lines };
        return print(out, inv ? `invoice ${inv.id} £${(inv.totalPence / 100).toFixed(2)} ${inv.status}` : 'nothing to close');
      }
      case 'run-scheduler': {
        const r = await billing.runScheduler();
        return print(r, r.ran ? `scheduler: ${r.accounts} account(s), ${r.invoices} invoice(s) issued, ${r.purged.analytics} analytics and ${r.purged.billing} billing row(s) past retention deleted` : 'scheduler: another instance is running it; nothing done');
      }
      case 'set-webhook': {
        const id = need(a.account, '--account');
        const url = need(a.url, '--url');
        await billing.setWebhook(id, url === 'none' ? null : url, { allowPrivate: config.webhookAllowPrivate });
        return print({ account_id: id, webhook_url: url === 'none' ? null : url }, url === 'none' ? `webhook of ${id} removed` : `webhook of ${id}: ${url}`);
      }
      case 'set-limits': {
        const id = need(a.account, '--account');
        const rec = await billing.setCustomLimits(id, {
          charts: a.charts === 'none' ? null : count(a.charts, '--charts'),
          perMinute: count(a['per-minute'], '--per-minute'),
          perHour: count(a['per-hour'], '--per-hour'),
          burst: count(a.burst, '--burst'),
          retentionDays: wholeOrNone(a['retention-days'], '--retention-days'),
          discountPercent: wholeOrNone(a['discount-percent'], '--discount-percent'),
          pricePence: a['price-pence'] === undefined ? undefined : /^\d+$/.test(a['price-pence']) ? Number(a['price-pence']) : (() => { throw new BillingUsageError('--price-pence must be a whole number'); })(),
        });
        const out = { account_id: id, charts: rec.customCharts, per_minute: rec.customPerMinute, per_hour: rec.customPerHour, burst: rec.customBurst, price_pence: rec.customPricePence,
          retention_days: rec.customRetentionDays, discount_percent: rec.customDiscountPercent };
        return print(out, Object.entries(out).map(([k, v]) => `${k} ${v ?? 'default'}`).join('\n'));
      }
      case 'outbox': {
        const items = await store.outbox.list(a.account);
        const rows = items.map((i) => ({ id: i.id, kind: i.kind, account_id: i.accountId, target: i.target, subject: i.subject, status: i.status, attempts: i.attempts, created_at: iso(i.createdAt), last_error: i.lastError }));
        return print(rows, rows.map((r) => `${r.id}\t${r.kind}\t${r.status}\t${r.attempts}\t${r.target}\t${r.subject ?? ''}`).join('\n') || '(empty)');
      }
      default:
        throw new BillingUsageError(`unknown billing command: ${sub ?? '(none)'}\n${BILLING_USAGE}`);
    }
  } finally {
    await store.close();
  }
}
