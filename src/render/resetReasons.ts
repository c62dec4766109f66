// Why a page was reloaded or replaced: a small fixed vocabulary, so that
// chartshot_page_resets_total{reason} has a bounded set of label values whatever a page or an
// error says, and an operator sees what traffic reloads pages.
import { RenderError } from './renderError.js';

export const RESET_REASONS = [
  /** Caller functions ran and were not proven pure, or left something behind. */
  'caller_code',
  /** The config used something that keeps page-wide state (plugin objects, annotations, treemaps). */
  'page_state',
  /** The render was refused or failed (a bad config, a budget, an image over its ceiling). */
  'failed',
  /** The render ran past its deadline and its script was interrupted. */
  'interrupted',
  /** The render went over its memory budget or Chromium's memory limit: the page is replaced. */
  'memory',
  /** The page's renderer crashed, or the page stopped answering: it is replaced. */
  'crash',
  /** The page reached its number of renders (PAGE_MAX_RENDERS) and was replaced. */
  'recycled',
  /** The page was loaded with another Chart.js version's harness. */
  'version_switch',
] as const;

export type ResetReason = (typeof RESET_REASONS)[number];

const KNOWN = new Set<string>(RESET_REASONS);

/** A reason as the page or a caller names it, kept when it is one of the vocabulary, else `fallback`. */
export function resetReasonOf(text: unknown, fallback: ResetReason): ResetReason {
  return typeof text === 'string' && KNOWN.has(text) ? (text as ResetReason) : fallback;
}

/**
 * The reason a successful render needs its page reset: the one the page's answer names
 * (`resetReason`), else caller code when functions ran, else page-wide state.
 */
export function answerResetReason(answer: { ranFunctions?: boolean; resetReason?: unknown }): ResetReason {
  return resetReasonOf(answer.resetReason, answer.ranFunctions === true ? 'caller_code' : 'page_state');
}

/** The reason a failed render resets (or replaces) its page. */
export function errorResetReason(err: unknown): ResetReason {
  if (!(err instanceof RenderError)) return 'failed';
  if (err.kind === 'timeout') return 'interrupted';
  if (err.kind === 'memory') return 'memory';
  if (err.kind === 'crash') return 'crash';
  return 'failed';
}

/** Counts of resets by reason, every reason present (zero until it happens). */
export class ResetTally {
  private readonly counts = new Map<ResetReason, number>(RESET_REASONS.map((r) => [r, 0]));

  note(reason: ResetReason): void {
    this.counts.set(reason, this.counts.get(reason)! + 1);
  }

  /** Adds a count kept elsewhere (version switches are counted by the version affinity). */
  snapshot(extra: Partial<Record<ResetReason, number>> = {}): Record<ResetReason, number> {
    const out = {} as Record<ResetReason, number>;
    for (const r of RESET_REASONS) out[r] = this.counts.get(r)! + (extra[r] ?? 0);
    return out;
  }
}
