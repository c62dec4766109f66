// Waiting for a promise with ways out (a deadline, a page's end), without Promise.race.
//
// Promise.race([p, q]) leaves a reaction on q whose handlers are the race's resolving functions,
// and V8 keeps the race's promise, with the value it settled with, reachable through them for as
// long as q is reachable and unsettled: no collection frees it. Racing every render against a
// promise that lived as long as its page kept every answer the page gave (the image strings of
// up to 20,000 renders: 2.6 GB of Node heap within 8 minutes of load). Here a way out is a
// listener or a timer, taken off the moment the wait ends, and a reaction left on a promise that
// never settles holds nothing of the wait: what lives long (a page, a process) is observed
// through an AbortSignal, never a promise. src/ has no other race (test/unit/settle.test.ts).

/** A way out of a wait: arms itself, calls `fail` to end the wait with an error, and returns
 *  what takes it off again (called once, when the wait ends either way). */
export type WayOut = (fail: (err: unknown) => void) => () => void;

/** `p`'s outcome, or the error of the first way out that fires before it. */
export function settle<T>(p: PromiseLike<T>, ...ways: WayOut[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // nulled when the wait ends: a reaction left on `p` (one that never settles) then holds
    // nothing of this wait, its outcome least of all
    let open: { resolve: (v: T) => void; reject: (e: unknown) => void; offs: Array<() => void> } | null = { resolve, reject, offs: [] };
    const end = () => {
      const o = open;
      open = null;
      if (o) for (const off of o.offs) off();
      return o;
    };
    const fail = (err: unknown) => end()?.reject(err);
    for (const way of ways) {
      const off = way(fail);
      if (open) open.offs.push(off);
      else off();
    }
    p.then(
      (v) => end()?.resolve(v),
      (e) => fail(e),
    );
  });
}

/** Fails the wait with `error()` after `ms`. */
export function afterMs(ms: number, error: () => unknown): WayOut {
  return (fail) => {
    const timer = setTimeout(() => fail(error()), ms);
    return () => clearTimeout(timer);
  };
}

/** Fails the wait with the signal's reason when it aborts (at once when it already has). */
export function onAbort(signal: AbortSignal): WayOut {
  return (fail) => {
    if (signal.aborted) {
      fail(signal.reason);
      return () => {};
    }
    const listener = () => fail(signal.reason);
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  };
}

/** `way`, armed only once `first` has settled, either way (a ride's deadline starts when the
 *  render ahead of it is over). `first` must be short-lived: it holds the way until it settles. */
export function afterSettled(first: PromiseLike<unknown>, way: WayOut): WayOut {
  return (fail) => {
    let off: (() => void) | null = null;
    let over = false;
    const arm = () => {
      if (!over) off = way(fail);
    };
    first.then(arm, arm);
    return () => {
      over = true;
      off?.();
    };
  };
}

/** `way`, taken off once `end` has settled, either way (a ride waits for the render ahead of it
 *  no longer than that one runs). `end` must be short-lived, as for afterSettled. */
export function untilSettled(end: PromiseLike<unknown>, way: WayOut): WayOut {
  return (fail) => {
    const off = way(fail);
    end.then(off, off);
    return off;
  };
}

/** `p`, or an Error naming `what` after `ms`. */
export function withDeadline<T>(p: PromiseLike<T>, ms: number, what: string): Promise<T> {
  return settle(p, afterMs(ms, () => new Error(`${what} took longer than ${ms} ms`)));
}

/** Waits for `p` to settle, either way, `ms` at most: true when it did. The timer does not
 *  keep the process alive (a bounded wait in a shutdown must never hold it). */
export function waitAtMost(p: PromiseLike<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    // as in settle: nothing of this wait stays reachable from `p` once it is over
    let answer: ((settled: boolean) => void) | null = resolve;
    const end = (settled: boolean) => {
      const a = answer;
      answer = null;
      clearTimeout(timer);
      a?.(settled);
    };
    const timer = setTimeout(() => end(false), ms);
    timer.unref();
    p.then(
      () => end(true),
      () => end(true),
    );
  });
}

/** Resolves after `ms`: a plain pause (a poll's step), with no way out. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
