// PostgreSQL outbox: webhooks and e-mails waiting to be delivered, with their attempts and
// claims. Instances claim due items with FOR UPDATE SKIP LOCKED, so each is sent by one of them.
import type { OutboxItem, OutboxStore } from '../metering.js';
import { toOutbox, type OutboxRow } from '../meteringRows.js';
import type { PgDb, Sql } from './db.js';

/** Inserts one pending item with `sql` (inside another family's transaction); returns its id. */
export async function enqueueIn(sql: Sql, item: OutboxItem, at: number): Promise<number> {
  const r = await sql.one<{ id: number }>(
    `INSERT INTO outbox (kind, account_id, target, subject, body, status, attempts, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6) RETURNING id`,
    [item.kind, item.accountId, item.target, item.subject, item.body, at],
  );
  return r!.id;
}

const COLUMNS = 'id, kind, account_id, target, subject, body, status, attempts, next_attempt_at, last_error, created_at, delivered_at';

export function pgOutbox(db: PgDb): OutboxStore {
  return {
    async pendingCount(accountId, subject) {
      const r = await db.one<{ n: string }>("SELECT count(*) AS n FROM outbox WHERE account_id = $1 AND subject = $2 AND status = 'pending'", [accountId, subject]);
      return Number(r!.n);
    },
    async enqueue(item, at) {
      return enqueueIn(db, item, at);
    },
    async claim(owner, now, leaseMs, limit, kinds) {
      // rows another instance is claiming right now are skipped, not waited for
      const rows = await db.rows<OutboxRow>(
        `UPDATE outbox SET claimed_by = $1, claim_until = $2 WHERE id IN (
           SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= $3 AND (claim_until IS NULL OR claim_until <= $3)
             AND kind = ANY($4::text[]) ORDER BY next_attempt_at, id LIMIT $5 FOR UPDATE SKIP LOCKED)
         RETURNING ${COLUMNS}`,
        [owner, now + leaseMs, now, kinds, limit],
      );
      return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id).map(toOutbox);
    },
    async delivered(id, at) {
      await db.exec(
        `UPDATE outbox SET status = 'delivered', attempts = attempts + 1, delivered_at = $1, last_error = NULL,
           claimed_by = NULL, claim_until = NULL WHERE id = $2`,
        [at, id],
      );
    },
    async failed(id, nextAttemptAt, error) {
      const msg = error.slice(0, 500);
      if (nextAttemptAt === null) {
        await db.exec(
          "UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = $1, claimed_by = NULL, claim_until = NULL WHERE id = $2",
          [msg, id],
        );
      } else {
        await db.exec(
          'UPDATE outbox SET attempts = attempts + 1, next_attempt_at = $1, last_error = $2, claimed_by = NULL, claim_until = NULL WHERE id = $3',
          [nextAttemptAt, msg, id],
        );
      }
    },
    async list(accountId) {
      const rows = accountId
        ? await db.rows<OutboxRow>(`SELECT ${COLUMNS} FROM outbox WHERE account_id = $1 ORDER BY id`, [accountId])
        : await db.rows<OutboxRow>(`SELECT ${COLUMNS} FROM outbox ORDER BY id`);
      return rows.map(toOutbox);
    },
    async releaseClaims(owner) {
      return db.exec(
        "UPDATE outbox SET claimed_by = NULL, claim_until = NULL WHERE status = 'pending' AND claimed_by IS NOT NULL AND ($1::text IS NULL OR claimed_by = $1)",
        [owner],
      );
    },
  };
}
