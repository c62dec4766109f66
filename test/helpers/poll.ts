// Waiting for a condition in a test: poll it, and when it never comes fail with a message that
// names it, never by running out of the test's time or by checking something else afterwards.
import { AssertionError } from 'chai';

export interface WaitOptions {
  /** How long the condition may take: a bound for a loaded machine, not a speed claim (30 s). */
  ms?: number;
  /** Between two polls (20 ms). */
  stepMs?: number;
  /** What to show beside the failure (the counters polled, a log's tail). */
  state?: () => unknown;
}

/** Resolves once `ok` holds; fails with an AssertionError naming `what` when it has not within the bound. */
export async function waitFor(what: string, ok: () => boolean | Promise<boolean>, opts: WaitOptions = {}): Promise<void> {
  const ms = opts.ms ?? 30_000;
  const deadline = Date.now() + ms;
  for (;;) {
    if (await ok()) return;
    if (Date.now() > deadline) {
      const state = opts.state ? `; state: ${JSON.stringify(opts.state())}` : '';
      throw new AssertionError(`timed out after ${ms / 1000} s waiting for ${what}${state}`);
    }
    await new Promise((r) => setTimeout(r, opts.stepMs ?? 20));
  }
}
