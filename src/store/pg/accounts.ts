// PostgreSQL: accounts, API keys and sessions.
import type { AccountStore, KeyStore, Session, SessionStore } from '../types.js';
import { toAccount, toKey, type AccountRow, type KeyRow } from '../rows.js';
import type { PgDb } from './db.js';

const KEY_COLUMNS = 'id, account_id, kind, prefix, created_at, expires_at, revoked_at';

/** `wrote` is told of every committed write to accounts or keys (authentication caches compare it). */
export function pgAccounts(db: PgDb, wrote: () => void = () => {}): AccountStore {
  return {
    async create(a) {
      // the address given at creation is also the one Google sign-in matches (later edits change only email)
      await db.exec('INSERT INTO accounts (id, email, signin_email, plan, status, created_at) VALUES ($1, $2, $2, $3, $4, $5)', [a.id, a.email, a.plan, a.status, a.createdAt]);
      wrote();
    },
    async find(id) {
      const r = await db.one<AccountRow>('SELECT id, email, plan, status, created_at FROM accounts WHERE id = $1', [id]);
      return r ? toAccount(r) : null;
    },
    async update(id, fields) {
      // one fixed statement: a flag per column says whether it is set (email may be set to null)
      const has = (k: 'plan' | 'status' | 'email') => Object.prototype.hasOwnProperty.call(fields, k) && fields[k] !== undefined;
      if (has('plan') || has('status') || has('email')) {
        await db.exec(
          `UPDATE accounts SET plan = CASE WHEN $2::boolean THEN $3 ELSE plan END, status = CASE WHEN $4::boolean THEN $5 ELSE status END,
             email = CASE WHEN $6::boolean THEN $7 ELSE email END WHERE id = $1`,
          [id, has('plan'), fields.plan ?? null, has('status'), fields.status ?? null, has('email'), fields.email ?? null],
        );
      }
      wrote();
    },
  };
}

export function pgKeys(db: PgDb, wrote: () => void = () => {}): KeyStore {
  return {
    async create(k, keyHash) {
      await db.exec(
        'INSERT INTO api_keys (id, account_id, kind, key_hash, prefix, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [k.id, k.accountId, k.kind, keyHash, k.prefix, k.createdAt, k.expiresAt, k.revokedAt],
      );
      wrote();
    },
    async findByHash(h) {
      const r = await db.one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [h]);
      return r ? toKey(r) : null;
    },
    async find(id) {
      const r = await db.one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
      return r ? toKey(r) : null;
    },
    async listByAccount(accountId) {
      return (await db.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id COLLATE "C"`, [accountId])).map(toKey);
    },
    async revoke(id, at) {
      const changed = (await db.exec('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id])) > 0;
      wrote();
      return changed;
    },
  };
}

export function pgSessions(db: PgDb): SessionStore {
  return {
    async create(h, s) {
      await db.exec('INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [h, s.accountId, s.createdAt, s.expiresAt]);
    },
    async findByHash(h): Promise<Session | null> {
      const r = await db.one<{ account_id: string; expires_at: number }>('SELECT account_id, expires_at FROM sessions WHERE token_hash = $1', [h]);
      return r ? { accountId: r.account_id, expiresAt: r.expires_at } : null;
    },
  };
}
