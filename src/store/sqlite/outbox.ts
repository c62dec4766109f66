// SQLite outbox: webhooks and e-mails waiting to be delivered, with their attempts and claims.
// Other tables' writes enqueue into it inside their own transactions (enqueueStmt).
import type { OutboxItem, OutboxStore } from '../metering.js';
import { toOutbox, type OutboxRow } from '../meteringRows.js';
import type { DB } from './db.js';

/** An insert of one pending item, for use inside another store's transaction. */
export function enqueueStmt(db: DB) {
  const insert = db.prepare(
    `INSERT INTO outbox (kind, account_id, target, subject, body, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  );
  return (item: OutboxItem, at: number): number =>
    Number(insert.run(item.kind, item.accountId, item.target, item.subject, item.body, at, at).lastInsertRowid);
}

export function sqliteOutbox(db: DB): OutboxStore {
  const enqueue = enqueueStmt(db);
  // one statement: the items it picks are claimed before any other connection can read them
  const claim = db.prepare<[string, number, number, number, string, number], OutboxRow>(
    `UPDATE outbox SET claimed_by = ?, claim_until = ? WHERE id IN (
       SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? AND (claim_until IS NULL OR claim_until <= ?)
         AND kind IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at, id LIMIT ?)
     RETURNING *`,
  );
  const delivered = db.prepare(
    "UPDATE outbox SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, last_error = NULL, claimed_by = NULL, claim_until = NULL WHERE id = ?",
  );
  const retry = db.prepare('UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?, claimed_by = NULL, claim_until = NULL WHERE id = ?');
  const giveUp = db.prepare("UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ?, claimed_by = NULL, claim_until = NULL WHERE id = ?");
  const claimTx = db.transaction((owner: string, now: number, leaseMs: number, limit: number, kinds: string) =>
    claim.all(owner, now + leaseMs, now, now, kinds, limit).sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id),
  );
  const release = db.prepare("UPDATE outbox SET claimed_by = NULL, claim_until = NULL WHERE status = 'pending' AND claimed_by IS NOT NULL AND (? IS NULL OR claimed_by = ?)");
  const all = db.prepare<[], OutboxRow>('SELECT * FROM outbox ORDER BY id');
  const byAccount = db.prepare<[string], OutboxRow>('SELECT * FROM outbox WHERE account_id = ? ORDER BY id');
  const pending = db.prepare<[string, string], { n: number }>("SELECT count(*) AS n FROM outbox WHERE account_id = ? AND subject = ? AND status = 'pending'");
  return {
    async pendingCount(accountId, subject) {
      return pending.get(accountId, subject)!.n;
    },
    async enqueue(item, at) {
      return enqueue(item, at);
    },
    async claim(owner, now, leaseMs, limit, kinds) {
      return claimTx.immediate(owner, now, leaseMs, limit, JSON.stringify(kinds)).map(toOutbox);
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
    async releaseClaims(owner) {
      return release.run(owner, owner).changes;
    },
  };
}
