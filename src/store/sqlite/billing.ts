// SQLite billing tables: the billing record per account, proration lines, invoices and billing
// events.
// Each check-and-change runs in one synchronous transaction (BEGIN IMMEDIATE): atomic within the
// process and across the processes sharing the file (the CLI and the server).
import type { BillingEvent, BillingRecord, BillingStore, Invoice, InvoiceLine, OutboxItem } from '../metering.js';
import { BILLING_COLUMNS, toBilling, toInvoice, type BillingRow, type InvoiceRow } from '../meteringRows.js';
import type { DB } from './db.js';
import { enqueueStmt } from './outbox.js';

/** Forgets an account's webhook URL (records, lines, invoices and events are kept), inside the purge's transaction. */
export function billingPurge(db: DB): (accountId: string) => void {
  const forget = db.prepare('UPDATE billing SET webhook_url = NULL WHERE account_id = ?');
  return (accountId) => void forget.run(accountId);
}

/** `wrote` is told of every write to the billing record (caches of it compare Store.authVersion). */
export function sqliteBilling(db: DB, wrote: () => void = () => {}): BillingStore {
  const get = db.prepare<[string], BillingRow>('SELECT * FROM billing WHERE account_id = ?');
  const insert = db.prepare(
    `INSERT OR IGNORE INTO billing (account_id, cycle, period_start, period_end, period_plan, billed_plan, pending_cycle,
       cancel_at_period_end, read_only_until, payment_failed_at, dunning_stage, webhook_url, custom_charts,
       custom_per_minute, custom_per_hour, custom_burst, custom_price_pence, custom_retention_days, custom_discount_percent)
     VALUES (@account_id, @cycle, @period_start, @period_end, @period_plan, @billed_plan, @pending_cycle,
       @cancel_at_period_end, @read_only_until, @payment_failed_at, @dunning_stage, @webhook_url, @custom_charts,
       @custom_per_minute, @custom_per_hour, @custom_burst, @custom_price_pence, @custom_retention_days, @custom_discount_percent)`,
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
        custom_retention_days: rec.customRetentionDays, custom_discount_percent: rec.customDiscountPercent,
      });
      wrote();
      return toBilling(get.get(rec.accountId)!);
    },
    async update(accountId, fields) {
      const [sets, vals] = toRow(fields);
      if (sets.length) db.prepare(`UPDATE billing SET ${sets.join(', ')} WHERE account_id = ?`).run(...vals, accountId);
      wrote();
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
      try {
        return closeTx.immediate(accountId, expectedStart, inv, next);
      } finally {
        wrote();
      }
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
  };
}
