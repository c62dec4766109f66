// PostgreSQL billing tables: the billing record per account, proration lines, invoices and
// billing events. closePeriod is a compare-and-set on the record's period start (row locked).
import type { BillingEvent, BillingRecord, BillingStore, InvoiceLine } from '../metering.js';
import { BILLING_COLUMNS, toBilling, toInvoice, type BillingRow, type InvoiceRow } from '../meteringRows.js';
import { prepared, type PgDb, type Sql } from './db.js';
import { enqueueIn } from './outbox.js';

type Fields = Partial<Omit<BillingRecord, 'accountId'>>;
const INSERT_COLUMNS = ['account_id', ...Object.values(BILLING_COLUMNS)];
// every request of an account reads its record: prepared, so its columns are spelled out
const GET = prepared('billing_get', `SELECT ${INSERT_COLUMNS.join(', ')} FROM billing WHERE account_id = $1`);

async function update(sql: Sql, accountId: string, fields: Fields): Promise<void> {
  const sets: string[] = [];
  const vals: unknown[] = [accountId];
  for (const [k, v] of Object.entries(fields)) {
    const col = BILLING_COLUMNS[k as keyof Fields];
    if (!col || v === undefined) continue;
    vals.push(v);
    sets.push(`${col} = $${vals.length}`);
  }
  if (sets.length) await sql.exec(`UPDATE billing SET ${sets.join(', ')} WHERE account_id = $1`, vals);
}

/** Forgets an account's webhook URL (records, lines, invoices and events are kept), inside the purge's transaction. */
export async function purgeBilling(sql: Sql, accountId: string): Promise<void> {
  await sql.exec('UPDATE billing SET webhook_url = NULL WHERE account_id = $1', [accountId]);
}

/** `wrote` is told of every write to the billing record (caches of it compare Store.authVersion). */
export function pgBilling(db: PgDb, wrote: () => void = () => {}): BillingStore {
  // also when the statement failed: a commit whose reply was lost may still have happened
  const changing = async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } finally {
      wrote();
    }
  };
  const addEvent = (sql: Sql, accountId: string, at: number, kind: string, detail: string | null) =>
    sql.exec('INSERT INTO billing_events (account_id, at, kind, detail) VALUES ($1, $2, $3, $4)', [accountId, at, kind, detail]);
  return {
    async get(accountId) {
      const r = await db.one<BillingRow>(GET, [accountId]);
      return r ? toBilling(r) : null;
    },
    async ensure(rec) {
      const values = [rec.accountId, ...(Object.keys(BILLING_COLUMNS) as (keyof Fields)[]).map((k) => rec[k])];
      await changing(
        db.exec(
          `INSERT INTO billing (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
           ON CONFLICT (account_id) DO NOTHING`,
          values,
        ),
      );
      return toBilling((await db.one<BillingRow>('SELECT * FROM billing WHERE account_id = $1', [rec.accountId]))!);
    },
    async update(accountId, fields) {
      await changing(update(db, accountId, fields));
    },
    async accountIds() {
      // every account that can be billed, with or without a billing record yet (created lazily)
      const rows = await db.rows<{ id: string }>("SELECT id FROM accounts WHERE plan <> 'trial' AND status <> 'terminated' ORDER BY id");
      return rows.map((r) => r.id);
    },
    async addLine(accountId, periodStart, line, at) {
      await db.exec(
        'INSERT INTO billing_lines (account_id, period_start, kind, description, amount_pence, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [accountId, periodStart, line.kind, line.description, line.amountPence, at],
      );
    },
    async lines(accountId, periodStart) {
      const rows = await db.rows<{ kind: InvoiceLine['kind']; description: string; amount_pence: number }>(
        'SELECT kind, description, amount_pence FROM billing_lines WHERE account_id = $1 AND period_start = $2 ORDER BY id',
        [accountId, periodStart],
      );
      return rows.map((r) => ({ kind: r.kind, description: r.description, amountPence: r.amount_pence }));
    },
    async closePeriod(accountId, expectedStart, inv, next) {
      return changing(db.tx(async (sql) => {
        // the record's row lock orders concurrent closes: the second sees the moved period start
        const cur = await sql.one<{ period_start: number }>('SELECT period_start FROM billing WHERE account_id = $1 FOR UPDATE', [accountId]);
        if (!cur || cur.period_start !== expectedStart) return false;
        await sql.exec(
          `INSERT INTO invoices (id, account_id, issued_at, period_start, period_end, plan, cycle, lines, total_pence, status, paid_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [inv.id, inv.accountId, inv.issuedAt, inv.periodStart, inv.periodEnd, inv.plan, inv.cycle, JSON.stringify(inv.lines), inv.totalPence, inv.status, inv.paidAt],
        );
        await update(sql, accountId, next);
        return true;
      }));
    },
    async invoices(accountId) {
      return (await db.rows<InvoiceRow>('SELECT * FROM invoices WHERE account_id = $1 ORDER BY issued_at DESC, id', [accountId])).map(toInvoice);
    },
    async invoice(id) {
      const r = await db.one<InvoiceRow>('SELECT * FROM invoices WHERE id = $1', [id]);
      return r ? toInvoice(r) : null;
    },
    async payInvoices(accountId, at) {
      return db.exec("UPDATE invoices SET status = 'paid', paid_at = $1 WHERE account_id = $2 AND status <> 'paid'", [at, accountId]);
    },
    async failInvoices(accountId) {
      return db.exec("UPDATE invoices SET status = 'failed' WHERE account_id = $1 AND status = 'open'", [accountId]);
    },
    async addEvent(accountId, at, kind, detail) {
      await addEvent(db, accountId, at, kind, detail ?? null);
    },
    async events(accountId): Promise<BillingEvent[]> {
      const rows = await db.rows<{ id: number; account_id: string; at: number; kind: string; detail: string | null }>(
        'SELECT id, account_id, at, kind, detail FROM billing_events WHERE account_id = $1 ORDER BY id',
        [accountId],
      );
      return rows.map((r) => ({ id: r.id, accountId: r.account_id, at: r.at, kind: r.kind, detail: r.detail }));
    },
    async addEventWithNotices(accountId, at, kind, detail, notify) {
      await db.tx(async (sql) => {
        await addEvent(sql, accountId, at, kind, detail);
        for (const item of notify) await enqueueIn(sql, item, at);
      });
    },
  };
}
