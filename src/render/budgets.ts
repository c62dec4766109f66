// What one render may cost inside the page, by who asked for it: the render deadline, and the
// budgets renderer-page/budgets.js enforces once Chart.js knows the real numbers (ticks a scale
// would build, decades of a log scale, elements of the chart). Pure. Why:
// docs/decisions/0017-in-page-budgets.md.

/**
 * Who a render is for. anonymous: the open endpoint and keyless /chart (QUICKCHART_ANONYMOUS);
 * trial: a trial key; paid: a paid plan's key, and the service's own renders (error images,
 * dashboard charts, the CLI).
 */
export type CallerClass = 'anonymous' | 'trial' | 'paid';

/** Limits the page enforces on one render (renderer-page/budgets.js). */
export interface PageBudget {
  /** Ticks one scale may build from a range (linear, radial, logarithmic, time steps); one tick
   *  per label (category scales, `ticks.source: 'data'`) counts as an element instead. */
  readonly ticks: number;
  /** Data points over all datasets, as Chart.js parsed them. */
  readonly elements: number;
  /** Decades a logarithmic scale may span (Chart.js makes up to 9 ticks per decade). */
  readonly logDecades: number;
}

/** No chart needs 100 decades; the widest a double allows is about 630. */
export const MAX_LOG_DECADES = 100;

/**
 * The budgets of each class. Anonymous: 2,000 ticks a scale (Chart.js 3 and 4 stop a stepSize
 * at 1,000 themselves; a time axis builds 2,000 in about 40 ms) and 5,000 elements (ten times
 * the open endpoint's 500 data points: the static caps stay the first filter). Keyed callers:
 * Chart.js's own 100,000-tick ceiling of a time axis (10,000 for a trial) applied to every scale
 * (Chart.js 2 has none for a linear stepSize: 0..1e6 by 0.0001 loops ten million times), and as
 * many elements as a body of MAX_BODY_BYTES can reasonably hold.
 */
export const PAGE_BUDGETS: Readonly<Record<CallerClass, PageBudget>> = Object.freeze({
  anonymous: Object.freeze({ ticks: 2_000, elements: 5_000, logDecades: MAX_LOG_DECADES }),
  trial: Object.freeze({ ticks: 10_000, elements: 200_000, logDecades: MAX_LOG_DECADES }),
  paid: Object.freeze({ ticks: 100_000, elements: 2_000_000, logDecades: MAX_LOG_DECADES }),
});

/** Render deadlines per class, ms: ANONYMOUS_RENDER_TIMEOUT_MS, TRIAL_RENDER_TIMEOUT_MS, RENDER_TIMEOUT_MS. */
export interface RenderDeadlines {
  readonly anonymous: number;
  readonly trial: number;
  readonly paid: number;
}

export const DEFAULT_ANONYMOUS_RENDER_TIMEOUT_MS = 1_000;
export const DEFAULT_TRIAL_RENDER_TIMEOUT_MS = 3_000;

/** The deadlines when only RENDER_TIMEOUT_MS is known: no class waits longer than it. */
export function deadlinesFor(renderTimeoutMs: number, anonymousMs = DEFAULT_ANONYMOUS_RENDER_TIMEOUT_MS, trialMs = DEFAULT_TRIAL_RENDER_TIMEOUT_MS): RenderDeadlines {
  return {
    anonymous: Math.min(anonymousMs, renderTimeoutMs),
    trial: Math.min(trialMs, renderTimeoutMs),
    paid: renderTimeoutMs,
  };
}

/** The class of a key holder's render, by its plan's name. */
export function classOfPlan(planName: string): CallerClass {
  return planName === 'trial' ? 'trial' : 'paid';
}
