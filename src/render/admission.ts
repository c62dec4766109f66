// Admission control in front of the page pool: one slot per page, fair round-robin per owner,
// early refusal with Retry-After; no Chromium here. Why: docs/decisions/0006-admission-gate.md.
import { FairQueue } from './fairQueue.js';

/** Exponentially weighted moving average of how long a render holds a page, ms. */
export class Ewma {
  private v: number;
  constructor(
    initial: number,
    private readonly alpha = 0.2,
  ) {
    this.v = initial;
  }
  get value(): number {
    return this.v;
  }
  add(sample: number): void {
    if (Number.isFinite(sample) && sample >= 0) this.v += this.alpha * (sample - this.v);
  }
}

/**
 * The wait a request behind `ahead` others can expect when all `slots` are busy and a slot
 * comes free every holdMs / slots on average. Pure.
 */
export function estimateWaitMs(ahead: number, slots: number, holdMs: number): number {
  return ((ahead + 1) * holdMs) / Math.max(1, slots);
}

export type RefusalReason = 'overloaded' | 'queue_full' | 'timeout' | 'displaced' | 'closing' | 'aborted';

/** Why a request got no slot; retryAfterMs is the estimated time until one would be free. */
export class AdmissionRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    readonly retryAfterMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdmissionRefused';
  }
}

export interface AdmissionOptions {
  /** Renders allowed to hold a page at once (the pool size). */
  slots: number;
  /** Requests allowed to wait at once (MAX_QUEUE); 0 = none wait. */
  maxQueue: number;
  /** The longest a request may wait for a slot (ACQUIRE_TIMEOUT_MS). */
  maxWaitMs: number;
  /** Assumed page hold time before any render was measured, ms. */
  initialHoldMs?: number;
}

export interface AdmissionStats {
  waiting: number;
  refusedEarly: number;
  displaced: number;
  timedOut: number;
  /** Requests that left the queue because their client went away (AbortSignal). */
  abandoned: number;
  avgHoldMs: number;
}

interface Waiter {
  owner: string;
  /** What the request asked for beyond a slot (the pool: its Chart.js version), for handOff. */
  tag: unknown;
  /** undefined: a slot; anything else: what handOff() gave it instead (no slot held). */
  resolve: (handed?: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Removes the abort listener (once the waiter is served, refused or gone). */
  unlisten: (() => void) | undefined;
}

function settle(w: Waiter): void {
  clearTimeout(w.timer);
  w.unlisten?.();
}

// Hot path (a slot is free, nobody waits): `enter` decrements a counter and returns null, with
// no allocation and no timer; `leave` updates one average and increments the counter.
export class AdmissionGate {
  private free: number;
  private readonly queue = new FairQueue<Waiter>();
  private readonly hold: Ewma;
  private counters = { refusedEarly: 0, displaced: 0, timedOut: 0, abandoned: 0 };

  constructor(private readonly opts: AdmissionOptions) {
    this.free = Math.max(1, opts.slots);
    this.hold = new Ewma(opts.initialHoldMs ?? 50);
  }

