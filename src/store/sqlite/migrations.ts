// Schema migrations, applied in order and recorded in PRAGMA user_version.
// Never edit a shipped migration: append a new one.
export const MIGRATIONS: readonly string[] = [
  // 1: accounts, keys, sessions
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    email TEXT,
    plan TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    created_at INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);
  CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  // 2: the persistent image cache tier
  `
  CREATE TABLE images (
    key TEXT PRIMARY KEY,
    content_type TEXT NOT NULL,
    etag TEXT NOT NULL,
    body BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER
  );
  CREATE INDEX images_expires ON images(expires_at);
  `,
  // 3: reserved for short charts and per-chart metrics (issue 3)
  `SELECT 1;`,
  // 4: reserved for usage, rate-limit windows, trials, billing and webhooks (issue 5)
  `SELECT 1;`,
  // 5: reserved for the open endpoint's per-IP windows (issue 4)
  `SELECT 1;`,
];
