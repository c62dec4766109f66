// PostgreSQL rate-limit windows per account: the token bucket and the hour window of rateStep,
// read with FOR UPDATE and written in one transaction, so instances cannot both take the last token.
import { rateStep, type RateLimits, type RateState } from '../../chart/rateLimit.js';
import type { RateLimitStore } from '../metering.js';
import type { PgDb, Sql } from './db.js';

interface WindowRow { tokens: number; refilled_at: number; hour_start: number; hour_count: number }

async function load(sql: Sql, subject: string, lock: boolean): Promise<RateState | null> {
  const r = await sql.one<WindowRow>(
    `SELECT tokens, refilled_at, hour_start, hour_count FROM rate_windows WHERE subject = $1${lock ? ' FOR UPDATE' : ''}`,
    [subject],
  );
  return r ? { tokens: r.tokens, refilledAt: r.refilled_at, hourStart: r.hour_start, hourCount: r.hour_count } : null;
}

/** Forgets an account's windows, inside the purge's transaction. */
export async function purgeRateLimits(sql: Sql, accountId: string): Promise<void> {
  await sql.exec('DELETE FROM rate_windows WHERE subject = $1', [accountId]);
}

export function pgRateLimits(db: PgDb): RateLimitStore {
  const hit = (subject: string, limits: RateLimits, now: number) =>
    db.tx(async (sql) => {
      for (;;) {
        const prev = await load(sql, subject, true);
        const { state, decision } = rateStep(prev, limits, now, true);
        if (!decision.allowed) return decision;
        const values = [subject, state.tokens, state.refilledAt, state.hourStart, state.hourCount];
        if (prev) {
          await sql.exec('UPDATE rate_windows SET tokens = $2, refilled_at = $3, hour_start = $4, hour_count = $5 WHERE subject = $1', values);
          return decision;
        }
        // a first request: another instance may be inserting the same row; if so, start over on its row
        const inserted = await sql.exec(
          'INSERT INTO rate_windows (subject, tokens, refilled_at, hour_start, hour_count) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (subject) DO NOTHING',
          values,
        );
        if (inserted === 1) return decision;
      }
    });
  return {
    hit,
    async peek(subject, limits, now) {
      return rateStep(await load(db, subject, false), limits, now, false).decision;
    },
  };
}
