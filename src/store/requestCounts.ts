// Request analytics written behind the request, for every store (decision records 0029 and the
// PostgreSQL store's): usage_daily.requests, .succeeded, and the render_ms of generations counted
// before their render ended. Analytics only: generation counts, reservations, rate limits and
// anything billed are never written this way.
/** How long a request count waits for others to share its write. */
export const WRITE_DELAY_MS = 100;

export interface RequestCount {
  accountId: string;
  day: number;
  requests: number;
  succeeded: number;
  renderMs: number;
}

/** Writes one batch: rows of distinct (account, day), sorted by day then account, all or nothing. */
export type WriteCounts = (batch: RequestCount[]) => Promise<void>;

/**
 * A request adds to a pending count and returns (it costs no write of its own); one write at a
 * time, WRITE_DELAY_MS after the first count pending, writes everything pending (the requests of
 * a tenth of a second: one statement on PostgreSQL, one transaction on SQLite). Reads of the
 * totals, the purge of an account, retention and close() flush first, so a reader of this
 * process and a clean shutdown lose nothing. A failed write keeps its counts for the next one
 * (added to whatever came meanwhile, never written twice: a batch is all or nothing) and is
 * reported to the next caller.
 */
export class RequestCounts {
  private pending = new Map<string, RequestCount>();
  private writing: Promise<void> | null = null;
  private failure: unknown = null;
  /** Ends the wait of the write under way (a reader wants the counts now). */
  private hurry: () => void = () => {};

  constructor(private readonly writeBatch: WriteCounts) {}

  async add(accountId: string, day: number, ok: boolean): Promise<void> {
    return this.addTo(accountId, day, (c) => {
      c.requests++;
      if (ok) c.succeeded++;
    });
  }

  /** A generation's render time, counted before its render ended (UsageStore.addRenderMs). */
  async addRenderMs(accountId: string, day: number, renderMs: number): Promise<void> {
    return this.addTo(accountId, day, (c) => {
      c.renderMs += renderMs;
    });
  }

  private async addTo(accountId: string, day: number, change: (c: RequestCount) => void): Promise<void> {
    const k = `${day}|${accountId}`;
    let c = this.pending.get(k);
    if (!c) {
      c = { accountId, day, requests: 0, succeeded: 0, renderMs: 0 };
      this.pending.set(k, c);
    }
    change(c);
    this.writing ??= this.write();
    const failure = this.failure;
    this.failure = null;
    if (failure !== null) throw failure;
  }

  /** Resolves once every count added before the call is written (rejects when that failed). */
  async flush(): Promise<void> {
    while (this.writing || this.pending.size > 0) {
      this.writing ??= this.write();
      this.hurry();
      await this.writing;
      if (this.failure !== null) {
        const failure = this.failure;
        this.failure = null;
        throw failure;
      }
    }
  }

  private async write(): Promise<void> {
    // a moment later: the response is not held up, and the requests of that moment share one write
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => this.hurry(), WRITE_DELAY_MS);
      t.unref();
      this.hurry = () => {
        clearTimeout(t);
        this.hurry = () => {};
        resolve();
      };
    });
    try {
      while (this.pending.size > 0) {
        // sorted: concurrent batches of several instances lock rows in one order
        const batch = [...this.pending.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
        this.pending = new Map();
        try {
          await this.writeBatch(batch);
        } catch (err) {
          for (const c of batch) {
            const k = `${c.day}|${c.accountId}`;
            const cur = this.pending.get(k);
            if (cur) {
              cur.requests += c.requests;
              cur.succeeded += c.succeeded;
              cur.renderMs += c.renderMs;
            } else this.pending.set(k, c);
          }
          this.failure = err;
          return;
        }
      }
    } finally {
      this.writing = null;
    }
  }
}
