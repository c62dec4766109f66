// Rides (decision 33): a render sent to a leased page behind the one it is drawing, and the
// chain of renders a leased page carries until the last ends and the page goes back. The pool
// (pool.ts) leases pages and sends renders; this book keeps each leased page's chain, offers the
// place behind a render to whoever waits at the gate, and says when a page is free to go back.
import type { AdmissionGate } from './admission.js';
import type { ChartjsVersion } from './harness.js';
import type { PageResult, RenderPage } from './page.js';
import type { ResetReason } from './resetReasons.js';
import type { WireRequest } from './wire.js';

/**
 * A place behind the render a page is drawing: a waiting request handed one (AdmissionGate
 * handOff) sends its render to that page at once, to run as soon as the one ahead of it ends,
 * instead of waiting for the answer to cross back to Node and the page to be given back
 * (about 1-3 ms a render in which the page draws nothing). docs/decisions/0033-rides.md.
 */
export interface Ride {
  readonly page: RenderPage;
  /** The render ahead of it (settles either way). */
  readonly behind: Promise<unknown>;
}

/** The renders sent to one leased page since it was leased: it goes back when the last ends. */
export interface Chain {
  /** Renders sent (or rides handed out) and not ended yet. */
  count: number;
  /** Why the page must be reset before anyone else may use it (the first render of the chain
   *  that needs it names it); null: no reset. */
  reset: ResetReason | null;
  /** performance.now() at lease. */
  readonly leased: number;
  /** A ride handed out behind the last render and not sent yet. */
  riding: boolean;
  /** The last render sent, when a ride may still go behind it (none handed out yet). */
  open: Promise<unknown> | null;
  /** When that render was sent (performance.now()): the oldest is likely the first to end. */
  openedAt: number;
  /** When the render ahead of the next one ended (performance.now()): each render's own hold time. */
  lastEnd: number;
  /** Renders that left the page to be reset, and when each ended: they pay for the page's time
   *  after their answer (PageRequest.onReleased). */
  payers: Payer[];
}

export interface Payer {
  readonly pay: (pageMs: number) => void;
  readonly endedAt: number;
}

/**
 * Renders that may have a ride behind them: ones the page answers synchronously (a deflated
 * config and images make it await: a ride would run in the middle of them) and that run no
 * caller code. The page would refuse a ride behind caller code it cannot prove pure, after the
 * ride crossed for nothing; a config with function strings is not worth the guess (the rule of
 * src/chart/callerCode.ts mayRunCallerCode, read off the config's text, escapes counted as
 * those words: a key with them in it only costs a ride). A render that fails is only known when it ended: the page refuses
 * the ride behind it then.
 */
function rideable(wire: WireRequest): boolean {
  if ('configDeflated' in wire && wire.configDeflated !== undefined) return false;
  if (wire.images !== undefined || wire.configJs !== undefined) return false;
  if (!wire.allowFunctions) return true;
  const json = 'configJson' in wire && typeof wire.configJson === 'string' ? wire.configJson : null;
  // the caller's own JSON text: "\u0066unction" is "function" once the page parses it, so any
  // \u escape counts as one of those words (JSON has no other escape that makes a letter, = or >)
  return json !== null && !json.includes('function') && !json.includes('=>') && !json.includes('\\u');
}

/** What the book asks of the pool. */
export interface RideHost {
  /** The pool is closing: no ride is offered or opened. */
  closing(): boolean;
  /** The last render of a page's chain ended: the page goes back (reset as `reset` says). */
  back(rp: RenderPage, reset: ResetReason | null, lastEnd: number, payers: readonly Payer[]): void;
}

export class RideBook {
  /** The leased pages' chains of renders (rides included). */
  private readonly chains = new Map<RenderPage, Chain>();

  constructor(
    private readonly gate: Pick<AdmissionGate, 'handOff' | 'full' | 'sample'>,
    private readonly host: RideHost,
  ) {}

  /** A page just leased (performance.now() `leased`): its chain, with its first render. */
  lease(rp: RenderPage, leased: number): Chain {
    const chain: Chain = { count: 1, reset: null, leased, riding: false, open: null, openedAt: 0, lastEnd: leased, payers: [] };
    this.chains.set(rp, chain);
    return chain;
  }

  /** The chain of a leased page (a ride's: handed out behind one of its renders). */
  chainOf(rp: RenderPage): Chain {
    return this.chains.get(rp)!;
  }

  /**
   * A render `p` was just sent on a leased page (behind another one for a ride). Once it is the
   * one the page draws (at once, or when the render ahead of it ended), a ride behind it is
   * offered to the next request waiting, when it allows one: at most one render waits in a page,
   * so queueing stays with the admission gate (its limits, its fairness, its Retry-After).
   */
  sent(rp: RenderPage, chain: Chain, wire: WireRequest, p: Promise<PageResult>, behind?: Promise<unknown>): void {
    chain.open = null;
    // no ride behind a render the page awaits, or one that may be the page's last before it recycles
    if (!rideable(wire) || rp.renders + chain.count + 1 >= rp.maxRenders) return;
    let over = false;
    // settles when the render does, either way; an open place behind it closes then
    const done = () => {
      over = true;
      if (chain.open === behindIt) chain.open = null;
    };
    const behindIt: Promise<void> = p.then(done, done);
    const offer = () => {
      // not on a page that is dead, interrupted or going away, nor behind a render already over
      if (over || this.host.closing() || chain.riding || chain.count === 0 || this.chains.get(rp) !== chain || rp.dead || rp.wasInterrupted) return;
      if (this.gate.handOff({ page: rp, behind: behindIt } satisfies Ride, (tag) => tag === rp.version)) {
        chain.count++;
        chain.riding = true;
        return;
      }
      // nobody waits: the first request to come while it draws rides behind it
      chain.open = behindIt;
      chain.openedAt = performance.now();
    };
    if (behind) void behind.then(offer);
    else offer();
  }

  /** A ride for a request that would otherwise queue: behind the oldest render of its version
   *  that still takes one. Only when no page is free and nobody waits (nobody is overtaken). */
  open(version: ChartjsVersion): Ride | null {
    if (this.host.closing() || !this.gate.full()) return null;
    let best: [RenderPage, Chain] | null = null;
    for (const [rp, chain] of this.chains) {
      if (!chain.open || chain.riding || rp.dead || rp.wasInterrupted || rp.version !== version) continue;
      if (!best || chain.openedAt < best[1].openedAt) best = [rp, chain];
    }
    if (!best) return null;
    const [page, chain] = best;
    const ride: Ride = { page, behind: chain.open! };
    chain.open = null;
    chain.count++;
    chain.riding = true;
    return ride;
  }

  /** One render of a page's chain ended: the page goes back when it was the last. */
  ended(rp: RenderPage, chain: Chain, reset: ResetReason | null, onReleased?: (pageMs: number) => void): void {
    const now = performance.now();
    // the first render that needs a reset names it (a ride refused behind it is its consequence)
    chain.reset ??= reset;
    if (reset && onReleased) chain.payers.push({ pay: onReleased, endedAt: now });
    if (--chain.count > 0) {
      // a ride's own hold time, from when the render ahead of it ended
      this.gate.sample(now - chain.lastEnd);
      chain.lastEnd = now;
      return;
    }
    this.chains.delete(rp);
    this.host.back(rp, chain.reset, chain.lastEnd, chain.payers);
  }
}
