// SQLite retention purges: analytics past an account's window and billing records past seven
// years, each statement deleting at most a batch (a short write lock per statement).
import type { RetentionCutoff, RetentionScope, RetentionStore } from '../types.js';
import type { DB } from './db.js';

type Stmt = { run(...params: unknown[]): { changes: number } };

/** The analytics statements for one way of choosing accounts (`who` takes one parameter). */
function analyticsStatements(db: DB, who: string): Array<(p: unknown, c: RetentionCutoff, limit: number) => number> {
  const daily = db.prepare(`DELETE FROM usage_daily WHERE (account_id, day) IN
    (SELECT account_id, day FROM usage_daily WHERE day < ? AND account_id ${who} LIMIT ?)`);
  const metrics = db.prepare(`DELETE FROM chart_metrics WHERE chart_id IN
    (SELECT m.chart_id FROM chart_metrics m JOIN charts c ON c.id = m.chart_id
     WHERE COALESCE(m.last_accessed, c.created_at) < ? AND c.account_id ${who} LIMIT ?)`);
  // a closed period's counters: the billing record has moved past it (trials have no record)
  const closed = (alias: string) =>
    `${alias}.period_start > 0 AND ${alias}.period_start < ? AND ${alias}.account_id ${who}
     AND EXISTS (SELECT 1 FROM billing b WHERE b.account_id = ${alias}.account_id AND b.period_start > ${alias}.period_start)`;
  const counters = db.prepare(`DELETE FROM usage_counters WHERE (account_id, period_start) IN
    (SELECT u.account_id, u.period_start FROM usage_counters u WHERE ${closed('u')} LIMIT ?)`);
  const thresholds = db.prepare(`DELETE FROM usage_thresholds WHERE (account_id, period_start, threshold) IN
    (SELECT t.account_id, t.period_start, t.threshold FROM usage_thresholds t WHERE ${closed('t')} LIMIT ?)`);
  const run = (s: Stmt, cut: (c: RetentionCutoff) => number) => (p: unknown, c: RetentionCutoff, limit: number) =>
    s.run(cut(c), p, limit).changes;
  const byDay = (c: RetentionCutoff) => c.day;
  const byMs = (c: RetentionCutoff) => c.at;
  return [run(daily, byDay), run(metrics, byMs), run(counters, byMs), run(thresholds, byMs)];
}

/** `before` runs ahead of every analytics purge (writes the request analytics still pending). */
export function sqliteRetention(db: DB, before: () => Promise<void> = async () => {}): RetentionStore {
  const byPlan = analyticsStatements(db, 'IN (SELECT id FROM accounts WHERE plan = ?)');
  const byAccount = analyticsStatements(db, '= ?');
  const custom = db.prepare<[], { account_id: string; days: number }>(
    `SELECT b.account_id, b.custom_retention_days AS days FROM billing b JOIN accounts a ON a.id = b.account_id
     WHERE a.plan = 'enterprise' AND b.custom_retention_days IS NOT NULL ORDER BY b.account_id`,
  );
  const oldInvoices = db.prepare<[number, number], { id: string }>('SELECT id FROM invoices WHERE issued_at < ? ORDER BY issued_at LIMIT ?');
  // an invoice's printed documents are stored under "invoice-pdf:<id>:<status>"
  const invoicePdfs = db.prepare("DELETE FROM images WHERE key >= 'invoice-pdf:' || ? || ':' AND key < 'invoice-pdf:' || ? || ';'");
  const invoice = db.prepare('DELETE FROM invoices WHERE id = ?');
  const invoicesTx = db.transaction((before: number, limit: number) => {
    const ids = oldInvoices.all(before, limit);
    for (const { id } of ids) {
      invoicePdfs.run(id, id);
      invoice.run(id);
    }
    return ids.length;
  });
  const events = db.prepare('DELETE FROM billing_events WHERE id IN (SELECT id FROM billing_events WHERE at < ? ORDER BY at LIMIT ?)');
  const lines = db.prepare(`DELETE FROM billing_lines WHERE id IN (SELECT l.id FROM billing_lines l WHERE l.created_at < ?
    AND NOT EXISTS (SELECT 1 FROM billing b WHERE b.account_id = l.account_id AND b.period_start = l.period_start) ORDER BY l.created_at LIMIT ?)`);

  return {
    async purgeAnalytics(scope: RetentionScope, cutoff, limit) {
      await before();
      const [stmts, p] = 'plan' in scope ? [byPlan, scope.plan] : [byAccount, scope.accountId];
      let done = 0;
      for (const s of stmts) {
        if (done >= limit) break;
        done += s(p, cutoff, limit - done);
      }
      return done;
    },
    async customRetention() {
      return custom.all().map((r) => ({ accountId: r.account_id, days: r.days }));
    },
    async purgeBilling(before, limit) {
      let done = invoicesTx.immediate(before, limit);
      if (done < limit) done += events.run(before, limit - done).changes;
      if (done < limit) done += lines.run(before, limit - done).changes;
      return done;
    },
  };
}
