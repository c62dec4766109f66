// PostgreSQL retention purges: analytics past an account's window and billing records past seven
// years, each statement deleting at most a batch, so no purge holds row locks for long. Batches
// skip rows another purge has locked, so purges running at once take disjoint rows.
import type { RetentionCutoff, RetentionScope, RetentionStore } from '../types.js';
import type { Invoice } from '../metering.js';
import type { PgDb } from './db.js';

type Step = { sql: string; cut: (c: RetentionCutoff) => number };

/** The analytics statements for one way of choosing accounts (`who` compares with $2). */
function analyticsSteps(who: string): Step[] {
  // a closed period's counters: the billing record has moved past it (trials have no record)
  const closed = (alias: string) =>
    `${alias}.period_start > 0 AND ${alias}.period_start < $1 AND ${alias}.account_id ${who}
     AND EXISTS (SELECT 1 FROM billing b WHERE b.account_id = ${alias}.account_id AND b.period_start > ${alias}.period_start)`;
  return [
    {
      sql: `DELETE FROM usage_daily WHERE (account_id, day) IN
        (SELECT account_id, day FROM usage_daily WHERE day < $1 AND account_id ${who} LIMIT $3 FOR UPDATE SKIP LOCKED)`,
      cut: (c) => c.day,
    },
    {
      sql: `DELETE FROM chart_metrics WHERE chart_id IN
        (SELECT m.chart_id FROM chart_metrics m JOIN charts c ON c.id = m.chart_id
         WHERE COALESCE(m.last_accessed, c.created_at) < $1 AND c.account_id ${who} LIMIT $3 FOR UPDATE OF m SKIP LOCKED)`,
      cut: (c) => c.at,
    },
    {
      sql: `DELETE FROM usage_counters WHERE (account_id, period_start) IN
        (SELECT u.account_id, u.period_start FROM usage_counters u WHERE ${closed('u')} LIMIT $3 FOR UPDATE OF u SKIP LOCKED)`,
      cut: (c) => c.at,
    },
    {
      sql: `DELETE FROM usage_thresholds WHERE (account_id, period_start, threshold) IN
        (SELECT t.account_id, t.period_start, t.threshold FROM usage_thresholds t WHERE ${closed('t')} LIMIT $3 FOR UPDATE OF t SKIP LOCKED)`,
      cut: (c) => c.at,
    },
  ];
}

/** Every status an invoice's printed document is stored under. */
const INVOICE_STATUSES: readonly Invoice['status'][] = ['open', 'paid', 'failed'];

const BY_PLAN = analyticsSteps('IN (SELECT id FROM accounts WHERE plan = $2)');
const BY_ACCOUNT = analyticsSteps('= $2');

/** `before`: writes the store holds back (request analytics written behind the answer) land first. */
export function pgRetention(db: PgDb, before: () => Promise<void> = async () => {}): RetentionStore {
  return {
    async purgeAnalytics(scope: RetentionScope, cutoff, limit) {
      await before();
      const [steps, p] = 'plan' in scope ? [BY_PLAN, scope.plan] : [BY_ACCOUNT, scope.accountId];
      let done = 0;
      for (const s of steps) {
        if (done >= limit) break;
        done += await db.exec(s.sql, [s.cut(cutoff), p, limit - done]);
      }
      return done;
    },
    async customRetention() {
      const rows = await db.rows<{ account_id: string; days: number }>(
        `SELECT b.account_id, b.custom_retention_days AS days FROM billing b JOIN accounts a ON a.id = b.account_id
         WHERE a.plan = 'enterprise' AND b.custom_retention_days IS NOT NULL ORDER BY b.account_id`,
      );
      return rows.map((r) => ({ accountId: r.account_id, days: r.days }));
    },
    async purgeBilling(before, limit) {
      // an invoice and its printed documents ("invoice-pdf:<id>:<status>") go together
      let done = await db.tx(async (sql) => {
        const gone = await sql.rows<{ id: string }>(
          `DELETE FROM invoices WHERE id IN (SELECT id FROM invoices WHERE issued_at < $1 ORDER BY issued_at LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING id`,
          [before, limit],
        );
        if (gone.length) {
          const keys = gone.flatMap((r) => INVOICE_STATUSES.map((s) => `invoice-pdf:${r.id}:${s}`));
          await sql.exec('DELETE FROM images WHERE key = ANY($1::text[])', [keys]);
        }
        return gone.length;
      });
      if (done < limit) {
        done += await db.exec('DELETE FROM billing_events WHERE id IN (SELECT id FROM billing_events WHERE at < $1 ORDER BY at LIMIT $2 FOR UPDATE SKIP LOCKED)', [before, limit - done]);
      }
      if (done < limit) {
        done += await db.exec(
          `DELETE FROM billing_lines WHERE id IN (SELECT l.id FROM billing_lines l WHERE l.created_at < $1
             AND NOT EXISTS (SELECT 1 FROM billing b WHERE b.account_id = l.account_id AND b.period_start = l.period_start)
             ORDER BY l.created_at LIMIT $2 FOR UPDATE OF l SKIP LOCKED)`,
          [before, limit - done],
        );
      }
      return done;
    },
  };
}
