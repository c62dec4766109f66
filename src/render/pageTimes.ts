// How long a page is given for each step after a render: to stop an interrupted script, to
// answer once its caller code is over, to load the harness again; and when its renderer's heap
// is collected after a reset. RenderPage (page.ts) and the page's return (release.ts) read them.

/** How long an interrupted script may take to stop before its page is replaced. */
export const INTERRUPT_SETTLE_MS = 1000;

/**
 * How long a page that ran caller code may take to answer a trivial evaluation once the render
 * is over, ms. Anything the render scheduled was cancelled in the page (task-guard.js), so a
 * free main thread answers in well under a millisecond; one that does not is running caller code
 * that outlived its render, and is stopped (RenderPage.settle).
 */
export const IDLE_PROBE_MS = 100;
/** Times a page that still does not answer is stopped again before it is replaced. */
export const IDLE_STOPS = 2;

/**
 * A reset page whose renderer's heap holds more than this (the document before it, uncollected)
 * is collected at once. A fresh harness holds about 5 MB, one reset after a few hundred renders
 * about 30 (V8 and Blink's heaps together); a caller's DOM bomb stopped at its deadline left
 * 340 MB of garbage and 1.3 GB of RSS that an idle renderer kept (V8's memory reducer is off,
 * browser.ts): collected, the RSS fell to 156 MB. A full collection costs 25-80 ms on a
 * warm page, 420 ms on that one: only pages over this pay it.
 */
export const RESET_COLLECT_BYTES = 64 * 1024 * 1024;

/** How long the reset of a page whose render was interrupted may take before it is replaced. */
export const INTERRUPTED_RESET_MS = 2000;

/**
 * How long a harness load of a reset or a version switch (and the collection after a reset)
 * may take before the page is replaced: the render timeout, within 3 to 15 s. A page whose
 * script keeps its main thread busy cannot navigate, and is better replaced than waited for.
 */
export function pageLoadDeadlineMs(renderTimeoutMs: number): number {
  return Math.min(15000, Math.max(3000, renderTimeoutMs));
}
