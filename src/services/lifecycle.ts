// Where the process is in its life: serving, draining (told to stop: not ready, still accepting
// for a grace period so that requests routed before the load balancer noticed still land), or
// refusing (after the grace: new requests get 503 with Retry-After while the ones already
// connected, in flight or queued are answered). Why: docs/decisions/0035-drain.md.
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';

export type Phase = 'serving' | 'draining' | 'refusing';

export class Lifecycle {
  private current: Phase = 'serving';
  /** Wall time the drain began and the refusal began (ms since the epoch); 0 = not yet. */
  drainingSince = 0;
  refusingSince = 0;
  /** Requests being answered now (the drain waits for them). */
  private active = 0;
  private idle: Array<() => void> = [];
  private draining: Array<() => void> = [];

  constructor(private readonly clock: Clock = systemClock) {}

  get phase(): Phase {
    return this.current;
  }

  /** Not ready from now on: load balancers and readiness probes see it at once. */
  startDraining(): void {
    if (this.current !== 'serving') return;
    this.current = 'draining';
    this.drainingSince = this.clock.now();
    for (const f of this.draining.splice(0)) f();
  }

  /** Calls `f` when the drain begins (at once if it has). */
  onDraining(f: () => void): void {
    if (this.current === 'serving') this.draining.push(f);
    else f();
  }

  /** The grace is over: requests that arrive from now on are refused. */
  startRefusing(): void {
    if (this.current === 'refusing') return;
    if (this.current === 'serving') this.startDraining();
    this.current = 'refusing';
    this.refusingSince = this.clock.now();
  }

  /** A request began; the function it returns says it ended (once). */
  begin(): () => void {
    this.active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.active === 0) for (const f of this.idle.splice(0)) f();
    };
  }

  get inFlight(): number {
    return this.active;
  }

  /** Resolves once no request is being answered (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
