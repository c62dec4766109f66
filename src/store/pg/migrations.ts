// PostgreSQL schema migrations, applied in order under an advisory lock and recorded in
// chartshot_migrations. Never edit a shipped migration: append a new one. Times are ms since
// the epoch (bigint, read back as numbers), as in the SQLite schema this mirrors.
export const PG_MIGRATIONS: readonly string[] = [
  // 1: the SQLite schema as of its migration 7, in one step
  `
  CREATE TABLE accounts (
    id text PRIMARY KEY,
    email text,
    plan text NOT NULL,
    status text NOT NULL DEFAULT 'active',
    created_at bigint NOT NULL
  );
  CREATE TABLE api_keys (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    kind text NOT NULL,
    key_hash text NOT NULL UNIQUE,
    prefix text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint,
    revoked_at bigint
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);
  CREATE TABLE sessions (
    token_hash text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );

  CREATE TABLE images (
    key text PRIMARY KEY,
    content_type text NOT NULL,
    etag text NOT NULL,
    body bytea NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint,
    size bigint NOT NULL DEFAULT 0
  );
  CREATE INDEX images_expires ON images(expires_at);
  CREATE INDEX images_open_age ON images(created_at) WHERE key >= 'open:' AND key < 'open;';
  -- running total of the open endpoint's cached bytes (keys "open:"), kept by a trigger
  CREATE TABLE open_cache_bytes (id integer PRIMARY KEY CHECK (id = 1), bytes bigint NOT NULL);
  INSERT INTO open_cache_bytes (id, bytes) VALUES (1, 0);
  CREATE FUNCTION images_open_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.key >= 'open:' AND OLD.key < 'open;' THEN
      UPDATE open_cache_bytes SET bytes = bytes - OLD.size WHERE id = 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.key >= 'open:' AND NEW.key < 'open;' THEN
      UPDATE open_cache_bytes SET bytes = bytes + NEW.size WHERE id = 1;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER images_open_bytes AFTER INSERT OR UPDATE OR DELETE ON images
    FOR EACH ROW EXECUTE FUNCTION images_open_bytes();

  CREATE TABLE charts (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    key_id text NOT NULL,
    request_json text NOT NULL,
    digest text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX charts_account ON charts(account_id);
  CREATE TABLE chart_metrics (
    chart_id text PRIMARY KEY REFERENCES charts(id) ON DELETE CASCADE,
    hit_count bigint NOT NULL DEFAULT 0,
    error_count bigint NOT NULL DEFAULT 0,
    render_count bigint NOT NULL DEFAULT 0,
    render_ms_total double precision NOT NULL DEFAULT 0,
    last_accessed bigint
  );
  CREATE TABLE chart_rerenders (
    chart_id text PRIMARY KEY REFERENCES charts(id) ON DELETE CASCADE,
    tokens double precision NOT NULL,
    tokens_at bigint NOT NULL,
    failures integer NOT NULL DEFAULT 0,
    retry_at bigint,
    error_status integer,
    error_code text,
    error_detail text
  );
  CREATE TABLE account_rerenders (
    account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    budget_ms double precision NOT NULL,
    budget_at bigint NOT NULL
  );

  CREATE TABLE usage_counters (
    account_id text NOT NULL,
    period_start bigint NOT NULL, -- billing period start (ms); 0 = a trial's whole life
    used bigint NOT NULL DEFAULT 0,
    reserved bigint NOT NULL DEFAULT 0, -- admitted, still rendering
    PRIMARY KEY (account_id, period_start)
  );
  CREATE TABLE usage_daily (
    account_id text NOT NULL,
    day integer NOT NULL, -- days since the epoch (UTC)
    requests bigint NOT NULL DEFAULT 0,
    succeeded bigint NOT NULL DEFAULT 0,
    renders bigint NOT NULL DEFAULT 0,
    render_ms double precision NOT NULL DEFAULT 0,
    cache_hits bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, day)
  );
  CREATE TABLE usage_thresholds (
    account_id text NOT NULL,
    period_start bigint NOT NULL,
    threshold integer NOT NULL,
    at bigint NOT NULL,
    PRIMARY KEY (account_id, period_start, threshold)
  );
  CREATE TABLE rate_windows (
    subject text PRIMARY KEY,
    tokens double precision NOT NULL,
    refilled_at bigint NOT NULL,
    hour_start bigint NOT NULL,
    hour_count bigint NOT NULL
  );
  CREATE TABLE trial_signups (
    ip_hash text NOT NULL,
    created_at bigint NOT NULL,
    account_id text
  );
  CREATE INDEX trial_signups_ip ON trial_signups(ip_hash, created_at);
  CREATE TABLE billing (
    account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    cycle text NOT NULL,
    period_start bigint NOT NULL,
    period_end bigint NOT NULL,
    period_plan text NOT NULL,
    billed_plan text NOT NULL,
    pending_cycle text,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    read_only_until bigint,
    payment_failed_at bigint,
    dunning_stage integer NOT NULL DEFAULT 0,
    webhook_url text,
    custom_charts bigint,
    custom_per_minute bigint,
    custom_per_hour bigint,
    custom_burst bigint,
    custom_price_pence bigint
  );
  CREATE TABLE billing_lines (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id text NOT NULL,
    period_start bigint NOT NULL,
    kind text NOT NULL,
    description text NOT NULL,
    amount_pence bigint NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX billing_lines_account ON billing_lines(account_id, period_start);
  CREATE TABLE invoices (
    id text PRIMARY KEY,
    account_id text NOT NULL,
    issued_at bigint NOT NULL,
    period_start bigint NOT NULL,
    period_end bigint NOT NULL,
    plan text NOT NULL,
    cycle text NOT NULL,
    lines text NOT NULL,
    total_pence bigint NOT NULL,
    status text NOT NULL,
    paid_at bigint,
    UNIQUE (account_id, period_start)
  );
  CREATE INDEX invoices_account ON invoices(account_id, issued_at);
  CREATE TABLE billing_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id text NOT NULL,
    at bigint NOT NULL,
    kind text NOT NULL,
    detail text
  );
  CREATE INDEX billing_events_account ON billing_events(account_id, id);
  CREATE TABLE outbox (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind text NOT NULL, -- webhook | email
    account_id text NOT NULL,
    target text NOT NULL, -- URL or e-mail address
    subject text,
    body text NOT NULL,
    status text NOT NULL DEFAULT 'pending', -- pending | delivered | failed
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    last_error text,
    created_at bigint NOT NULL,
    delivered_at bigint
  );
  CREATE INDEX outbox_due ON outbox(status, next_attempt_at);

  CREATE TABLE open_renders (
    client text NOT NULL, -- IPv4 address or IPv6 /64 prefix
    at bigint NOT NULL
  );
  CREATE INDEX open_renders_client_at ON open_renders(client, at);
  CREATE INDEX open_renders_at ON open_renders(at);
  `,
  // 2: every change to accounts, keys or billing is announced on channel chartshot_auth, so each
  // instance's authentication cache drops what another instance (or the CLI) changed
  `
  CREATE FUNCTION chartshot_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('chartshot_auth', TG_TABLE_NAME);
    RETURN NULL;
  END $$;
  CREATE TRIGGER accounts_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION chartshot_auth_changed();
  CREATE TRIGGER api_keys_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION chartshot_auth_changed();
  CREATE TRIGGER billing_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON billing
    FOR EACH STATEMENT EXECUTE FUNCTION chartshot_auth_changed();
  `,
  // 3: the open cache's keys are told by their prefix whatever the database's collation (a
  // locale collation orders "open:x" after "open;", so a range test missed them)
  `
  CREATE OR REPLACE FUNCTION images_open_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND starts_with(OLD.key, 'open:') THEN
      UPDATE open_cache_bytes SET bytes = bytes - OLD.size WHERE id = 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND starts_with(NEW.key, 'open:') THEN
      UPDATE open_cache_bytes SET bytes = bytes + NEW.size WHERE id = 1;
    END IF;
    RETURN NULL;
  END $$;
  DROP INDEX images_open_age;
  CREATE INDEX images_open_age ON images(created_at) WHERE starts_with(key, 'open:');
  UPDATE open_cache_bytes SET bytes = (SELECT COALESCE(sum(size), 0) FROM images WHERE starts_with(key, 'open:')) WHERE id = 1;
  `,
  // 4: reservations with an owner and a lease (usage_counters.reserved is no longer used),
  // outbox claims with a lease, and an id for trial sign-ups (SQLite's rowid)
  `
  CREATE TABLE usage_reservations (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id text NOT NULL,
    period_start bigint NOT NULL,
    owner text NOT NULL, -- instance id
    lease_until bigint NOT NULL -- not counted against the cap after this
  );
  CREATE INDEX usage_reservations_account ON usage_reservations(account_id, period_start);
  CREATE INDEX usage_reservations_owner ON usage_reservations(owner);
  UPDATE usage_counters SET reserved = 0;
  ALTER TABLE outbox ADD COLUMN claimed_by text;
  ALTER TABLE outbox ADD COLUMN claim_until bigint; -- another claim may take it after this
  ALTER TABLE trial_signups ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
  `,
  // 5: retention: an enterprise account's own analytics window and its volume discount above
  // 10M charts a month; indexes on the age of every row a retention purge deletes, so each
  // bounded batch reads an index range instead of the table
  `
  ALTER TABLE billing ADD COLUMN custom_retention_days integer; -- null: analytics kept for good
  ALTER TABLE billing ADD COLUMN custom_discount_percent integer; -- null: the 5M-10M tier's rate
  CREATE INDEX usage_daily_day ON usage_daily(day);
  CREATE INDEX chart_metrics_last_accessed ON chart_metrics(last_accessed);
  CREATE INDEX usage_counters_period ON usage_counters(period_start);
  CREATE INDEX invoices_issued ON invoices(issued_at);
  CREATE INDEX billing_events_at ON billing_events(at);
  CREATE INDEX billing_lines_created ON billing_lines(created_at);
  `,
  // 6: the web dashboard's sign-in sessions (a cookie's token as its hash, with the session's
  // CSRF token), apart from the CLI's API session tokens; and when each API key was last used
  `
  CREATE TABLE dashboard_sessions (
    token_hash text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    csrf text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );
  CREATE INDEX dashboard_sessions_account ON dashboard_sessions(account_id);
  CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);
  CREATE TABLE key_last_used (
    key_id text PRIMARY KEY,
    account_id text NOT NULL,
    used_at bigint NOT NULL -- written at most about once a minute per key
  );
  CREATE INDEX key_last_used_account ON key_last_used(account_id);
  `,
  // 7: a usage reservation and a generation's count as one function call each (one round trip,
  // where a transaction of separate statements took seven and five), with the same statements,
  // in the same order (the counter row is locked first), each under a snapshot of its own
  `
  CREATE FUNCTION chartshot_reserve(p_account text, p_period bigint, p_cap bigint, p_owner text, p_now bigint, p_lease_ms bigint)
  RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    v_used bigint;
    v_reserved bigint;
    v_id bigint;
  BEGIN
    -- the counter row is the lock every reservation of this account and period waits on
    INSERT INTO usage_counters (account_id, period_start) VALUES (p_account, p_period) ON CONFLICT DO NOTHING;
    SELECT used INTO v_used FROM usage_counters WHERE account_id = p_account AND period_start = p_period FOR UPDATE;
    -- leftovers of a dead instance stop counting once their lease has passed
    DELETE FROM usage_reservations WHERE account_id = p_account AND period_start = p_period AND lease_until <= p_now;
    SELECT count(*) INTO v_reserved FROM usage_reservations WHERE account_id = p_account AND period_start = p_period;
    IF p_cap IS NOT NULL AND v_used + v_reserved >= p_cap THEN
      RETURN NULL;
    END IF;
    INSERT INTO usage_reservations (account_id, period_start, owner, lease_until)
      VALUES (p_account, p_period, p_owner, p_now + p_lease_ms) RETURNING id INTO v_id;
    RETURN v_id;
  END $$;

  CREATE FUNCTION chartshot_count_generation(p_account text, p_period bigint, p_reservation bigint, p_day integer,
    p_renders bigint, p_render_ms double precision, p_cache_hits bigint)
  RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    v_used bigint;
  BEGIN
    -- the counter row first, as chartshot_reserve locks it: the same lock order, no deadlock
    INSERT INTO usage_counters (account_id, period_start, used) VALUES (p_account, p_period, 1)
      ON CONFLICT (account_id, period_start) DO UPDATE SET used = usage_counters.used + 1 RETURNING used INTO v_used;
    IF p_reservation IS NOT NULL THEN
      DELETE FROM usage_reservations WHERE id = p_reservation;
    END IF;
    INSERT INTO usage_daily (account_id, day, renders, render_ms, cache_hits) VALUES (p_account, p_day, p_renders, p_render_ms, p_cache_hits)
      ON CONFLICT (account_id, day) DO UPDATE SET renders = usage_daily.renders + excluded.renders,
        render_ms = usage_daily.render_ms + excluded.render_ms, cache_hits = usage_daily.cache_hits + excluded.cache_hits;
    RETURN v_used;
  END $$;
  `,
  // 8: the address Google sign-in matches: the one the operator gave the account at creation,
  // apart from the warning-mail address its holder may change in the dashboard
  `
  ALTER TABLE accounts ADD COLUMN signin_email text;
  UPDATE accounts SET signin_email = email;
  CREATE INDEX accounts_signin_email ON accounts(lower(signin_email));
  CREATE INDEX dashboard_sessions_account_created ON dashboard_sessions(account_id, created_at);
  `,
  // 9: what drew a stored image (X-Chartshot-Renderer), as SQLite's migration 12
  `
  ALTER TABLE images ADD COLUMN renderer text;
  `,
];
