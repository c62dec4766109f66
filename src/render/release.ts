// A leased page going back to the pool: as it is, reset (its harness loaded again, its storage
// cleared) or replaced, as what its renders did requires, then its admission slot freed. The
// deadlines of each step: pageTimes.ts. Why a page is reset or replaced: resetReasons.ts.
import type { Logger } from '../log.js';
import type { RenderPage } from './page.js';
import { INTERRUPTED_RESET_MS, pageLoadDeadlineMs } from './pageTimes.js';
import type { ResetReason, ResetTally } from './resetReasons.js';
import type { Payer } from './rides.js';

/** The pool's counters a return moves. */
export interface ReturnCounters {
  pageResets: number;
  renderInterrupts: number;
  busyAfterRender: number;
  resetCollections: number;
  resetsGivenUp: number;
}

/** What a return needs of the pool. */
export interface ReturnDeps {
  /** The page, destroyed (generic-pool makes a new one). */
  destroy(rp: RenderPage): Promise<void>;
  /** The page, back in the pool as it is (affinity.ts). */
  release(rp: RenderPage): Promise<void>;
  /** The page's admission slot, freed; `heldMs`: its hold time, a sample of the gate's average. */
  leave(heldMs?: number): void;
  counters: ReturnCounters;
  resets: ResetTally;
  renderTimeoutMs: number;
  log: Logger;
}

/**
 * Returns (or replaces) a page, then frees its gate slot: exactly once per lease. `leased`
 * (performance.now() at lease) feeds the gate's average hold time; undefined = no sample.
 * `payers`: the renders that left it to be reset, charged the time until it is back.
 */
export async function giveBack(deps: ReturnDeps, rp: RenderPage, needed: ResetReason | null, leased: number | undefined, payers: readonly Payer[] = []): Promise<void> {
  try {
    // a render past its deadline was interrupted: reset once its script stopped, else replaced
    const interruption = rp.takeInterruption();
    const interrupted = interruption !== null;
    let reset = needed;
    if (interrupted) {
      deps.counters.renderInterrupts++;
      reset = 'interrupted';
      if (!(await interruption)) rp.markDead('the interrupted script did not stop');
    }
    let keptBusy = false;
    // a reset is counted as soon as it is decided (before the probe below waits on the page), so
    // the figures a caller reads once its answer arrived already include it
    const counted = reset !== null && !rp.dead && rp.renders < rp.maxRenders;
    if (counted) {
      deps.counters.pageResets++;
      deps.resets.note(reset!);
    }
    if (reset && !rp.dead) {
      // caller code ran: nothing it scheduled outlives the render (renderer-page/task-guard.js),
      // and what the page cannot cancel is stopped now; a page still busy is replaced
      const state = await rp.settle();
      if (state !== 'idle') deps.counters.busyAfterRender++;
      if (state === 'busy') {
        keptBusy = true;
        rp.markDead('caller code kept the page busy after its render');
      }
    }
    if (rp.dead || rp.renders >= rp.maxRenders) {
      // replaced: why it died (caller code that kept it busy: counted above), or its age
      if (!(counted && keptBusy)) deps.resets.note(rp.dead ? (reset === 'memory' || reset === 'interrupted' ? reset : keptBusy ? 'caller_code' : 'crash') : 'recycled');
      await deps.destroy(rp);
      return;
    }
    if (reset) {
      try {
        // an interrupted script may have left timers that keep the page too busy to navigate:
        // a short wait, then a new page (a reset takes tens of ms on a page that can navigate)
        await rp.load(interrupted ? INTERRUPTED_RESET_MS : pageLoadDeadlineMs(deps.renderTimeoutMs), true);
        // what the caller left in the renderer's heap, collected now rather than kept by an idle page
        if (await rp.collectIfLarge(pageLoadDeadlineMs(deps.renderTimeoutMs))) deps.counters.resetCollections++;
      } catch (err) {
        // a page too busy to navigate within the reset's deadline: whoever waited for it waited that long
        deps.counters.resetsGivenUp++;
        deps.log.warn({ err }, 'page reset failed; replacing it');
        await deps.destroy(rp);
        return;
      }
    }
    await deps.release(rp);
  } catch (err) {
    deps.log.error({ err }, 'returning a page to the pool failed');
  } finally {
    const now = performance.now();
    deps.leave(leased === undefined ? undefined : now - leased);
    for (const p of payers) p.pay(now - p.endedAt);
  }
}
