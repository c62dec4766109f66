// Identical work in flight, shared by every caller that asks for it while it runs, and
// abandoned (its signal aborted) only when every one of those callers has gone away.

interface Flight<T> {
  result: Promise<T>;
  abort: AbortController;
  /** Callers still waiting for it; a caller without a signal never leaves. */
  waiting: number;
}

export class Flights<T> {
  private readonly map = new Map<string, Flight<T>>();

  /** Callers waiting for work in flight, over every key (what an operator or a test can watch
   *  to see identical requests join one render). */
  callers(): number {
    let n = 0;
    for (const f of this.map.values()) n += f.waiting;
    return n;
  }

  /** True while work for `key` runs (a new caller would join it). */
  has(key: string): boolean {
    return this.map.has(key);
  }

  /**
   * The result of the work for `key`: joins the flight in progress, or starts one with
   * `start`. `signal` is this caller's: when it aborts the caller stops counting, and when no
   * caller is left the flight's own signal (handed to `start`) aborts and the key is free
   * again, so a caller arriving then starts afresh instead of joining abandoned work.
   */
  async join(key: string, start: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<{ value: T; joined: boolean }> {
    let flight = this.map.get(key);
    const joined = flight !== undefined;
    if (!flight) {
      const abort = new AbortController();
      flight = { result: start(abort.signal), abort, waiting: 0 };
      this.map.set(key, flight);
    }
    const f = flight;
    f.waiting++;
    const left = () => {
      if (--f.waiting > 0) return;
      f.abort.abort();
      if (this.map.get(key) === f) this.map.delete(key);
    };
    if (signal?.aborted) left();
    else signal?.addEventListener('abort', left, { once: true });
    try {
      return { value: await f.result, joined };
    } finally {
      signal?.removeEventListener('abort', left);
      if (!joined && this.map.get(key) === f) this.map.delete(key);
    }
  }
}
