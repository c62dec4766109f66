// Usage: the one place generations are admitted and counted (UsageRecorder), the per-account
// rate limits, the usage_threshold notifications and the usage analytics.
//
// Counting is exact under concurrency, across instances: admit() reserves a generation atomically
// in the store (trial: only while used + reserved < 100), commit() turns the reservation into a
// count, and release() drops it when the render failed. A reservation belongs to this instance
// and lapses after its lease, so a killed instance's leftovers stop counting. pk_test_ keys are
// never counted.
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { forbidden, invalidInput, rateLimitExceeded, trialLimitReached } from '../errors.js';
import { analyticsRetentionDays } from '../rules/retention.js';
import type { RateDecision } from '../rules/rateLimit.js';
import type { Account, Store } from '../store/types.js';
import type { BillingRecord, GenerationCount, OutboxItem } from '../store/metering.js';
import type { AuthContext } from './accounts.js';
import type { Clock } from '../clock.js';
import { DAY_MS, UNLIMITED } from '../rules/pricing.js';
import { email, notices } from './billing/emails.js';
import { rateLimitsFor } from './billing/limits.js';
import type { PeriodReader } from './billing/periods.js';
import { BillingRecordCache } from './billing/recordCache.js';
import type { GenerationOutcome, UsageRecorder, UsageTicket } from './charts.js';

/** Percentages of the monthly allowance that send usage_threshold (webhook), once each per period. */
export const THRESHOLDS = [80, 95, 100] as const;
/** Marker for the "overage started" e-mail (first generation beyond the allowance). */
const OVERAGE_MARK = 101;

export interface UsageAnalytics {
  currentUsage: { period: string; count: number; limit: number; remaining: number; resetTime: string };
  quickStats: { totalRequests: number; successRate: number; averageRenderTime: number; cacheHitRate: number };
}

const noTicket: UsageTicket = {
  commit: async () => {},
  commitWith: async (_outcome, write) => {
    await write(null);
  },
  release: async () => {},
};
/** A reservation outlives any render (queue wait and render timeout included) by far. */
export const RESERVATION_LEASE_MS = 10 * 60_000;

export interface UsageOptions {
  /** This instance's id (one per process): its reservations are its own. */
  instanceId?: string;
  reservationLeaseMs?: number;
}

/**
 * A render may start while its rate limit is still being decided (decideWhileRendering) when
 * this instance's last decision for the account, at most this old, left at least
 * DECIDE_WHILE_RENDERING_ROOM requests of room. Each such start takes one from that estimate,
 * so between two decisions at most that room minus the margin can start early: a denied
 * request wastes a render only when other instances emptied the bucket meanwhile, and never
 * while the account is at its limit (its last decision then says so).
 */
export const DECIDE_WHILE_RENDERING_ROOM = 5;
const DECIDE_WHILE_RENDERING_MS = 10_000;

/** Days of quickStats when the request names none. */
const DEFAULT_ANALYTICS_DAYS = 30;
const dayOf = (ms: number) => Math.floor(ms / DAY_MS);
const round1 = (n: number) => Math.round(n * 10) / 10;

export class UsageService implements UsageRecorder {
  /** Thresholds already marked in the store ("acct|period|t"): skips the store after the first time. */
  private readonly marked = new Set<string>();
  /** The billing record as read for one request (its AuthContext): the rate check and the period share one read. */
  private readonly billingReads = new WeakMap<AuthContext, Promise<BillingRecord | null>>();
  /** Billing records between requests, while no change can have reached them (recordCache.ts says why). */
  private readonly billingRecords: BillingRecordCache;
  /** The room this instance's last rate decision left each account (decideWhileRendering). */
  private readonly lastRoom = new LRUCache<string, { remaining: number; at: number }>({ max: 10_000 });
  readonly instanceId: string;
  private readonly leaseMs: number;

  constructor(
    private readonly store: Pick<Store, 'usage' | 'rateLimits' | 'billing' | 'exclusive' | 'authVersion'>,
    private readonly periods: PeriodReader,
    private readonly clock: Clock,
    opts: UsageOptions = {},
  ) {
    this.instanceId = opts.instanceId ?? randomUUID();
    this.leaseMs = opts.reservationLeaseMs ?? RESERVATION_LEASE_MS;
    this.billingRecords = new BillingRecordCache(store, clock);
  }

  /** At start nothing of this instance is in flight: its reservations (and expired ones) are dropped; other instances' stay. */
  async start(): Promise<void> {
    // a store this process uses alone: whatever an earlier process reserved is not in flight
    await this.store.usage.clearReservations(this.store.exclusive ? null : this.instanceId, this.clock.now());
  }

