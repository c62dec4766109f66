// Store.authVersion for PostgreSQL (not written yet): a number that must change whenever an
// account or key may have changed, in this instance or another (LISTEN/NOTIFY).
import type { PgDb } from './db.js';

export interface AuthChanges {
  version(): number;
  close(): Promise<void>;
}

export async function authChanges(_db: PgDb): Promise<AuthChanges> {
  // Until written: a version that changes on every read, so no authentication is ever cached.
  let n = 0;
  return { version: () => ++n, close: async () => {} };
}
