// BillingService: the billing use cases behind one object for the routes, the CLI and usage
// counting; each delegates to the module that does that one job.
import type { PlanName } from '../../rules/plans.js';
import type { BillingCycle } from '../../rules/pricing.js';
import type { Clock } from '../../clock.js';
import type { BillingRecord, Invoice } from '../../store/metering.js';
import type { Account, Store } from '../../store/types.js';
import { InvoicePdfs, type PdfPrinter } from '../invoicePdf.js';
import * as dunning from './dunning.js';
import * as lifecycle from './lifecycle.js';
import * as periods from './periods.js';
import type { PeriodReader } from './periods.js';
import { changePlan, type PlanChange } from './plans.js';
import { billingRecord, type BillingContext } from './records.js';
import { purgeRetention, type RetentionPass } from './retention.js';
import { runScheduler, SchedulerTimer, type SchedulerPass } from './scheduler.js';
import * as settings from './settings.js';
import * as view from './view.js';

export type { Period } from './periods.js';
export type { BillingInfo, InvoiceSummary } from './view.js';

export class BillingService implements PeriodReader {
  private readonly b: BillingContext;
  private readonly pdfs: InvoicePdfs;
  private readonly scheduler = new SchedulerTimer(() => this.runScheduler());

  constructor(
    store: Pick<Store, 'accounts' | 'billing' | 'usage' | 'images' | 'locks' | 'purgeAccountData' | 'retention'>,
    clock: Clock,
    publicBaseUrl: string,
    /** Prints an HTML document to PDF (the page pool's browser); only the server has one. */
    printPdf: PdfPrinter | null = null,
  ) {
    this.b = { store, clock, publicBaseUrl };
    this.pdfs = new InvoicePdfs(store.images, clock, printPdf);
  }

  record(account: Account): Promise<BillingRecord> {
    return billingRecord(this.b, account);
  }
  currentPeriod(account: Account, read?: () => Promise<BillingRecord | null>): Promise<periods.Period> {
    return periods.currentPeriod(this.b, account, read);
  }
  closeDuePeriods(accountId: string): Promise<Invoice[]> {
    return periods.closeDuePeriods(this.b, accountId);
  }
  closePeriodNow(accountId: string): Promise<Invoice | null> {
    return periods.closePeriodNow(this.b, accountId);
  }
  changePlan(accountId: string, plan: PlanName, cycle?: BillingCycle): Promise<PlanChange> {
    return changePlan(this.b, accountId, plan, cycle);
  }
  cancel(accountId: string): Promise<BillingRecord> {
    return lifecycle.cancel(this.b, accountId);
  }
  restore(accountId: string): Promise<Account> {
    return lifecycle.restore(this.b, accountId);
  }
  terminate(account: Account, now: number, why: string): Promise<void> {
    return lifecycle.terminate(this.b, account, now, why);
  }
  paymentFailed(accountId: string): Promise<BillingRecord> {
    return dunning.paymentFailed(this.b, accountId);
  }
  paymentSucceeded(accountId: string): Promise<Account> {
    return dunning.paymentSucceeded(this.b, accountId);
  }
  setWebhook(accountId: string, url: string | null, opts: { allowPrivate?: boolean } = {}): Promise<void> {
    return settings.setWebhook(this.b, accountId, url, opts);
  }
  setCustomLimits(accountId: string, limits: settings.CustomLimits): Promise<BillingRecord> {
    return settings.setCustomLimits(this.b, accountId, limits);
  }

  /** One scheduler pass: the only code that closes periods by the clock (besides plan changes and cancellation). */
  runScheduler(): Promise<SchedulerPass> {
    return runScheduler(this.b);
  }
  /** The retention purge alone (the scheduler runs it at the end of every pass), in batches of `batch` rows. */
  purgeRetention(batch?: number): Promise<RetentionPass> {
    return purgeRetention(this.b, batch);
  }
  startScheduler(intervalMs: number, onError: (err: unknown) => void): void {
    this.scheduler.start(intervalMs, onError);
  }
  stopScheduler(): Promise<void> {
    return this.scheduler.stop();
  }

  info(account: Account): Promise<view.BillingInfo> {
    return view.billingInfo(this.b, account);
  }
  invoiceList(account: Account): Promise<view.InvoiceSummary[]> {
    return view.invoiceList(this.b, account);
  }
  /** The invoice as a PDF document, printed by Chromium once and stored (invoicePdf.ts). */
  async invoicePdf(account: Account, id: string): Promise<Buffer> {
    return this.pdfs.get(await view.invoiceOf(this.b, account, id), account);
  }
}
