// PostgreSQL: the accounts table family (not written yet: see pending.ts).
import type { AccountStore, KeyStore, SessionStore } from '../types.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgAccounts(_db: PgDb): AccountStore {
  return pending<AccountStore>('AccountStore');
}

export function pgKeys(_db: PgDb): KeyStore {
  return pending<KeyStore>('KeyStore');
}

export function pgSessions(_db: PgDb): SessionStore {
  return pending<SessionStore>('SessionStore');
}
