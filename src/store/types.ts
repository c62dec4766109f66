// The Store interface: Promise-returning, so a PostgreSQL (or Redis for counters)
// implementation can replace SQLite without touching the services.
import type { PlanName } from '../chart/plans.js';

export type AccountStatus = 'active' | 'suspended' | 'cancelled' | 'terminated';
export type KeyKind = 'live' | 'trial' | 'test';

export interface Account {
  id: string;
  email: string | null;
  plan: PlanName;
  status: AccountStatus;
  createdAt: number; // ms since epoch
}

export interface ApiKey {
  id: string; // key_id: public
  accountId: string;
  kind: KeyKind;
  /** First characters of the key, for listings ("live_AbC…"); never the whole key. */
  prefix: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface Session {
  accountId: string;
  expiresAt: number;
}

export interface AccountStore {
  create(a: Account): Promise<void>;
  find(id: string): Promise<Account | null>;
  update(id: string, fields: Partial<Pick<Account, 'plan' | 'status' | 'email'>>): Promise<void>;
}

export interface KeyStore {
  create(k: ApiKey, keyHash: string): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKey | null>;
  find(id: string): Promise<ApiKey | null>;
  listByAccount(accountId: string): Promise<ApiKey[]>;
  revoke(id: string, at: number): Promise<boolean>;
}

export interface SessionStore {
  create(tokenHash: string, s: Session & { createdAt: number }): Promise<void>;
  findByHash(tokenHash: string): Promise<Session | null>;
}

export interface StoredImage {
  contentType: string;
  etag: string;
  body: Buffer;
  createdAt: number;
  /** ms since epoch; null = never expires. */
  expiresAt: number | null;
}

export interface ImageStore {
  get(key: string): Promise<StoredImage | null>;
  put(key: string, image: StoredImage): Promise<void>;
  delete(key: string): Promise<void>;
  /** Removes images expired before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

export interface Store {
  readonly images: ImageStore;
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly sessions: SessionStore;
  /** Round trip to the store, ms (status endpoint's kvLatency). */
  ping(): Promise<number>;
  close(): Promise<void>;
}
