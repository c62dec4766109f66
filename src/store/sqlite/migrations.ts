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
  // 3: short charts (the normalised request behind each id) and their metrics
  `
  CREATE TABLE charts (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    key_id TEXT NOT NULL,
    request_json TEXT NOT NULL,
    digest TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX charts_account ON charts(account_id);
  CREATE TABLE chart_metrics (
    chart_id TEXT PRIMARY KEY REFERENCES charts(id) ON DELETE CASCADE,
    hit_count INTEGER NOT NULL DEFAULT 0,
    error_count INTEGER NOT NULL DEFAULT 0,
    render_count INTEGER NOT NULL DEFAULT 0,
    render_ms_total REAL NOT NULL DEFAULT 0,
    last_accessed INTEGER
  );
  `,
  // 4: usage counters, rate-limit windows, trial sign-ups, billing and the outbox
  `
  CREATE TABLE usage_counters (
    account_id TEXT NOT NULL,
    period_start INTEGER NOT NULL, -- billing period start (ms); 0 = a trial's whole life
    used INTEGER NOT NULL DEFAULT 0,
    reserved INTEGER NOT NULL DEFAULT 0, -- admitted, still rendering
    PRIMARY KEY (account_id, period_start)
  ) WITHOUT ROWID;
  CREATE TABLE usage_daily (
    account_id TEXT NOT NULL,
    day INTEGER NOT NULL, -- days since the epoch (UTC)
    requests INTEGER NOT NULL DEFAULT 0,
    succeeded INTEGER NOT NULL DEFAULT 0,
    renders INTEGER NOT NULL DEFAULT 0,
    render_ms REAL NOT NULL DEFAULT 0,
    cache_hits INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, day)
  ) WITHOUT ROWID;
  CREATE TABLE usage_thresholds (
    account_id TEXT NOT NULL,
    period_start INTEGER NOT NULL,
    threshold INTEGER NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (account_id, period_start, threshold)
  ) WITHOUT ROWID;
  CREATE TABLE rate_windows (
    subject TEXT PRIMARY KEY,
    tokens REAL NOT NULL,
    refilled_at INTEGER NOT NULL,
    hour_start INTEGER NOT NULL,
    hour_count INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE trial_signups (
    ip_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    account_id TEXT
  );
  CREATE INDEX trial_signups_ip ON trial_signups(ip_hash, created_at);
  CREATE TABLE billing (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    cycle TEXT NOT NULL,
    period_start INTEGER NOT NULL,
    period_end INTEGER NOT NULL,
    period_plan TEXT NOT NULL,
    billed_plan TEXT NOT NULL,
    pending_cycle TEXT,
    cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
    read_only_until INTEGER,
    payment_failed_at INTEGER,
    dunning_stage INTEGER NOT NULL DEFAULT 0,
    webhook_url TEXT,
    custom_charts INTEGER,
    custom_per_minute INTEGER,
    custom_per_hour INTEGER,
    custom_burst INTEGER,
    custom_price_pence INTEGER
  );
  CREATE TABLE billing_lines (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    period_start INTEGER NOT NULL,
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    amount_pence INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX billing_lines_account ON billing_lines(account_id, period_start);
  CREATE TABLE invoices (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    period_start INTEGER NOT NULL,
    period_end INTEGER NOT NULL,
    plan TEXT NOT NULL,
    cycle TEXT NOT NULL,
    lines TEXT NOT NULL,
    total_pence INTEGER NOT NULL,
    status TEXT NOT NULL,
    paid_at INTEGER,
    UNIQUE (account_id, period_start)
  );
  CREATE INDEX invoices_account ON invoices(account_id, issued_at);
  CREATE TABLE billing_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT
  );
  CREATE INDEX billing_events_account ON billing_events(account_id, id);
  CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL, -- webhook | email
    account_id TEXT NOT NULL,
    target TEXT NOT NULL, -- URL or e-mail address
    subject TEXT,
    body TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending', -- pending | delivered | failed
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER
  );
  CREATE INDEX outbox_due ON outbox(status, next_attempt_at);
  `,
  // 5: the open endpoint's per-client render windows: one row per admitted cache-miss render
  `
  CREATE TABLE open_renders (
    client TEXT NOT NULL, -- IPv4 address or IPv6 /64 prefix
    at INTEGER NOT NULL -- ms since epoch
  );
  CREATE INDEX open_renders_client_at ON open_renders(client, at);
  CREATE INDEX open_renders_at ON open_renders(at);
  `,
  // 6: short-chart re-render guard: per chart, its token bucket and its remembered
  // failure (backoff); per account, a bucket of page time. Rows go with their chart or account.
  `
  CREATE TABLE chart_rerenders (
    chart_id TEXT PRIMARY KEY REFERENCES charts(id) ON DELETE CASCADE,
    tokens REAL NOT NULL, -- re-renders the chart may start now
    tokens_at INTEGER NOT NULL, -- ms since epoch: when tokens was computed
    failures INTEGER NOT NULL DEFAULT 0, -- consecutive failed re-renders (0: none remembered)
    retry_at INTEGER, -- ms since epoch: no attempt before then
    error_status INTEGER,
    error_code TEXT,
    error_detail TEXT
  ) WITHOUT ROWID;
  CREATE TABLE account_rerenders (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    budget_ms REAL NOT NULL, -- page time its charts' re-renders may still spend (may be negative)
    budget_at INTEGER NOT NULL -- ms since epoch: when budget_ms was computed
  ) WITHOUT ROWID;
  `,
  // 7: the open endpoint's persistent cache gets a byte budget (OPEN_CACHE_MAX_MB): each image
  // row records its size, and triggers keep a running total of the open rows (keys "open:"), so
  // a put reads one number instead of summing the table. Upserts (not REPLACE, whose implicit
  // delete fires no trigger) keep the total exact; the partial index finds the oldest open rows.
  `
  ALTER TABLE images ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
  UPDATE images SET size = length(body);
  CREATE INDEX images_open_age ON images(created_at) WHERE key >= 'open:' AND key < 'open;';
  CREATE TABLE open_cache_bytes (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);
  INSERT INTO open_cache_bytes (id, bytes) SELECT 1, COALESCE(SUM(size), 0) FROM images WHERE key >= 'open:' AND key < 'open;';
  CREATE TRIGGER images_open_insert AFTER INSERT ON images WHEN new.key >= 'open:' AND new.key < 'open;'
  BEGIN UPDATE open_cache_bytes SET bytes = bytes + new.size WHERE id = 1; END;
  CREATE TRIGGER images_open_update AFTER UPDATE OF size ON images WHEN new.key >= 'open:' AND new.key < 'open;'
  BEGIN UPDATE open_cache_bytes SET bytes = bytes + new.size - old.size WHERE id = 1; END;
  CREATE TRIGGER images_open_delete AFTER DELETE ON images WHEN old.key >= 'open:' AND old.key < 'open;'
  BEGIN UPDATE open_cache_bytes SET bytes = bytes - old.size WHERE id = 1; END;
  `,
  // 8: several processes may share the counters: a reservation is a row with its owner (an
  // instance id) and a lease, so an instance clears only its own and a dead one's expire; the
  // reserved column of usage_counters is no longer used. Outbox items are claimed with a lease.
  `
  CREATE TABLE usage_reservations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    period_start INTEGER NOT NULL,
    owner TEXT NOT NULL, -- instance id
    lease_until INTEGER NOT NULL -- ms since epoch: not counted against the cap after this
  );
  CREATE INDEX usage_reservations_account ON usage_reservations(account_id, period_start);
  CREATE INDEX usage_reservations_owner ON usage_reservations(owner);
  UPDATE usage_counters SET reserved = 0;
  ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
  ALTER TABLE outbox ADD COLUMN claim_until INTEGER; -- ms since epoch: another claim may take it after this
  `,
  // 9: retention: an enterprise account's own analytics window and its volume discount above
  // 10M charts a month; indexes on the age of every row a retention purge deletes, so each
  // bounded batch reads an index range instead of the table
  `
  ALTER TABLE billing ADD COLUMN custom_retention_days INTEGER; -- null: analytics kept for good
  ALTER TABLE billing ADD COLUMN custom_discount_percent INTEGER; -- null: the 5M-10M tier's rate
  CREATE INDEX usage_daily_day ON usage_daily(day);
  CREATE INDEX chart_metrics_last_accessed ON chart_metrics(last_accessed);
  CREATE INDEX usage_counters_period ON usage_counters(period_start);
  CREATE INDEX invoices_issued ON invoices(issued_at);
  CREATE INDEX billing_events_at ON billing_events(at);
  CREATE INDEX billing_lines_created ON billing_lines(created_at);
  `,
  // 10: the web dashboard's sign-in sessions: a cookie's token, stored as its hash, with the
  // session's CSRF token; apart from the CLI's API session tokens so signing out revokes only these
  `
  CREATE TABLE dashboard_sessions (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX dashboard_sessions_account ON dashboard_sessions(account_id);
  CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);
  CREATE TABLE key_last_used (
    key_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    used_at INTEGER NOT NULL -- ms since epoch, written at most about once a minute per key
  ) WITHOUT ROWID;
  CREATE INDEX key_last_used_account ON key_last_used(account_id);
  `,
  // 11: the address Google sign-in matches: the one the operator gave the account at creation,
  // apart from the warning-mail address its holder may change in the dashboard
  `
  ALTER TABLE accounts ADD COLUMN signin_email TEXT;
  UPDATE accounts SET signin_email = email;
  CREATE INDEX accounts_signin_email ON accounts(lower(signin_email));
  CREATE INDEX dashboard_sessions_account_created ON dashboard_sessions(account_id, created_at);
  `,
  // 12: what drew a stored image (X-Chartshot-Renderer: the Chart.js version its request named,
  // Chromium, fonts), served with it; null for images stored before
  `
  ALTER TABLE images ADD COLUMN renderer TEXT;
  `,
];
