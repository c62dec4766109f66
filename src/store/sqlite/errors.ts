// SQLite's storage failures (full disk, read-only file, I/O errors) turned into StorageError at
// the store's boundary, so nothing above the store knows SQLite's error codes.
import { StorageError, type StorageFailure } from '../errors.js';

function failureOf(code: string): StorageFailure | null {
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return 'full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'read_only';
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CORRUPT' || code === 'SQLITE_CANTOPEN' || code === 'EIO') return 'io';
  return null;
}

/** The error as a StorageError when it is a storage failure, else unchanged. */
export function toStorageError(err: unknown): unknown {
  if (err instanceof StorageError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err;
  const failure = failureOf(code);
  return failure ? new StorageError(failure, (err as Error).message, code) : err;
}

/** The family with every method's rejection passed through toStorageError (methods return Promises). */
export function guarded<T extends object>(family: T): T {
  const out = {} as Record<string, unknown>;
  for (const [name, value] of Object.entries(family)) {
    out[name] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (value as (...a: unknown[]) => unknown).apply(family, args);
            } catch (err) {
              throw toStorageError(err);
            }
          }
        : value;
  }
  return out as T;
}
