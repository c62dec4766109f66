// Storage failures as the store reports them, whatever the backend: the HTTP layer names the
// cause in its log line without knowing SQLite's or PostgreSQL's error codes.

export type StorageFailure = 'full' | 'read_only' | 'io' | 'unavailable';

/**
 * Marks a StorageError whatever copy of this module made it: PostgreSQL's store is imported on
 * demand (open.ts), and a process that also loads it another way (tsx's CommonJS and ES module
 * graphs in the tests) holds two classes of the same name, which `instanceof` would tell apart.
 */
const BRAND = Symbol.for('chartshot.StorageError');

export class StorageError extends Error {
  readonly [BRAND] = true;

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  constructor(
    readonly failure: StorageFailure,
    message: string,
    /** The backend's own error code (SQLITE_FULL, 53100, ECONNREFUSED...). */
    readonly code: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

const WORDS: Record<StorageFailure, string> = {
  full: 'the disk or database is full',
  read_only: 'the database is read-only',
  io: 'database storage error',
  unavailable: 'the database is unavailable',
};

/** "the disk or database is full (SQLITE_FULL)": for the log. */
export function describeStorageFailure(e: StorageError): string {
  return `${WORDS[e.failure]} (${e.code})`;
}

/** The store could not be reached (a server away, a connection lost): a transient outage. */
export function storeUnreachable(err: unknown): err is StorageError {
  return err instanceof StorageError && err.failure === 'unavailable';
}
