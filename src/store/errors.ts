// Storage failures as the store reports them, whatever the backend: the HTTP layer names the
// cause in its log line without knowing SQLite's or PostgreSQL's error codes.

export type StorageFailure = 'full' | 'read_only' | 'io' | 'unavailable';

export class StorageError extends Error {
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
