// Billing: periods, plan changes with proration, invoices, and the account lifecycle of SPEC
// (payment failure day 1/3/7/10/30, cancellation, restoration), all on an injectable clock.
//
// Model (README "Plans, limits and billing"): an account is billed in arrears. When a period
// closes, one invoice is issued with the fee of the plan the period started on, the proration
// lines of upgrades made during it, and the overage of the period. Upgrades take effect at
// once (limits and a proration line for the remaining days); downgrades lower the limits at once
// but the lower fee starts with the next period. A billing-cycle change starts with the next
// period. Only active accounts accrue periods: a suspended or cancelled account's clock stops,
// and restoring it starts a fresh period.
import { PLANS, type PlanName } from '../chart/plans.js';
import type { RateLimits } from '../chart/rateLimit.js';
import { invalidInput, notFound } from '../errors.js';
import type { Account, Store } from '../store/types.js';
import type { BillingCycle, BillingRecord, Invoice, InvoiceLine, OutboxItem } from '../store/metering.js';
import type { Clock } from './accounts.js';
import { newId } from './credentials.js';
import { gbp } from './invoiceHtml.js';
import { InvoicePdfs, type PdfPrinter } from './invoicePdf.js';
import { checkTargetUrl, RefusedTarget } from './outboundHttp.js';

export const DAY_MS = 86_400_000;
/** Cancelled accounts stay read-only (and restorable) this long after their last period. */
export const CANCELLED_READ_ONLY_DAYS = 30;
/** Unlimited quotas (enterprise without a custom allowance) are reported as this integer. */
export const UNLIMITED = 2_147_483_647;
const PLAN_RANK: Record<PlanName, number> = { trial: 0, starter: 1, growth: 2, enterprise: 3 };

/** Days after the first failed payment at which each dunning step happens (SPEC). */
export const DUNNING = { secondRetryDay: 3, finalRetryDay: 7, suspendDay: 10, terminateDay: 30 } as const;

export interface Period {
  start: number;
  end: number;
  /** Monthly allowance; null = unlimited. */
  limit: number | null;
  trial: boolean;
}

/** Adds calendar months in UTC, clamping the day (31 Jan + 1 month = 28/29 Feb). */
export function addMonthsUtc(ms: number, months: number): number {
  const d = new Date(ms);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime();
}

export function periodEndFrom(start: number, cycle: BillingCycle): number {
  return addMonthsUtc(start, cycle === 'annual' ? 12 : 1);
}

/** Plan fee for one period, pence: annual = 10 monthly fees (2 months free). */
export function planFeePence(plan: PlanName, cycle: BillingCycle, customMonthlyPence: number | null = null): number {
  const monthly = plan === 'enterprise' ? (customMonthlyPence ?? 0) : (PLANS[plan].monthlyPricePence ?? 0);
  return cycle === 'annual' ? monthly * 10 : monthly;
}

/** Overage: per started 1,000 charts beyond the allowance. */
export function overagePence(used: number, limit: number | null, per1000Pence: number | null): { over: number; units: number; pence: number } {
  if (limit === null || per1000Pence === null || used <= limit) return { over: Math.max(0, used - (limit ?? used)), units: 0, pence: 0 };
  const over = used - limit;
  const units = Math.ceil(over / 1000);
  return { over, units, pence: units * per1000Pence };
}

