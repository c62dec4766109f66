import type { AccountStore, KeyStore, Session, SessionStore } from '../types.js';
import { toAccount, toKey, type AccountRow, type KeyRow } from '../rows.js';
import type { DB } from './db.js';

/** `wrote` is told of every write to accounts or keys (authentication caches compare it). */
export function sqliteAccounts(db: DB, wrote: () => void = () => {}): AccountStore {
  // the address given at creation is also the one Google sign-in matches (later edits change only email)
  const insert = db.prepare('INSERT INTO accounts (id, email, signin_email, plan, status, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byId = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?');
  return {
    async create(a) {
      insert.run(a.id, a.email, a.email, a.plan, a.status, a.createdAt);
      wrote();
    },
    async find(id) {
      const r = byId.get(id);
      return r ? toAccount(r) : null;
    },
    async update(id, fields) {
      const sets: string[] = [];
      const vals: unknown[] = [];
      for (const [k, v] of Object.entries(fields)) {
        if (!['plan', 'status', 'email'].includes(k)) continue;
        sets.push(`${k} = ?`);
        vals.push(v);
      }
      if (sets.length) db.prepare(`UPDATE accounts SET ${sets.join(', ')} WHERE id = ?`).run(...vals, id);
      wrote();
    },
  };
}

export function sqliteKeys(db: DB, wrote: () => void = () => {}): KeyStore {
  const insert = db.prepare(
    'INSERT INTO api_keys (id, account_id, kind, key_hash, prefix, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const byHash = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE key_hash = ?');
  const byId = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?');
  const byAccount = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  return {
    async create(k, keyHash) {
      insert.run(k.id, k.accountId, k.kind, keyHash, k.prefix, k.createdAt, k.expiresAt, k.revokedAt);
      wrote();
    },
    async findByHash(h) {
      const r = byHash.get(h);
      return r ? toKey(r) : null;
    },
    async find(id) {
      const r = byId.get(id);
      return r ? toKey(r) : null;
    },
    async listByAccount(accountId) {
      return byAccount.all(accountId).map(toKey);
    },
    async revoke(id, at) {
      const changed = revoke.run(at, id).changes > 0;
      wrote();
      return changed;
    },
  };
}

/** Deletes an account's keys and sessions and forgets its e-mail address (the row is kept), inside the purge's transaction. */
export function accountsPurge(db: DB): (accountId: string) => void {
  const keys = db.prepare('DELETE FROM api_keys WHERE account_id = ?');
  const sessions = db.prepare('DELETE FROM sessions WHERE account_id = ?');
  const email = db.prepare('UPDATE accounts SET email = NULL, signin_email = NULL WHERE id = ?');
  return (accountId) => {
    keys.run(accountId);
    sessions.run(accountId);
    email.run(accountId);
  };
}

export function sqliteSessions(db: DB): SessionStore {
  const insert = db.prepare('INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)');
  const byHash = db.prepare<[string], { account_id: string; expires_at: number }>(
    'SELECT account_id, expires_at FROM sessions WHERE token_hash = ?',
  );
  return {
    async create(h, s) {
      insert.run(h, s.accountId, s.createdAt, s.expiresAt);
    },
    async findByHash(h): Promise<Session | null> {
      const r = byHash.get(h);
      return r ? { accountId: r.account_id, expiresAt: r.expires_at } : null;
    },
  };
}
