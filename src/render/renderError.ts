// The ways a render on a page can fail, as errors: RenderError (the caller's config, a budget, a
// deadline, a crash, no page free) and RideRefused (a ride that did not run as its own).
import type { PageFailure } from '../../renderer-page/protocol.js';
/**
 * Why a render did not produce an image. `config` = the chart config itself was refused by
 * Chart.js; `budget` = the page refused it for a budget (ticks, elements, log decades: the
 * message names it); `timeout` = it ran past its deadline and was interrupted.
 */
export class RenderError extends Error {
  constructor(
    /** memory: the render went over its memory budget in the page, or Chromium's cgroup limit.
     *  zone: the page's Intl knows no such time zone or locale (the message names which). */
    readonly kind: 'config' | 'budget' | 'timeout' | 'crash' | 'busy' | 'too_large' | 'memory' | 'zone',
    message: string,
    /** busy only: the estimated time until a page would be free (Retry-After). */
    readonly retryAfterMs?: number,
    /** too_large only: the size the page measured, bytes (the image itself never left the page). */
    readonly imageBytes?: number,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

/**
 * A ride (a render sent behind another on the same page before that one's answer came back,
 * pool.ts) that did not run as its own: the page refused it (the render ahead failed, ran
 * unproven caller code, or is still running), or the render ahead was interrupted or the page
 * crashed while it waited. Nothing of it is the caller's: the pool sends it again on a clean page.
 */
export class RideRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RideRefused';
  }
}

/**
 * A render the page refused, as its error; `replace`: why its page must not be used again (a
 * memory budget's refused allocations, and whatever caller code still holds, go with the page's
 * renderer; an emulation that did not take leaves a page in a zone nobody knows), else absent.
 */
export function fromPageFailure(f: PageFailure): { error: RenderError; replace?: string } {
  if (f.memoryBudget === true) return { error: new RenderError('memory', String(f.error).slice(0, 300)), replace: 'memory budget exceeded' };
  if (f.wrongZone === true) {
    return { error: new RenderError('crash', 'the page was not in the time zone and locale of its request'), replace: "the page was not in its render's time zone and locale" };
  }
  if (f.unknownZone !== undefined) return { error: new RenderError('zone', f.unknownZone) };
  const kind = typeof f.imageBytes === 'number' ? 'too_large' : f.budget === true ? 'budget' : 'config';
  return { error: new RenderError(kind, String(f.error).slice(0, 300), undefined, f.imageBytes) };
}
