// Store interfaces for usage counters, rate-limit windows, trial sign-ups, billing and the
// outbox. Promise-returning like the rest of the Store, so counters can move to Redis and
// billing to PostgreSQL without touching the services. Every method that checks and changes
// a counter does both atomically.
import type { PlanName } from '../rules/plans.js';
import type { RateDecision, RateLimits } from '../rules/rateLimit.js';
import type { BillingCycle } from '../rules/pricing.js';

export interface UsageCount {
  used: number;
  reserved: number;
}

export interface RenderStat {
  renderMs: number;
  cacheHit: boolean;
}

/** One successful generation to count: UsageStore.commit's arguments, for a write that counts it in its own transaction. */
export interface GenerationCount {
  accountId: string;
  periodStart: number;
  /** The reservation it used (UsageStore.reserve's id, trial), or null. */
  reservation: number | null;
  day: number;
  stat: RenderStat;
}

export interface UsageTotals {
  requests: number;
  succeeded: number;
  renders: number;
  renderMs: number;
  cacheHits: number;
}

export interface OutboxItem {
  kind: 'webhook' | 'email';
  accountId: string;
  /** URL (webhook) or address (email). */
  target: string;
  subject: string | null;
  body: string;
}

export interface OutboxRecord extends OutboxItem {
  id: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** Who holds a reservation and until when: an instance's reservations outlive it by the lease at most. */
export interface ReservationLease {
  /** The instance's id (one per process). */
  owner: string;
  now: number;
  /** The reservation stops counting against the cap at now + leaseMs. */
  leaseMs: number;
}

export interface UsageStore {
  /**
   * Reserves one generation unless used + live reservations would pass `cap` (null: no cap);
   * returns the reservation's id, or null when refused. Reservations whose lease passed are not counted.
   */
  reserve(accountId: string, periodStart: number, cap: number | null, lease: ReservationLease): Promise<number | null>;
  /** One successful generation: used + 1 (its reservation dropped, if any), plus the day's render stats. Returns used. */
  commit(accountId: string, periodStart: number, reservation: number | null, day: number, stat: RenderStat): Promise<number>;
  /** A reserved generation that failed: the reservation is dropped, nothing counted. */
  release(reservation: number): Promise<void>;
  /** used, and reserved = reservations held (expired ones included until they are cleared). */
  get(accountId: string, periodStart: number): Promise<UsageCount>;
  /** Sets the used count (administration and tests). */
  setUsed(accountId: string, periodStart: number, used: number): Promise<void>;
  /** One authenticated API request and whether it succeeded (analytics). */
  recordRequest(accountId: string, day: number, ok: boolean): Promise<void>;
  /** Render time of a generation counted before its render ended (commit with renderMs 0), added to the day's stats (analytics). */
  addRenderMs(accountId: string, day: number, renderMs: number): Promise<void>;
  /** Takes back a generation counted before its render, which then failed: used - 1 and the day's renders - 1. */
  uncount(accountId: string, periodStart: number, day: number): Promise<void>;
  totals(accountId: string, fromDay: number, toDay: number): Promise<UsageTotals>;
  /** Marks a threshold of a period as reached and enqueues its notifications, both once. True the first time. */
  markThreshold(accountId: string, periodStart: number, threshold: number, at: number, notify: OutboxItem[]): Promise<boolean>;
  /** At an instance's start nothing of its own is in flight: drops its reservations, and every expired one (owner null: every reservation, for a store one process uses alone). */
  clearReservations(owner: string | null, now: number): Promise<void>;
}

export interface RateLimitStore {
  /** Takes one request from the subject's windows when allowed; returns the decision either way. */
  hit(subject: string, limits: RateLimits, now: number): Promise<RateDecision>;
  /** The decision a request would get now, without taking anything. */
  peek(subject: string, limits: RateLimits, now: number): Promise<RateDecision>;
}

export interface TrialSignupStore {
  /** Claims the trial of an address unless one was claimed within windowMs; else when the next is possible. */
  claim(ipHash: string, now: number, windowMs: number): Promise<{ ok: true; claimId: number } | { ok: false; retryAt: number }>;
  attach(claimId: number, accountId: string): Promise<void>;
  drop(claimId: number): Promise<void>;
}

export interface BillingRecord {
  accountId: string;
  cycle: BillingCycle;
  periodStart: number;
  periodEnd: number;
  /** The plan whose fee this period carries (the plan at the period's start). */
  periodPlan: PlanName;
  /** The plan paid for now: raised by upgrades at once, lowered only at the next period. */
  billedPlan: PlanName;
  pendingCycle: BillingCycle | null;
  cancelAtPeriodEnd: boolean;
  /** Cancelled accounts: read-only until then, terminated after. */
  readOnlyUntil: number | null;
  paymentFailedAt: number | null;
  /** Dunning steps done: 1 = day 1, 2 = day 3, 3 = day 7, 4 = suspended (day 10). */
  dunningStage: number;
  webhookUrl: string | null;
  customCharts: number | null;
  customPerMinute: number | null;
  customPerHour: number | null;
  customBurst: number | null;
  customPricePence: number | null;
  /** Enterprise: days of analytics kept (null: kept for good). */
  customRetentionDays: number | null;
  /** Enterprise: volume discount percent above 10M charts a month (null: the 5M-10M rate). */
  customDiscountPercent: number | null;
}

export interface InvoiceLine {
  kind: 'plan' | 'proration' | 'overage' | 'credit' | 'discount';
  description: string;
  amountPence: number;
}

export interface Invoice {
  id: string;
  accountId: string;
  issuedAt: number;
  periodStart: number;
  periodEnd: number;
  plan: PlanName;
  cycle: BillingCycle;
  lines: InvoiceLine[];
  totalPence: number;
  status: 'open' | 'paid' | 'failed';
  paidAt: number | null;
}

export interface BillingEvent {
  id: number;
  accountId: string;
  at: number;
  kind: string;
  detail: string | null;
}

export interface BillingStore {
  get(accountId: string): Promise<BillingRecord | null>;
  /** Creates the record unless one exists; returns the stored one. */
  ensure(rec: BillingRecord): Promise<BillingRecord>;
  update(accountId: string, fields: Partial<Omit<BillingRecord, 'accountId'>>): Promise<void>;
  /** Ids of every billable account (not trial, not terminated). */
  accountIds(): Promise<string[]>;
  addLine(accountId: string, periodStart: number, line: InvoiceLine, at: number): Promise<void>;
  lines(accountId: string, periodStart: number): Promise<InvoiceLine[]>;
  /**
   * Closes the period that starts at expectedStart: stores the invoice and moves the record to
   * `next`, atomically; false (and nothing written) when that period was already closed.
   */
  closePeriod(accountId: string, expectedStart: number, invoice: Invoice, next: Partial<Omit<BillingRecord, 'accountId'>>): Promise<boolean>;
  invoices(accountId: string): Promise<Invoice[]>;
  invoice(id: string): Promise<Invoice | null>;
  /** Marks every open or failed invoice of the account paid; returns how many. */
  payInvoices(accountId: string, at: number): Promise<number>;
  failInvoices(accountId: string): Promise<number>;
  addEvent(accountId: string, at: number, kind: string, detail?: string): Promise<void>;
  events(accountId: string): Promise<BillingEvent[]>;
  /** Enqueues outbox items with the event, atomically. */
  addEventWithNotices(accountId: string, at: number, kind: string, detail: string | null, notify: OutboxItem[]): Promise<void>;
}

export interface OutboxStore {
  enqueue(item: OutboxItem, at: number): Promise<number>;
  /**
   * Claims up to `limit` pending items of the given kinds due at `now`, oldest first, for
   * `owner` until now + leaseMs: no other claim takes them before their outcome is recorded or
   * the lease passes (a claimer that died).
   */
  claim(owner: string, now: number, leaseMs: number, limit: number, kinds: readonly OutboxItem['kind'][]): Promise<OutboxRecord[]>;
  /** Delivered: the claim ends. */
  delivered(id: number, at: number): Promise<void>;
  /** A failed attempt: attempts + 1, retried at nextAttemptAt, or given up (status failed) when null; the claim ends. */
  failed(id: number, nextAttemptAt: number | null, error: string): Promise<void>;
  list(accountId?: string): Promise<OutboxRecord[]>;
  /** How many of the account's items with this subject are still pending. */
  pendingCount(accountId: string, subject: string): Promise<number>;
  /** Ends the claims of `owner` (null: every owner's), so their items are due again at once; returns how many. */
  releaseClaims(owner: string | null): Promise<number>;
}

/** Named locks shared by every instance of a store: background jobs that must run on one instance at a time. */
export interface LockStore {
  /** Runs fn while holding the lock `name`; does not run it (ran: false) when another holder has it. */
  tryRun<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
}

export interface MeteringStores {
  readonly locks: LockStore;
  readonly usage: UsageStore;
  readonly rateLimits: RateLimitStore;
  readonly trials: TrialSignupStore;
  readonly billing: BillingStore;
  readonly outbox: OutboxStore;
}