/** Proration of a fee difference for the remaining (started) days of a period. */
export function prorationPence(diffPence: number, periodStart: number, periodEnd: number, at: number): { pence: number; remainingDays: number; periodDays: number } {
  const periodDays = Math.max(1, Math.round((periodEnd - periodStart) / DAY_MS));
  const remainingDays = Math.min(periodDays, Math.max(0, Math.ceil((periodEnd - at) / DAY_MS)));
  return { pence: Math.round((diffPence * remainingDays) / periodDays), remainingDays, periodDays };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const planLabel = (p: PlanName) => p.charAt(0).toUpperCase() + p.slice(1);

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

export class BillingService {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly pdfs: InvoicePdfs;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly publicBaseUrl: string,
    /** Prints an HTML document to PDF (the page pool's browser); only the server has one. */
    printPdf: PdfPrinter | null = null,
  ) {
    this.pdfs = new InvoicePdfs(store.images, clock, printPdf);
  }

  // ---- periods and limits -------------------------------------------------------------

  private async account(accountId: string): Promise<Account> {
    const a = await this.store.accounts.find(accountId);
    if (!a) throw invalidInput(`no account ${accountId}`);
    return a;
  }

  /** The billing record of an account, created (first period from the account's creation) when missing. */
  async record(account: Account): Promise<BillingRecord> {
    const rec = await this.store.billing.get(account.id);
    if (rec) return rec;
    return this.store.billing.ensure({
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
    });
  }

  limitFor(account: Account, rec: BillingRecord | null): number | null {
    if (account.plan === 'enterprise') return rec?.customCharts ?? null;
    return PLANS[account.plan].chartsPerPeriod;
  }

  rateLimitsFor(account: Account, rec: BillingRecord | null): RateLimits {
    const base = PLANS[account.plan].rate;
    if (account.plan !== 'enterprise' || !rec) return base;
    return {
      perMinute: rec.customPerMinute ?? base.perMinute,
      perHour: rec.customPerHour ?? base.perHour,
      burst: rec.customBurst ?? base.burst,
    };
  }

  /**
   * The usage period a generation made now belongs to. Trial: the key's whole life (start 0).
   * Others: the billing period, closing any period that has ended first.
   */
  async currentPeriod(account: Account): Promise<Period> {
    if (account.plan === 'trial') {
      return { start: 0, end: account.createdAt + 30 * DAY_MS, limit: PLANS.trial.chartsPerPeriod, trial: true };
    }
    let rec = await this.record(account);
    if (rec.periodEnd <= this.clock.now() && account.status === 'active') {
      await this.closeDuePeriods(account.id);
      rec = (await this.store.billing.get(account.id))!;
    }
    return { start: rec.periodStart, end: rec.periodEnd, limit: this.limitFor(account, rec), trial: false };
  }

  // ---- closing periods and invoices ---------------------------------------------------

  /** Closes every period of an active account that has ended by now; returns the invoices issued. */
  async closeDuePeriods(accountId: string): Promise<Invoice[]> {
    const issued: Invoice[] = [];
    for (let guard = 0; guard < 1000; guard++) {
      const account = await this.account(accountId);
      if (account.status !== 'active' || account.plan === 'trial') break;
      const rec = await this.record(account);
      if (rec.periodEnd > this.clock.now()) break;
      const inv = await this.closeOne(account, rec, rec.periodEnd);
      if (inv) issued.push(inv);
    }
    return issued;
  }

  /** Ends the current period now (operator command) and issues its invoice. */
  async closePeriodNow(accountId: string): Promise<Invoice | null> {
    const account = await this.account(accountId);
    if (account.plan === 'trial') throw invalidInput('trial accounts have no billing periods');
    if (account.status !== 'active') throw invalidInput(`account is ${account.status}: no open period`);
    await this.closeDuePeriods(accountId);
    const rec = await this.record(await this.account(accountId));
    return this.closeOne(account, rec, this.clock.now());
  }

  async invoiceLines(account: Account, rec: BillingRecord): Promise<InvoiceLine[]> {
    const lines: InvoiceLine[] = [];
    const fee = planFeePence(rec.periodPlan, rec.cycle, rec.customPricePence);
    lines.push({
      kind: 'plan',
      description: `${planLabel(rec.periodPlan)} plan, ${rec.cycle} (${isoDay(rec.periodStart)} to ${isoDay(rec.periodEnd)})`,
      amountPence: fee,
    });
    lines.push(...(await this.store.billing.lines(account.id, rec.periodStart)));
    const used = (await this.store.usage.get(account.id, rec.periodStart)).used;
    const limit = this.limitFor(account, rec);
    const o = overagePence(used, limit, PLANS[account.plan].overagePer1000Pence);
    if (o.pence > 0) {
      lines.push({
        kind: 'overage',
        description: `Overage: ${o.over.toLocaleString('en-GB')} charts over ${limit!.toLocaleString('en-GB')} (${o.units} x 1,000 at ${gbp(PLANS[account.plan].overagePer1000Pence!)})`,
        amountPence: o.pence,
      });
    }
    return lines;
  }

  private async closeOne(account: Account, rec: BillingRecord, endAt: number): Promise<Invoice | null> {
    const closed = { ...rec, periodEnd: endAt };
    const lines = await this.invoiceLines(account, closed);
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
    const next: Partial<BillingRecord> = cancelling
      ? { periodStart: endAt, periodEnd: periodEndFrom(endAt, cycle), cycle, pendingCycle: null, cancelAtPeriodEnd: false, readOnlyUntil: endAt + CANCELLED_READ_ONLY_DAYS * DAY_MS }
      : { periodStart: endAt, periodEnd: periodEndFrom(endAt, cycle), cycle, pendingCycle: null, periodPlan: account.plan, billedPlan: account.plan };
    if (!(await this.store.billing.closePeriod(account.id, rec.periodStart, inv, next))) return null;
    const notices = account.email && total > 0
      ? [email(account, `Invoice ${inv.id}: ${gbp(total)}`, `Your invoice for ${isoDay(inv.periodStart)} to ${isoDay(inv.periodEnd)} is ${gbp(total)}.\n${this.publicBaseUrl}/billing/invoices/${inv.id}/pdf`)]
      : [];
    await this.store.billing.addEventWithNotices(account.id, endAt, 'invoice_issued', `${inv.id} ${total}`, notices);
    if (cancelling) {
      await this.store.accounts.update(account.id, { status: 'cancelled' });
      await this.notify(account, endAt, 'cancelled', 'Your chartshot account is now read-only',
        `Your subscription ended on ${isoDay(endAt)}. Your charts stay available read-only until ${isoDay(next.readOnlyUntil!)}; you can restore the account until then.`);
    }
    return inv;
  }

  // ---- plan changes -------------------------------------------------------------------

  async changePlan(accountId: string, plan: PlanName, cycle?: BillingCycle): Promise<{ plan: PlanName; effective: 'now' | 'next_period'; proration_pence: number }> {
    let account = await this.account(accountId);
    if (account.status === 'terminated') throw invalidInput('account is terminated');
    if (plan === 'trial' || account.plan === 'trial') throw invalidInput('trial accounts cannot change plan; create a paid account');
    await this.closeDuePeriods(accountId);
    account = await this.account(accountId);
    const rec = await this.record(account);
    const now = this.clock.now();
    if (cycle && cycle !== rec.cycle) {
      await this.store.billing.update(accountId, { pendingCycle: cycle });
      await this.store.billing.addEvent(accountId, now, 'cycle_change_scheduled', `${rec.cycle} -> ${cycle} from ${isoDay(rec.periodEnd)}`);
    } else if (cycle && rec.pendingCycle) {
      await this.store.billing.update(accountId, { pendingCycle: null });
    }
    if (plan === account.plan) return { plan, effective: 'now', proration_pence: 0 };
    const upgrade = PLAN_RANK[plan] > PLAN_RANK[account.plan];
    // New API limits apply at once either way; only the fee differs.
    await this.store.accounts.update(accountId, { plan });
    if (!upgrade) {
      await this.store.billing.addEvent(accountId, now, 'downgrade', `${account.plan} -> ${plan}; fee from ${isoDay(rec.periodEnd)}`);
      return { plan, effective: 'next_period', proration_pence: 0 };
    }
    const diff = planFeePence(plan, rec.cycle, rec.customPricePence) - planFeePence(rec.billedPlan, rec.cycle, rec.customPricePence);
    let pence = 0;
    if (diff > 0) {
      const p = prorationPence(diff, rec.periodStart, rec.periodEnd, now);
      pence = p.pence;
      await this.store.billing.addLine(accountId, rec.periodStart, {
        kind: 'proration',
        description: `Upgrade from ${planLabel(rec.billedPlan)} to ${planLabel(plan)} on ${isoDay(now)}: ${p.remainingDays} of ${p.periodDays} days at ${gbp(diff)}`,
        amountPence: pence,
      }, now);
      await this.store.billing.update(accountId, { billedPlan: plan });
    }
    await this.store.billing.addEvent(accountId, now, 'upgrade', `${account.plan} -> ${plan}; proration ${pence}`);
    return { plan, effective: 'now', proration_pence: pence };
  }

  // ---- lifecycle ----------------------------------------------------------------------

  async cancel(accountId: string): Promise<BillingRecord> {
    const account = await this.account(accountId);
    if (account.plan === 'trial') throw invalidInput('trial accounts have no subscription');
    if (account.status !== 'active') throw invalidInput(`account is ${account.status}`);
    await this.closeDuePeriods(accountId);
    const rec = await this.record(account);
    await this.store.billing.update(accountId, { cancelAtPeriodEnd: true });
    await this.notify(account, this.clock.now(), 'cancel_requested', 'Your chartshot subscription is cancelled',
      `Your account stays fully active until ${isoDay(rec.periodEnd)}, then read-only for ${CANCELLED_READ_ONLY_DAYS} days. No further charges.`);
    return (await this.store.billing.get(accountId))!;
  }

  async restore(accountId: string): Promise<Account> {
    const account = await this.account(accountId);
    const rec = await this.record(account);
    const now = this.clock.now();
    if (account.status === 'terminated') throw invalidInput('account is terminated: its data is deleted');
    if (account.status === 'active') {
      if (!rec.cancelAtPeriodEnd) throw invalidInput('account is active: nothing to restore');
      await this.store.billing.update(accountId, { cancelAtPeriodEnd: false });
      await this.store.billing.addEvent(accountId, now, 'restored', 'cancellation withdrawn');
      return account;
    }
    if (account.status === 'cancelled' && rec.readOnlyUntil !== null && now >= rec.readOnlyUntil) {
      throw invalidInput('the 30-day restoration window has passed');
    }
    await this.reactivate(account, rec, now, 'restored');
    return (await this.account(accountId));
  }

  /** Back to active: a fresh period starts now (no charges for the read-only time). */
  private async reactivate(account: Account, rec: BillingRecord, now: number, kind: string): Promise<void> {
    const fresh = rec.periodEnd <= now || account.status === 'cancelled';
    await this.store.billing.update(account.id, {
      readOnlyUntil: null,
      paymentFailedAt: null,
      dunningStage: 0,
      cancelAtPeriodEnd: false,
      ...(fresh ? { periodStart: now, periodEnd: periodEndFrom(now, rec.cycle), periodPlan: account.plan, billedPlan: account.plan } : {}),
    });
    await this.store.accounts.update(account.id, { status: 'active' });
    await this.store.billing.addEvent(account.id, now, kind, `${account.status} -> active`);
  }

  async paymentFailed(accountId: string): Promise<BillingRecord> {
    const account = await this.account(accountId);
    if (account.plan === 'trial') throw invalidInput('trial accounts have no payments');
    if (account.status === 'terminated') throw invalidInput('account is terminated');
    const rec = await this.record(account);
    const now = this.clock.now();
    await this.store.billing.failInvoices(accountId);
    if (rec.paymentFailedAt !== null) {
      await this.store.billing.addEvent(accountId, now, 'payment_failed', 'still failing');
      await this.advanceDunning(accountId);
      return (await this.store.billing.get(accountId))!;
    }
    await this.store.billing.update(accountId, { paymentFailedAt: now, dunningStage: 1 });
    await this.notify(account, now, 'payment_failed', 'Your chartshot payment failed',
      'We could not take your payment. We will retry it; please check your payment details.');
    await this.store.billing.addEvent(accountId, now, 'payment_retry', 'attempt 1 (day 1)');
    return (await this.store.billing.get(accountId))!;
  }

  async paymentSucceeded(accountId: string): Promise<Account> {
    const account = await this.account(accountId);
    if (account.status === 'terminated') throw invalidInput('account is terminated');
    const rec = await this.record(account);
    const now = this.clock.now();
    const paid = await this.store.billing.payInvoices(accountId, now);
    await this.store.billing.addEvent(accountId, now, 'payment_succeeded', `${paid} invoice(s) paid`);
    if (account.status === 'suspended') await this.reactivate(account, rec, now, 'reactivated');
    else await this.store.billing.update(accountId, { paymentFailedAt: null, dunningStage: 0 });
    return this.account(accountId);
  }

  /** Walks the failed-payment table by the days since the first failure; each step once, in order. */
  async advanceDunning(accountId: string): Promise<void> {
    const account = await this.account(accountId);
    const rec = await this.record(account);
    if (rec.paymentFailedAt === null || account.status === 'terminated') return;
    const now = this.clock.now();
    const day = Math.floor((now - rec.paymentFailedAt) / DAY_MS) + 1;
    let stage = rec.dunningStage;
    if (stage < 2 && day >= DUNNING.secondRetryDay) {
      stage = 2;
      await this.store.billing.update(accountId, { dunningStage: stage });
      await this.store.billing.addEvent(accountId, now, 'payment_retry', `attempt 2 (day ${DUNNING.secondRetryDay})`);
      await this.notify(account, now, 'payment_warning', 'Your chartshot payment is still failing',
        'Our second attempt to take your payment failed. Please update your payment details.');
    }
    if (stage < 3 && day >= DUNNING.finalRetryDay) {
      stage = 3;
      await this.store.billing.update(accountId, { dunningStage: stage });
      await this.store.billing.addEvent(accountId, now, 'payment_retry', `attempt 3, final (day ${DUNNING.finalRetryDay})`);
      await this.notify(account, now, 'suspension_warning', 'Your chartshot account will be suspended',
        `Our final attempt to take your payment failed. Your account will be suspended (read-only) on day ${DUNNING.suspendDay}.`);
    }
    if (stage < 4 && day >= DUNNING.suspendDay) {
      stage = 4;
      await this.store.billing.update(accountId, { dunningStage: stage });
      await this.store.accounts.update(accountId, { status: 'suspended' });
      await this.notify(account, now, 'suspended', 'Your chartshot account is suspended',
        'Your account is read-only: existing charts stay available, new charts and API keys are disabled until payment succeeds.');
    }
    if (stage < 5 && day >= DUNNING.terminateDay) {
      await this.store.billing.update(accountId, { dunningStage: 5 });
      await this.terminate(account, now, `payment failing for ${DUNNING.terminateDay} days`);
    }
  }

  /** terminated: the account's data is deleted (invoices and billing events are kept). */
  async terminate(account: Account, now: number, why: string): Promise<void> {
    await this.notify(account, now, 'terminated', 'Your chartshot account is closed', `Your account was closed (${why}) and its data deleted.`);
    await this.store.accounts.update(account.id, { status: 'terminated' });
    await this.store.billing.purgeAccountData(account.id);
  }

  /** One scheduler pass over every billed account: close periods, walk dunning, end read-only time. */
  async runScheduler(): Promise<{ accounts: number; invoices: number }> {
    let invoices = 0;
    const ids = await this.store.billing.accountIds();
    for (const id of ids) {
      const account = await this.store.accounts.find(id);
      if (!account || account.status === 'terminated' || account.plan === 'trial') continue;
      invoices += (await this.closeDuePeriods(id)).length;
      await this.advanceDunning(id);
      const after = (await this.store.accounts.find(id))!;
      const rec = (await this.store.billing.get(id))!;
      if (after.status === 'cancelled' && rec.readOnlyUntil !== null && this.clock.now() >= rec.readOnlyUntil) {
        await this.terminate(after, this.clock.now(), `cancelled, ${CANCELLED_READ_ONLY_DAYS}-day read-only period over`);
      }
    }
    return { accounts: ids.length, invoices };
  }

  /** Runs the scheduler every intervalMs (and once at start); errors are reported, never thrown. */
  startScheduler(intervalMs: number, onError: (err: unknown) => void): void {
    const tick = () => {
      if (this.running) return;
      this.running = this.runScheduler().catch(onError).finally(() => {
        this.running = null;
      });
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  async stopScheduler(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  // ---- settings -----------------------------------------------------------------------

  /** http(s) only; a literal private address (or localhost) is refused here, resolved names at send time. */
  async setWebhook(accountId: string, url: string | null, opts: { allowPrivate?: boolean } = {}): Promise<void> {
    if (url !== null) {
      if (url.length > 2048) throw invalidInput('--url must be at most 2048 characters');
      try {
        checkTargetUrl(url, opts.allowPrivate ?? false);
      } catch (err) {
        if (err instanceof RefusedTarget) throw invalidInput(`--url must be an http(s) URL to a public address: ${err.message}`);
        throw err;
      }
    }
    const account = await this.account(accountId);
    await this.record(account);
    await this.store.billing.update(accountId, { webhookUrl: url });
  }

  async setCustomLimits(accountId: string, f: { charts?: number | null; perMinute?: number; perHour?: number; burst?: number; pricePence?: number }): Promise<BillingRecord> {
    const account = await this.account(accountId);
    if (account.plan !== 'enterprise') throw invalidInput('custom limits are for enterprise accounts');
    await this.record(account);
    await this.store.billing.update(accountId, {
      customCharts: f.charts, customPerMinute: f.perMinute, customPerHour: f.perHour, customBurst: f.burst, customPricePence: f.pricePence,
    });
    return (await this.store.billing.get(accountId))!;
  }

  // ---- account endpoints --------------------------------------------------------------

  async info(account: Account): Promise<BillingInfo> {
    const period = await this.currentPeriod(account);
    const used = (await this.store.usage.get(account.id, period.start)).used;
    let amountDue = 0;
    let cycle: BillingCycle = 'monthly';
    let start = account.createdAt;
    if (!period.trial) {
      const rec = (await this.store.billing.get(account.id))!;
      cycle = rec.cycle;
      start = rec.periodStart;
      const unpaid = (await this.store.billing.invoices(account.id)).filter((i) => i.status !== 'paid');
      amountDue = unpaid.reduce((s, i) => s + i.totalPence, 0);
      if (account.status === 'active') {
        amountDue += (await this.invoiceLines(account, rec)).reduce((s, l) => s + l.amountPence, 0);
      }
    }
    return {
      plan: account.plan,
      billing_cycle: cycle,
      usage_limit: period.limit ?? UNLIMITED,
      current_usage: used,
      billing_period_start: new Date(start).toISOString(),
      billing_period_end: new Date(period.end).toISOString(),
      next_billing_date: new Date(period.end).toISOString(),
      amount_due: amountDue / 100,
    };
  }

  async invoiceList(account: Account): Promise<InvoiceSummary[]> {
    return (await this.store.billing.invoices(account.id)).map((i) => ({
      id: i.id,
      date: new Date(i.issuedAt).toISOString(),
      amount: i.totalPence / 100,
      status: i.status,
      download_url: `${this.publicBaseUrl}/billing/invoices/${encodeURIComponent(i.id)}/pdf`,
    }));
  }

  /** An invoice of this account (another account's is not found). */
  async invoiceFor(account: Account, id: string): Promise<Invoice> {
    const inv = id.length <= 100 ? await this.store.billing.invoice(id) : null;
    if (!inv || inv.accountId !== account.id) throw notFound('no such invoice');
    return inv;
  }

  /** The invoice as a PDF document, printed by Chromium once and stored (invoicePdf.ts). */
  async invoicePdf(account: Account, id: string): Promise<Buffer> {
    return this.pdfs.get(await this.invoiceFor(account, id), account);
  }

  private async notify(account: Account, at: number, kind: string, subject: string, text: string): Promise<void> {
    await this.store.billing.addEventWithNotices(account.id, at, kind, null, account.email ? [email(account, subject, text)] : []);
  }
}

export function email(account: Account, subject: string, text: string): OutboxItem {
  return { kind: 'email', accountId: account.id, target: account.email!, subject, body: text };
}