  /**
   * Takes a slot for `owner`. Returns null when one was free (the slot is held now), otherwise
   * a promise that resolves once a slot is handed to this request, or rejects with
   * AdmissionRefused (at once when the estimated wait exceeds maxWaitMs or the queue is full,
   * later when the wait runs out or a lighter owner displaces it). Every success must be
   * paired with exactly one leave(). A request whose `signal` aborts (its client went away)
   * leaves the queue at once and is refused with reason 'aborted'; one aborted before it
   * came is refused without taking a slot. The promise resolves with undefined for a slot, or
   * with what handOff() gave the request instead of one (then it holds no slot: no leave()).
   * `tag` is what handOff() is told about the request (the pool: its Chart.js version).
   */
  enter(owner: string, signal?: AbortSignal, tag?: unknown): Promise<unknown> | null {
    if (signal?.aborted) {
      this.counters.abandoned++;
      return Promise.reject(new AdmissionRefused('aborted', 0, 'the client went away'));
    }
    if (this.free > 0) {
      this.free--;
      return null;
    }
    const waitMs = estimateWaitMs(this.queue.ahead(owner), this.opts.slots, this.hold.value);
    if (waitMs > this.opts.maxWaitMs) {
      this.counters.refusedEarly++;
      return Promise.reject(
        new AdmissionRefused('overloaded', waitMs - this.opts.maxWaitMs, `server busy: the estimated wait (${Math.round(waitMs)} ms) exceeds ${this.opts.maxWaitMs} ms`),
      );
    }
    if (this.queue.size >= this.opts.maxQueue) {
      // Full: a lighter owner takes the place of the newest request of the heaviest one, so a
      // flood from one key cannot lock everyone else out of the queue.
      const top = this.queue.largest();
      if (!top || top.size <= this.queue.sizeOf(owner) + 1) {
        return Promise.reject(new AdmissionRefused('queue_full', this.drainMs(), 'render queue is full'));
      }
      const victim = this.queue.popNewest(top.owner)!;
      settle(victim);
      this.counters.displaced++;
      victim.reject(new AdmissionRefused('displaced', this.drainMs(), 'render queue is full'));
    }
    return new Promise<unknown>((resolve, reject) => {
      const w: Waiter = { owner, tag, resolve, reject, timer: undefined, unlisten: undefined };
      w.timer = setTimeout(() => {
        if (!this.queue.remove(w.owner, w)) return;
        settle(w);
        this.counters.timedOut++;
        reject(new AdmissionRefused('timeout', this.drainMs(), `no renderer free within ${this.opts.maxWaitMs} ms`));
      }, this.opts.maxWaitMs);
      if (signal) {
        const onAbort = () => {
          if (!this.queue.remove(w.owner, w)) return;
          settle(w);
          this.counters.abandoned++;
          reject(new AdmissionRefused('aborted', 0, 'the client went away'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        w.unlisten = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(owner, w);
    });
  }

  /** Takes a slot only when one is free and nobody waits: for background work (a page switched
   *  back to the default Chart.js version), which must never delay a request. Paired with leave(). */
  tryEnter(): boolean {
    if (this.free <= 0 || this.queue.size > 0) return false;
    this.free--;
    return true;
  }

  /** Gives a slot back after holding it heldMs (undefined: not a sample); the next waiter
   *  (round-robin) gets it. */
  leave(heldMs?: number): void {
    if (heldMs !== undefined) this.hold.add(heldMs);
    const w = this.queue.shift();
    if (!w) {
      this.free = Math.min(this.free + 1, this.opts.slots);
      return;
    }
    settle(w);
    w.resolve();
  }

  /**
   * Serves the next waiter (round-robin, as leave() would) with `handed` instead of a slot,
   * when its tag is accepted: the pool's ride behind a page's render (pool.ts). False when
   * nobody waits or the next waiter's tag is not accepted; nobody is skipped over.
   */
  handOff(handed: unknown, accepts: (tag: unknown) => boolean): boolean {
    const next = this.queue.peek();
    if (!next || !accepts(next.tag)) return false;
    const w = this.queue.shift()!;
    settle(w);
    w.resolve(handed);
    return true;
  }

  /** Every slot is held and nobody waits: a request now would be the first in the queue. */
  full(): boolean {
    return this.free <= 0 && this.queue.size === 0;
  }

  /** A render's hold time that ended no slot's hold (a ride). */
  sample(heldMs: number): void {
    this.hold.add(heldMs);
  }

  /** Refuses everyone waiting (shutdown). */
  close(): void {
    for (let w = this.queue.shift(); w; w = this.queue.shift()) {
      settle(w);
      w.reject(new AdmissionRefused('closing', 1000, 'shutting down'));
    }
  }

  stats(): AdmissionStats {
    return { waiting: this.queue.size, ...this.counters, avgHoldMs: this.hold.value };
  }

  /** Estimated time until everything queued now has been served. */
  private drainMs(): number {
    return estimateWaitMs(this.queue.size, this.opts.slots, this.hold.value);
  }
}
