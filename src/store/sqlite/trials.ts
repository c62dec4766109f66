// SQLite trial sign-ups: one trial per client address within a window, claimed atomically.
import type { TrialSignupStore } from '../metering.js';
import type { DB } from './db.js';

/** Deletes the sign-ups attached to an account, inside the purge's transaction. */
export function trialsPurge(db: DB): (accountId: string) => void {
  const del = db.prepare('DELETE FROM trial_signups WHERE account_id = ?');
  return (accountId) => void del.run(accountId);
}

export function sqliteTrials(db: DB): TrialSignupStore {
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