  // ---- admission (UsageRecorder) ------------------------------------------------------

  async admit(auth: AuthContext): Promise<UsageTicket> {
    if (auth.account.status !== 'active') throw forbidden(`account is ${auth.account.status}: new charts are disabled`);
    if (auth.key.kind === 'test') return noTicket;
    const accountId = auth.account.id;
    // A read: closing ended periods (and invoicing them) is the billing scheduler's job, never a render's.
    const period = await this.periods.currentPeriod(auth.account, () => this.billingOf(auth));
    let reservation: number | null = null;
    if (period.trial) {
      const lease = { owner: this.instanceId, now: this.clock.now(), leaseMs: this.leaseMs };
      reservation = await this.store.usage.reserve(accountId, period.start, period.limit, lease);
      if (reservation === null) throw this.trialLimit(auth);
    }
    let done = false;
    const commitWith = async (outcome: GenerationOutcome, write: (count: GenerationCount) => Promise<number | null>): Promise<void> => {
      if (done) throw new Error('usage ticket already settled');
      const now = this.clock.now();
      const stat = { renderMs: outcome.renderMs, cacheHit: outcome.cacheHit ?? false };
      const used = await write({ accountId, periodStart: period.start, reservation, day: dayOf(now), stat });
      done = true;
      if (used !== null && period.limit !== null) await this.checkThresholds(auth.account, period.start, period.limit, used, period.trial, now);
    };
    return {
      commit: async (outcome) => {
        if (done) return;
        await commitWith(outcome, (g) => this.store.usage.commit(g.accountId, g.periodStart, g.reservation, g.day, g.stat));
      },
      commitWith,
      release: async () => {
        if (done) return;
        done = true;
        if (reservation !== null) await this.store.usage.release(reservation);
      },
      // a reservation is settled by the count itself: only generations without one count early
      ...(reservation === null && {
        countNow: async () => {
          if (done) throw new Error('usage ticket already settled');
          done = true;
          const day = dayOf(this.clock.now());
          const used = await this.store.usage.commit(accountId, period.start, null, day, { renderMs: 0, cacheHit: false });
          let settled = false;
          const settle = () => {
            if (settled) throw new Error('usage ticket already settled');
            settled = true;
          };
          return {
            finish: async (outcome: GenerationOutcome) => {
              settle();
              // analytics only: the counted answer stands when it cannot be written (a write left
              // behind keeps its time for the next; the request's own analytics write logs the failure)
              await this.store.usage.addRenderMs(accountId, day, outcome.renderMs).catch(() => {});
              // thresholds once the generation is known to have succeeded
              if (period.limit !== null) await this.checkThresholds(auth.account, period.start, period.limit, used, false, this.clock.now());
            },
            takeBack: async () => {
              settle();
              await this.store.usage.uncount(accountId, period.start, day);
            },
          };
        },
      }),
    };
  }

  /** True when a trial has used all of its generations (checked before the rate limits). */
  async trialExhausted(auth: AuthContext): Promise<boolean> {
    if (auth.account.plan !== 'trial' || auth.key.kind === 'test') return false;
    const { used } = await this.store.usage.get(auth.account.id, 0);
    return used >= (auth.plan.chartsPerPeriod ?? Infinity);
  }

  /** 429 trial_limit_reached; Retry-After is the time left until the trial key expires. */
  private trialLimit(auth: AuthContext) {
    const left = auth.key.expiresAt === null ? undefined : (auth.key.expiresAt - this.clock.now()) / 1000;
    return trialLimitReached(undefined, left);
  }

  // ---- rate limits --------------------------------------------------------------------

  /** Limits are per account (all its keys share them): more keys do not buy more throughput. */
  async rateCheck(auth: AuthContext, take: boolean): Promise<RateDecision> {
    const rec = auth.account.plan === 'enterprise' ? await this.billingOf(auth) : null;
    const limits = rateLimitsFor(auth.account, rec);
    const now = this.clock.now();
    if (!take) return this.store.rateLimits.peek(auth.account.id, limits, now);
    const d = await this.store.rateLimits.hit(auth.account.id, limits, now);
    this.lastRoom.set(auth.account.id, { remaining: d.allowed ? d.remaining : 0, at: now });
    return d;
  }

  /**
   * True when the request's render may start before its rate limit is decided (the route then
   * answers nothing, and counts nothing, until gate() has): the account is not on a trial (whose
   * cap is checked first), and this instance's last decision for it, recent, left room. Takes
   * one from that room.
   */
  decideWhileRendering(auth: AuthContext): boolean {
    if (auth.account.plan === 'trial') return false;
    const last = this.lastRoom.get(auth.account.id);
    const now = this.clock.now();
    if (!last || now < last.at || now - last.at >= DECIDE_WHILE_RENDERING_MS || last.remaining < DECIDE_WHILE_RENDERING_ROOM) return false;
    last.remaining--;
    return true;
  }

