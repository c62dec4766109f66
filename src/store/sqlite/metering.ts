// SQLite implementation of the metering stores. Each check-and-change runs inside one
// synchronous transaction (BEGIN IMMEDIATE), so it is atomic within the process and across
// processes sharing the file (the CLI and the server).
import { rateStep, type RateState } from '../../chart/rateLimit.js';
import type {
  BillingEvent,
  BillingRecord,
  BillingStore,
  GenerationCount,
  Invoice,
  InvoiceLine,
  MeteringStores,
  OutboxItem,
  OutboxRecord,
  OutboxStore,
  RateLimitStore,
  TrialSignupStore,
  UsageStore,
} from '../metering.js';
import type Database from 'better-sqlite3';
import type { DB } from './db.js';

/** `wrote` is told of writes to accounts or keys (the purge of a terminated account). */
export function sqliteMetering(db: DB, wrote: () => void = () => {}): MeteringStores {
  const outbox = sqliteOutbox(db);
  return {
    usage: sqliteUsage(db),
    rateLimits: sqliteRateLimits(db),
    trials: sqliteTrials(db),
    billing: sqliteBilling(db, wrote),
    outbox,
  };
}

function enqueueStmt(db: DB) {
  const insert = db.prepare(
    `INSERT INTO outbox (kind, account_id, target, subject, body, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  );
  return (item: OutboxItem, at: number): number =>
    Number(insert.run(item.kind, item.accountId, item.target, item.subject, item.body, at, at).lastInsertRowid);
}

/**
 * Counts one successful generation (used + 1, the reservation dropped, the day's render stats)
 * as one transaction; called inside another transaction it becomes a savepoint of it, so a
 * chart and its count commit together (sqliteCharts.createWithImage).
 */
export function generationCounter(db: DB): Database.Transaction<(g: GenerationCount) => number> {
  const commitReserved = db.prepare<[string, number], { used: number }>(
    'UPDATE usage_counters SET used = used + 1, reserved = MAX(0, reserved - 1) WHERE account_id = ? AND period_start = ? RETURNING used',
  );
  const commitPlain = db.prepare<[string, number], { used: number }>(
    `INSERT INTO usage_counters (account_id, period_start, used) VALUES (?, ?, 1)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = used + 1 RETURNING used`,
  );
  const dayStat = db.prepare(
    `INSERT INTO usage_daily (account_id, day, renders, render_ms, cache_hits) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET renders = renders + excluded.renders,
       render_ms = render_ms + excluded.render_ms, cache_hits = cache_hits + excluded.cache_hits`,
  );
  return db.transaction(({ accountId, periodStart, reserved, day, stat }: GenerationCount): number => {
    let used: number;
    if (reserved) {
      const r = commitReserved.get(accountId, periodStart);
      used = r ? r.used : commitPlain.get(accountId, periodStart)!.used;
    } else {
      used = commitPlain.get(accountId, periodStart)!.used;
    }
    const { renderMs, cacheHit } = stat;
    dayStat.run(accountId, day, cacheHit ? 0 : 1, cacheHit ? 0 : renderMs, cacheHit ? 1 : 0);
    return used;
  });
}

function sqliteUsage(db: DB): UsageStore {
  const ensure = db.prepare('INSERT OR IGNORE INTO usage_counters (account_id, period_start) VALUES (?, ?)');
  const get = db.prepare<[string, number], { used: number; reserved: number }>(
    'SELECT used, reserved FROM usage_counters WHERE account_id = ? AND period_start = ?',
  );
  const reserve = db.prepare('UPDATE usage_counters SET reserved = reserved + 1 WHERE account_id = ? AND period_start = ?');
  const release = db.prepare('UPDATE usage_counters SET reserved = MAX(0, reserved - 1) WHERE account_id = ? AND period_start = ?');
  const setUsed = db.prepare(
    `INSERT INTO usage_counters (account_id, period_start, used) VALUES (?, ?, ?)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = excluded.used`,
  );
  const dayRequest = db.prepare(
    `INSERT INTO usage_daily (account_id, day, requests, succeeded) VALUES (?, ?, 1, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET requests = requests + 1, succeeded = succeeded + excluded.succeeded`,
  );
  const totals = db.prepare<[string, number, number], { requests: number | null; succeeded: number | null; renders: number | null; render_ms: number | null; cache_hits: number | null }>(
    `SELECT SUM(requests) AS requests, SUM(succeeded) AS succeeded, SUM(renders) AS renders, SUM(render_ms) AS render_ms,
       SUM(cache_hits) AS cache_hits FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ?`,
  );
  const markThreshold = db.prepare('INSERT OR IGNORE INTO usage_thresholds (account_id, period_start, threshold, at) VALUES (?, ?, ?, ?)');
  const clear = db.prepare('UPDATE usage_counters SET reserved = 0 WHERE reserved <> 0');
  const enqueue = enqueueStmt(db);

  const reserveTx = db.transaction((accountId: string, periodStart: number, cap: number | null): boolean => {
    ensure.run(accountId, periodStart);
    const row = get.get(accountId, periodStart)!;
    if (cap !== null && row.used + row.reserved >= cap) return false;
    reserve.run(accountId, periodStart);
    return true;
  });
  const commitTx = generationCounter(db);
  const thresholdTx = db.transaction((accountId: string, periodStart: number, threshold: number, at: number, notify: OutboxItem[]): boolean => {
    if (markThreshold.run(accountId, periodStart, threshold, at).changes === 0) return false;
    for (const item of notify) enqueue(item, at);
    return true;
  });

  return {
    async reserve(accountId, periodStart, cap) {
      return reserveTx.immediate(accountId, periodStart, cap);
    },
    async commit(accountId, periodStart, reserved, day, stat) {
      return commitTx.immediate({ accountId, periodStart, reserved, day, stat });
    },
    async release(accountId, periodStart) {
      release.run(accountId, periodStart);
    },
    async get(accountId, periodStart) {
      return get.get(accountId, periodStart) ?? { used: 0, reserved: 0 };
    },
    async setUsed(accountId, periodStart, used) {
      setUsed.run(accountId, periodStart, used);
    },
    async recordRequest(accountId, day, ok) {
      dayRequest.run(accountId, day, ok ? 1 : 0);
    },
    async totals(accountId, fromDay, toDay) {
      const r = totals.get(accountId, fromDay, toDay)!;
      return { requests: r.requests ?? 0, succeeded: r.succeeded ?? 0, renders: r.renders ?? 0, renderMs: r.render_ms ?? 0, cacheHits: r.cache_hits ?? 0 };
    },
    async markThreshold(accountId, periodStart, threshold, at, notify) {
      return thresholdTx.immediate(accountId, periodStart, threshold, at, notify);
    },
    async clearReservations() {
      clear.run();
    },
  };
}

function sqliteRateLimits(db: DB): RateLimitStore {
  const get = db.prepare<[string], { tokens: number; refilled_at: number; hour_start: number; hour_count: number }>(
    'SELECT tokens, refilled_at, hour_start, hour_count FROM rate_windows WHERE subject = ?',
  );
  const put = db.prepare(
    `INSERT INTO rate_windows (subject, tokens, refilled_at, hour_start, hour_count) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (subject) DO UPDATE SET tokens = excluded.tokens, refilled_at = excluded.refilled_at,
       hour_start = excluded.hour_start, hour_count = excluded.hour_count`,
  );
  const load = (subject: string): RateState | null => {
    const r = get.get(subject);
    return r ? { tokens: r.tokens, refilledAt: r.refilled_at, hourStart: r.hour_start, hourCount: r.hour_count } : null;
  };
  const hitTx = db.transaction((subject: string, limits: Parameters<typeof rateStep>[1], now: number) => {
    const { state, decision } = rateStep(load(subject), limits, now, true);
    if (decision.allowed) put.run(subject, state.tokens, state.refilledAt, state.hourStart, state.hourCount);
    return decision;
  });
  return {
    async hit(subject, limits, now) {
      return hitTx.immediate(subject, limits, now);
    },
    async peek(subject, limits, now) {
      return rateStep(load(subject), limits, now, false).decision;
    },
  };
}

function sqliteTrials(db: DB): TrialSignupStore {
  const last = db.prepare<[string, number], { created_at: number }>(
    'SELECT created_at FROM trial_signups WHERE ip_hash = ? AND created_at > ? ORDER BY created_at DESC LIMIT 1',
  );
  const insert = db.prepare('INSERT INTO trial_signups (ip_hash, created_at) VALUES (?, ?)');
  const attach = db.prepare('UPDATE trial_signups SET account_id = ? WHERE rowid = ?');
  const drop = db.prepare('DELETE FROM trial_signups WHERE rowid = ?');
  const claimTx = db.transaction((ipHash: string, now: number, windowMs: number) => {
    const prev = last.get(ipHash, now - windowMs);
    if (prev) return { ok: false as const, retryAt: prev.created_at + windowMs };
    return { ok: true as const, claimId: Number(insert.run(ipHash, now).lastInsertRowid) };
  });
  return {
    async claim(ipHash, now, windowMs) {
      return claimTx.immediate(ipHash, now, windowMs);
    },
    async attach(claimId, accountId) {
      attach.run(accountId, claimId);
    },
    async drop(claimId) {
      drop.run(claimId);
    },
  };
}

interface BillingRow {
  account_id: string;
  cycle: BillingRecord['cycle'];
  period_start: number;
  period_end: number;
  period_plan: BillingRecord['periodPlan'];
  billed_plan: BillingRecord['billedPlan'];
  pending_cycle: BillingRecord['pendingCycle'];
  cancel_at_period_end: number;
  read_only_until: number | null;
  payment_failed_at: number | null;
  dunning_stage: number;
  webhook_url: string | null;
  custom_charts: number | null;
  custom_per_minute: number | null;
  custom_per_hour: number | null;
  custom_burst: number | null;
  custom_price_pence: number | null;
}

const BILLING_COLUMNS: Record<keyof Omit<BillingRecord, 'accountId'>, keyof BillingRow> = {
  cycle: 'cycle',
  periodStart: 'period_start',
  periodEnd: 'period_end',
  periodPlan: 'period_plan',
  billedPlan: 'billed_plan',
  pendingCycle: 'pending_cycle',
  cancelAtPeriodEnd: 'cancel_at_period_end',
  readOnlyUntil: 'read_only_until',
  paymentFailedAt: 'payment_failed_at',
  dunningStage: 'dunning_stage',
  webhookUrl: 'webhook_url',
  customCharts: 'custom_charts',
  customPerMinute: 'custom_per_minute',
  customPerHour: 'custom_per_hour',
  customBurst: 'custom_burst',
  customPricePence: 'custom_price_pence',
};

const toBilling = (r: BillingRow): BillingRecord => ({
  accountId: r.account_id,
  cycle: r.cycle,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  periodPlan: r.period_plan,
  billedPlan: r.billed_plan,
  pendingCycle: r.pending_cycle,
  cancelAtPeriodEnd: r.cancel_at_period_end === 1,
  readOnlyUntil: r.read_only_until,
  paymentFailedAt: r.payment_failed_at,
  dunningStage: r.dunning_stage,
  webhookUrl: r.webhook_url,
  customCharts: r.custom_charts,
  customPerMinute: r.custom_per_minute,
  customPerHour: r.custom_per_hour,
  customBurst: r.custom_burst,
  customPricePence: r.custom_price_pence,
});

interface InvoiceRow {
  id: string;
  account_id: string;
  issued_at: number;
  period_start: number;
  period_end: number;
  plan: Invoice['plan'];
  cycle: Invoice['cycle'];
  lines: string;
  total_pence: number;
  status: Invoice['status'];
  paid_at: number | null;
}

const toInvoice = (r: InvoiceRow): Invoice => ({
  id: r.id,
  accountId: r.account_id,
  issuedAt: r.issued_at,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  plan: r.plan,
  cycle: r.cycle,
  lines: JSON.parse(r.lines) as InvoiceLine[],
  totalPence: r.total_pence,
  status: r.status,
  paidAt: r.paid_at,
});

/**
 * Tables kept when an account's data is deleted: billing records (7-year retention) and the
 * outbox (the termination e-mail is still to be sent).
 */
const KEPT_ON_PURGE = new Set(['accounts', 'invoices', 'billing_events', 'billing', 'billing_lines', 'outbox']);

function sqliteBilling(db: DB, wrote: () => void): BillingStore {
  const get = db.prepare<[string], BillingRow>('SELECT * FROM billing WHERE account_id = ?');
  const insert = db.prepare(
    `INSERT OR IGNORE INTO billing (account_id, cycle, period_start, period_end, period_plan, billed_plan, pending_cycle,
       cancel_at_period_end, read_only_until, payment_failed_at, dunning_stage, webhook_url, custom_charts,
       custom_per_minute, custom_per_hour, custom_burst, custom_price_pence)
     VALUES (@account_id, @cycle, @period_start, @period_end, @period_plan, @billed_plan, @pending_cycle,
       @cancel_at_period_end, @read_only_until, @payment_failed_at, @dunning_stage, @webhook_url, @custom_charts,
       @custom_per_minute, @custom_per_hour, @custom_burst, @custom_price_pence)`,
  );
  // Every account that can be billed, with or without a billing record yet (created lazily).
  const ids = db.prepare<[], { account_id: string }>(
    "SELECT id AS account_id FROM accounts WHERE plan <> 'trial' AND status <> 'terminated' ORDER BY id",
  );
  const addLine = db.prepare('INSERT INTO billing_lines (account_id, period_start, kind, description, amount_pence, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const lines = db.prepare<[string, number], { kind: InvoiceLine['kind']; description: string; amount_pence: number }>(
    'SELECT kind, description, amount_pence FROM billing_lines WHERE account_id = ? AND period_start = ? ORDER BY id',
  );
  const insertInvoice = db.prepare(
    `INSERT INTO invoices (id, account_id, issued_at, period_start, period_end, plan, cycle, lines, total_pence, status, paid_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const invoices = db.prepare<[string], InvoiceRow>('SELECT * FROM invoices WHERE account_id = ? ORDER BY issued_at DESC, id');
  const invoice = db.prepare<[string], InvoiceRow>('SELECT * FROM invoices WHERE id = ?');
  const pay = db.prepare("UPDATE invoices SET status = 'paid', paid_at = ? WHERE account_id = ? AND status <> 'paid'");
  const fail = db.prepare("UPDATE invoices SET status = 'failed' WHERE account_id = ? AND status = 'open'");
  const addEvent = db.prepare('INSERT INTO billing_events (account_id, at, kind, detail) VALUES (?, ?, ?, ?)');
  const events = db.prepare<[string], { id: number; account_id: string; at: number; kind: string; detail: string | null }>(
    'SELECT * FROM billing_events WHERE account_id = ? ORDER BY id',
  );
  const enqueue = enqueueStmt(db);

  const toRow = (fields: Partial<Omit<BillingRecord, 'accountId'>>): [string[], unknown[]] => {
    const sets: string[] = [];
    const vals: unknown[] = [];
    for (const [k, v] of Object.entries(fields)) {
      const col = BILLING_COLUMNS[k as keyof typeof BILLING_COLUMNS];
      if (!col || v === undefined) continue;
      sets.push(`${col} = ?`);
      vals.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
    }
    return [sets, vals];
  };

  const closeTx = db.transaction((accountId: string, expectedStart: number, inv: Invoice, next: Partial<Omit<BillingRecord, 'accountId'>>) => {
    const cur = get.get(accountId);
    if (!cur || cur.period_start !== expectedStart) return false;
    insertInvoice.run(inv.id, inv.accountId, inv.issuedAt, inv.periodStart, inv.periodEnd, inv.plan, inv.cycle, JSON.stringify(inv.lines), inv.totalPence, inv.status, inv.paidAt);
    const [sets, vals] = toRow(next);
    if (sets.length) db.prepare(`UPDATE billing SET ${sets.join(', ')} WHERE account_id = ?`).run(...vals, accountId);
    return true;
  });
  const noticeTx = db.transaction((accountId: string, at: number, kind: string, detail: string | null, notify: OutboxItem[]) => {
    addEvent.run(accountId, at, kind, detail);
    for (const item of notify) enqueue(item, at);
  });
  const purgeTx = db.transaction((accountId: string) => {
    // Cached images of the account's short charts are keyed by chart id, not by account.
    db.prepare("DELETE FROM images WHERE key IN (SELECT 'chart:' || id FROM charts WHERE account_id = ?)").run(accountId);
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
    for (const { name } of tables) {
      if (KEPT_ON_PURGE.has(name)) continue;
      const cols = db.prepare<[], { name: string }>(`PRAGMA table_info("${name.replace(/"/g, '""')}")`).all();
      if (!cols.some((c) => c.name === 'account_id')) continue;
      db.prepare(`DELETE FROM "${name.replace(/"/g, '""')}" WHERE account_id = ?`).run(accountId);
    }
    db.prepare('DELETE FROM rate_windows WHERE subject = ?').run(accountId);
    db.prepare('UPDATE billing SET webhook_url = NULL WHERE account_id = ?').run(accountId);
    db.prepare('UPDATE accounts SET email = NULL WHERE id = ?').run(accountId);
  });

  return {
    async get(accountId) {
      const r = get.get(accountId);
      return r ? toBilling(r) : null;
    },
    async ensure(rec) {
      insert.run({
        account_id: rec.accountId, cycle: rec.cycle, period_start: rec.periodStart, period_end: rec.periodEnd,
        period_plan: rec.periodPlan, billed_plan: rec.billedPlan, pending_cycle: rec.pendingCycle,
        cancel_at_period_end: rec.cancelAtPeriodEnd ? 1 : 0, read_only_until: rec.readOnlyUntil,
        payment_failed_at: rec.paymentFailedAt, dunning_stage: rec.dunningStage, webhook_url: rec.webhookUrl,
        custom_charts: rec.customCharts, custom_per_minute: rec.customPerMinute, custom_per_hour: rec.customPerHour,
        custom_burst: rec.customBurst, custom_price_pence: rec.customPricePence,
      });
      return toBilling(get.get(rec.accountId)!);
    },
    async update(accountId, fields) {
      const [sets, vals] = toRow(fields);
      if (sets.length) db.prepare(`UPDATE billing SET ${sets.join(', ')} WHERE account_id = ?`).run(...vals, accountId);
    },
    async accountIds() {
      return ids.all().map((r) => r.account_id);
    },
    async addLine(accountId, periodStart, line, at) {
      addLine.run(accountId, periodStart, line.kind, line.description, line.amountPence, at);
    },
    async lines(accountId, periodStart) {
      return lines.all(accountId, periodStart).map((r) => ({ kind: r.kind, description: r.description, amountPence: r.amount_pence }));
    },
    async closePeriod(accountId, expectedStart, inv, next) {
      return closeTx.immediate(accountId, expectedStart, inv, next);
    },
    async invoices(accountId) {
      return invoices.all(accountId).map(toInvoice);
    },
    async invoice(id) {
      const r = invoice.get(id);
      return r ? toInvoice(r) : null;
    },
    async payInvoices(accountId, at) {
      return pay.run(at, accountId).changes;
    },
    async failInvoices(accountId) {
      return fail.run(accountId).changes;
    },
    async addEvent(accountId, at, kind, detail) {
      addEvent.run(accountId, at, kind, detail ?? null);
    },
    async events(accountId): Promise<BillingEvent[]> {
      return events.all(accountId).map((r) => ({ id: r.id, accountId: r.account_id, at: r.at, kind: r.kind, detail: r.detail }));
    },
    async addEventWithNotices(accountId, at, kind, detail, notify) {
      noticeTx.immediate(accountId, at, kind, detail, notify);
    },
    async purgeAccountData(accountId) {
      try {
        purgeTx.immediate(accountId);
      } finally {
        wrote();
      }
    },
  };
}

interface OutboxRow {
  id: number;
  kind: OutboxItem['kind'];
  account_id: string;
  target: string;
  subject: string | null;
  body: string;
  status: OutboxRecord['status'];
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

const toOutbox = (r: OutboxRow): OutboxRecord => ({
  id: r.id,
  kind: r.kind,
  accountId: r.account_id,
  target: r.target,
  subject: r.subject,
  body: r.body,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
});

function sqliteOutbox(db: DB): OutboxStore {
  const enqueue = enqueueStmt(db);
  const due = db.prepare<[number, string, number], OutboxRow>(
    `SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ?
       AND kind IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at, id LIMIT ?`,
  );
  const delivered = db.prepare("UPDATE outbox SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, last_error = NULL WHERE id = ?");
  const retry = db.prepare('UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?');
  const giveUp = db.prepare("UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?");
  const all = db.prepare<[], OutboxRow>('SELECT * FROM outbox ORDER BY id');
  const byAccount = db.prepare<[string], OutboxRow>('SELECT * FROM outbox WHERE account_id = ? ORDER BY id');
  return {
    async enqueue(item, at) {
      return enqueue(item, at);
    },
    async due(now, limit, kinds) {
      return due.all(now, JSON.stringify(kinds), limit).map(toOutbox);
    },
    async delivered(id, at) {
      delivered.run(at, id);
    },
    async failed(id, nextAttemptAt, error) {
      if (nextAttemptAt === null) giveUp.run(error.slice(0, 500), id);
      else retry.run(nextAttemptAt, error.slice(0, 500), id);
    },
    async list(accountId) {
      return (accountId ? byAccount.all(accountId) : all.all()).map(toOutbox);
    },
  };
}
