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
  /** The Chart.js 4 chart-type plugins' per-unit limits (renderer-page/plugin-budgets4.js). */
  readonly units: UnitBudget;
}

/** What one config may make a chart-type plugin's own layout do (decision 26). */
export interface UnitBudget {
  /** Ticks of a force-directed layout (chartjs-chart-graph `simulation.initialIterations`). */
  readonly layoutTicks: number;
  /** Those ticks times the graph's nodes plus edges. */
  readonly layoutWork: number;
  /** Density points of one violin (`points`), and those times the violin's values. */
  readonly densityPoints: number;
  readonly densityWork: number;
  /** Areas of a venn or euler diagram (5 sets make 31). */
  readonly vennAreas: number;
  /** Words of a word cloud, and the font size of each, px. */
  readonly words: number;
  readonly wordSizePx: number;
  /** Meridians plus parallels of a geo chart's graticule (`showGraticule` steps). */
  readonly graticuleLines: number;
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
  anonymous: Object.freeze({ ticks: 2_000, elements: 5_000, logDecades: MAX_LOG_DECADES, units: unitBudget(1) }),
  trial: Object.freeze({ ticks: 10_000, elements: 200_000, logDecades: MAX_LOG_DECADES, units: unitBudget(4) }),
  paid: Object.freeze({ ticks: 100_000, elements: 2_000_000, logDecades: MAX_LOG_DECADES, units: unitBudget(20) }),
});

/**
 * The plugins' limits, scaled per class. At scale 1 (anonymous): the open endpoint's static caps
 * (300 layout ticks over its 500 points; 1,000 density points; 31 venn areas), which decision 16
 * measured at 0.6-2.6 s on the loaded machine; word clouds of 100 words of 100 px took 4 s there,
 * so 100 words of 64 px. Keyed callers get more in proportion to their deadlines (3 s, 10 s),
 * except venn areas (an euler layout grows much faster than its areas: 63 for paid callers).
 */
function unitBudget(scale: number): UnitBudget {
  return Object.freeze({
    layoutTicks: 300 * scale,
    layoutWork: 300 * 500 * scale,
    densityPoints: 1_000 * scale,
    densityWork: 1_000 * 5_000 * scale,
    vennAreas: scale >= 20 ? 63 : 31,
    words: 100 * scale,
    wordSizePx: scale >= 4 ? 200 : 64,
    graticuleLines: 1_000 * scale,
  });
}

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
