// PostgreSQL rate-limit windows per account: the token bucket and the hour window of rateStep,
// read, then written only if unchanged since (compare-and-set), so instances cannot both take
// the last token: the one whose write finds the row changed reads it again. Two round trips
// where a locking transaction took four.
import { rateStep, type RateLimits, type RateState } from '../../rules/rateLimit.js';
import type { RateLimitStore } from '../metering.js';
import { prepared, type PgDb, type Sql } from './db.js';

interface WindowRow { tokens: number; refilled_at: number; hour_start: number; hour_count: number }

const LOAD = prepared('rate_load', 'SELECT tokens, refilled_at, hour_start, hour_count FROM rate_windows WHERE subject = $1');
// $6..$9: the state as read; float8 values read back exactly (shortest round-trip text)
const SWAP = prepared(
  'rate_swap',
  `UPDATE rate_windows SET tokens = $2, refilled_at = $3, hour_start = $4, hour_count = $5
   WHERE subject = $1 AND tokens = $6 AND refilled_at = $7 AND hour_start = $8 AND hour_count = $9`,
);
const CREATE = prepared(
  'rate_create',
  'INSERT INTO rate_windows (subject, tokens, refilled_at, hour_start, hour_count) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (subject) DO NOTHING',
);

async function load(sql: Sql, subject: string): Promise<RateState | null> {
  const r = await sql.one<WindowRow>(LOAD, [subject]);
  return r ? { tokens: r.tokens, refilledAt: r.refilled_at, hourStart: r.hour_start, hourCount: r.hour_count } : null;
}

/** Forgets an account's windows, inside the purge's transaction. */
export async function purgeRateLimits(sql: Sql, accountId: string): Promise<void> {
  await sql.exec('DELETE FROM rate_windows WHERE subject = $1', [accountId]);
}

export function pgRateLimits(db: PgDb): RateLimitStore {
  const hit = async (subject: string, limits: RateLimits, now: number) => {
    for (;;) {
      const prev = await load(db, subject);
      const { state, decision } = rateStep(prev, limits, now, true);
      if (!decision.allowed) return decision;
      const values = [subject, state.tokens, state.refilledAt, state.hourStart, state.hourCount];
      // another instance wrote (or created) the row since it was read: start over on its row
      const written = prev
        ? await db.exec(SWAP, [...values, prev.tokens, prev.refilledAt, prev.hourStart, prev.hourCount])
        : await db.exec(CREATE, values);
      if (written === 1) return decision;
    }
  };
  return {
    hit,
    async peek(subject, limits, now) {
      return rateStep(await load(db, subject), limits, now, false).decision;
    },
  };
}
