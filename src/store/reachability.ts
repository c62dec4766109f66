// Whether a shared store (PostgreSQL) answers, as its calls find out: the first call that cannot
// reach it logs one warning, the first that succeeds afterwards logs one line saying it is back
// and how long it was away. An outage costs two log lines, not one per request or per tick.
import type { Logger } from '../log.js';
import { storeUnreachable, type StorageError } from './errors.js';

export interface ReachabilityReport {
  reachable: boolean;
  /** When the current outage began (ms since the epoch); absent while reachable. */
  downSince?: number;
}

export class Reachability {
  private downSince: number | null = null;

  constructor(
    /** What the log lines name: "PostgreSQL at db.internal:5432/chartshot" (never a password). */
    private readonly what: string,
    private readonly log?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get reachable(): boolean {
    return this.downSince === null;
  }

  report(): ReachabilityReport {
    return this.downSince === null ? { reachable: true } : { reachable: false, downSince: this.downSince };
  }

  /** A call could not reach the store. */
  lost(err: StorageError): void {
    if (this.downSince !== null) return;
    this.downSince = this.now();
    this.log?.warn(
      { store: this.what, code: err.code, reason: err.message },
      `${this.what} is unreachable (${err.code}): requests that need it get 503 service_unavailable with Retry-After until it is back`,
    );
  }

  /** A call succeeded. */
  answered(): void {
    if (this.downSince === null) return;
    const downMs = this.now() - this.downSince;
    this.downSince = null;
    this.log?.warn({ store: this.what, downMs }, `${this.what} is reachable again after ${(downMs / 1000).toFixed(1)} s`);
  }
}

/** "PostgreSQL at host:port/database" from a connection string, without user or password. */
export function describePgUrl(url: string): string {
  try {
    const u = new URL(url);
    const db = u.pathname.replace(/^\//, '');
    return `PostgreSQL at ${u.hostname || 'localhost'}:${u.port || '5432'}${db ? `/${decodeURIComponent(db)}` : ''}`;
  } catch {
    return 'PostgreSQL';
  }
}

/**
 * A background job's or a side write's failure: logged at error level, unless the store is
 * unreachable, which Reachability has said once already (then only at debug level).
 */
export function logStoreFailure(log: Logger | undefined, err: unknown, fields: Record<string, unknown>, msg: string): void {
  if (storeUnreachable(err)) log?.debug({ ...fields, code: err.code }, msg);
  else log?.error({ ...fields, err }, msg);
}
