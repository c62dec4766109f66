// Page time per caller who pays nothing per render: each trial account and each anonymous
// client address (IPv4, or IPv6 /64) has a bucket of page milliseconds, spent by every render it
// starts, failed ones included (a callback that never returns costs a whole render deadline),
// and earned back at a steady rate. An empty bucket refuses further renders at once with 429
// and Retry-After, before they take a page. Like the short-chart re-render budget, but for
// renders callers ask for.
//
// In memory, per instance (bounded LRU): page time is the instance's own resource (its pool),
// so each instance protects its pages; N instances behind a balancer allow a caller at most N
// buckets, still a bound where before there was none (the per-IP window and the trial rate
// limits, which are shared, keep bounding how many renders there are).
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import { AppError, rateLimitExceeded, rateLimited } from '../errors.js';

export interface PageBudgetLimits {
  /** PAGE_BUDGET_MS: page time a caller may spend at once. */
  budgetMs: number;
  /** PAGE_BUDGET_REFILL_MS_PER_MIN: page time earned back each minute. */
  refillMsPerMin: number;
}

/** Callers remembered at once; the oldest-touched are forgotten (a forgotten caller starts full). */
const MAX_CALLERS = 100_000;
/** Retry-After when nothing is earned back (refill 0): an hour. */
const NO_REFILL_RETRY_MS = 3_600_000;

interface Bucket {
  ms: number;
  at: number;
}

/** Whose bucket: a trial account (its 429 is rate_limit_exceeded, as its other limits) or an address (rate_limited, as the open endpoint's window). */
export type BudgetedCaller = { account: string } | { address: string };

export class PageBudget {
  private readonly buckets = new LRUCache<string, Bucket>({ max: MAX_CALLERS });

  constructor(
    private readonly clock: Clock,
    readonly limits: PageBudgetLimits,
  ) {}

  /** Throws the 429 when the caller has no page time left; otherwise nothing is taken yet (charge() after). */
  admit(caller: BudgetedCaller): void {
    const left = this.left(nameOf(caller));
    if (left > 0) return;
    const perMs = this.limits.refillMsPerMin / 60_000;
    const retryMs = perMs > 0 ? Math.ceil((1 - left) / perMs) : NO_REFILL_RETRY_MS;
    const detail = `page time spent: at most ${this.limits.budgetMs} ms at once and ${this.limits.refillMsPerMin} ms a minute of rendering (failed renders count)`;
    throw 'account' in caller ? rateLimitExceeded(retryMs / 1000, detail) : rateLimited(retryMs / 1000, detail);
  }

  /** Spends `pageMs` of the caller's page time (the bucket may go below zero: the next render waits for it). */
  charge(caller: BudgetedCaller, pageMs: number): void {
    if (!(pageMs > 0)) return;
    const name = nameOf(caller);
    this.buckets.set(name, { ms: this.left(name) - pageMs, at: this.clock.now() });
  }

  /**
   * Runs `render` for the caller: refused at once when its budget is spent, else charged what
   * the render cost: `spentMs` of its result, or, when it fails, the time until it failed
   * (a timeout is a whole deadline of a page). A busy pool (503) is not the caller's spending.
   * `render` gets `later`, to charge what its page spent after the answer (a reset after caller
   * code, a page stopped or replaced: PageRequest.onReleased), whichever way the render ended.
   */
  async run<T>(caller: BudgetedCaller, render: (later: (pageMs: number) => void) => Promise<T>, spentMs: (value: T) => number): Promise<T> {
    this.admit(caller);
    const started = performance.now();
    try {
      const value = await render((pageMs) => this.charge(caller, pageMs));
      this.charge(caller, spentMs(value));
      return value;
    } catch (err) {
      if (!(err instanceof AppError && err.status === 503)) this.charge(caller, performance.now() - started);
      throw err;
    }
  }

  private left(name: string): number {
    const b = this.buckets.get(name);
    if (!b) return this.limits.budgetMs;
    const earned = Math.max(0, this.clock.now() - b.at) * (this.limits.refillMsPerMin / 60_000);
    return Math.min(this.limits.budgetMs, b.ms + earned);
  }
}

const nameOf = (c: BudgetedCaller): string => ('account' in c ? `account:${c.account}` : `address:${c.address}`);
