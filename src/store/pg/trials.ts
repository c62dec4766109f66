// PostgreSQL trial sign-ups: one trial per client address within a window, claimed atomically
// (a transaction-scoped advisory lock per address serialises instances claiming the same one).
import type { TrialSignupStore } from '../metering.js';
import type { PgDb, Sql } from './db.js';

/** First key of this family's advisory locks (two-key space: apart from the one-key locks). */
const TRIAL_LOCK = 0x74726961; // "tria"

/** Deletes the sign-ups attached to an account, inside the purge's transaction. */
export async function purgeTrials(sql: Sql, accountId: string): Promise<void> {
  await sql.exec('DELETE FROM trial_signups WHERE account_id = $1', [accountId]);
}

export function pgTrials(db: PgDb): TrialSignupStore {
  return {
    async claim(ipHash, now, windowMs) {
      return db.tx(async (sql) => {
        await sql.exec('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TRIAL_LOCK, ipHash]);
        const prev = await sql.one<{ created_at: number }>(
          'SELECT created_at FROM trial_signups WHERE ip_hash = $1 AND created_at > $2 ORDER BY created_at DESC LIMIT 1',
          [ipHash, now - windowMs],
        );
        if (prev) return { ok: false as const, retryAt: prev.created_at + windowMs };
        const r = await sql.one<{ id: number }>('INSERT INTO trial_signups (ip_hash, created_at) VALUES ($1, $2) RETURNING id', [ipHash, now]);
        return { ok: true as const, claimId: r!.id };
      });
    },
    async attach(claimId, accountId) {
      await db.exec('UPDATE trial_signups SET account_id = $1 WHERE id = $2', [accountId, claimId]);
    },
    async drop(claimId) {
      await db.exec('DELETE FROM trial_signups WHERE id = $1', [claimId]);
    },
  };
}