  /** The account's billing record, one read per request (and none while the cached one stands). */
  private billingOf(auth: AuthContext): Promise<BillingRecord | null> {
    let read = this.billingReads.get(auth);
    if (!read) {
      read = this.billingRecords.get(auth.account.id);
      this.billingReads.set(auth, read);
    }
    return read;
  }

  /** Admits one request through the trial cap and the rate limits; `headers` receives the rate-limit headers either way. */
  async gate(auth: AuthContext, headers: (d: RateDecision) => void, generation: boolean): Promise<void> {
    if (generation && (await this.trialExhausted(auth))) {
      headers(await this.rateCheck(auth, false));
      throw this.trialLimit(auth);
    }
    const d = await this.rateCheck(auth, true);
    headers(d);
    if (!d.allowed) throw rateLimitExceeded(d.retryAfterS, `rate limit of the ${auth.plan.name} plan exceeded; retry in ${d.retryAfterS} s`);
  }

  async recordRequest(accountId: string, ok: boolean): Promise<void> {
    await this.store.usage.recordRequest(accountId, dayOf(this.clock.now()), ok);
  }

  // ---- thresholds ---------------------------------------------------------------------

  private async checkThresholds(account: Account, periodStart: number, limit: number, used: number, trial: boolean, now: number): Promise<void> {
    if (limit <= 0) return;
    for (const t of THRESHOLDS) {
      if (used < Math.ceil((limit * t) / 100)) break;
      await this.mark(account, periodStart, t, now, async () => {
        const notes: OutboxItem[] = [];
        const rec = await this.store.billing.get(account.id);
        if (rec?.webhookUrl) {
          notes.push({
            kind: 'webhook',
            accountId: account.id,
            target: rec.webhookUrl,
            subject: 'usage_threshold',
            body: JSON.stringify({ event: 'usage_threshold', threshold: t, current_usage: used, limit, account_id: account.id }),
          });
        }
        if (account.email && (t < 100 || trial)) {
          notes.push(email(account, t < 100 ? notices.usageThreshold(t, used, limit) : notices.trialUsedUp(limit)));
        }
        return notes;
      });
    }
    if (!trial && used > limit && account.email) {
      await this.mark(account, periodStart, OVERAGE_MARK, now, async () => [
        email(account, notices.overageStarted(limit)),
      ]);
    }
  }

  private async mark(account: Account, periodStart: number, t: number, now: number, notes: () => Promise<OutboxItem[]>): Promise<void> {
    const k = `${account.id}|${periodStart}|${t}`;
    if (this.marked.has(k)) return;
    await this.store.usage.markThreshold(account.id, periodStart, t, now, await notes());
    if (this.marked.size > 100_000) this.marked.clear();
    this.marked.add(k);
  }

  // ---- analytics ----------------------------------------------------------------------

  /** `days` (default 30, or the whole window when shorter) reaches back at most as far as analytics are kept (400 beyond). */
  async analytics(account: Account, asked?: number): Promise<UsageAnalytics> {
    const rec = account.plan === 'enterprise' ? await this.store.billing.get(account.id) : null;
    const kept = analyticsRetentionDays(account.plan, rec?.customRetentionDays ?? null);
    const days = asked ?? Math.min(DEFAULT_ANALYTICS_DAYS, kept ?? DEFAULT_ANALYTICS_DAYS);
    if (kept !== null && days > kept) throw invalidInput(`days must be at most ${kept} on the ${account.plan} plan`);
    const period = await this.periods.currentPeriod(account);
    const { used } = await this.store.usage.get(account.id, period.start);
    const limit = period.limit ?? UNLIMITED;
    const today = dayOf(this.clock.now());
    const t = await this.store.usage.totals(account.id, today - days + 1, today);
    const generations = t.renders + t.cacheHits;
    return {
      currentUsage: {
        period: period.trial ? 'trial' : new Date(period.start).toISOString().slice(0, 7),
        count: used,
        limit,
        remaining: Math.max(0, limit - used),
        resetTime: new Date(period.end).toISOString(),
      },
      quickStats: {
        totalRequests: t.requests,
        successRate: t.requests ? round1((t.succeeded / t.requests) * 100) : 0,
        averageRenderTime: t.renders ? round1(t.renderMs / t.renders) : 0,
        cacheHitRate: generations ? round1((t.cacheHits / generations) * 100) : 0,
      },
    };
  }
}
