// SQLite rate-limit windows per account: the token bucket and the hour window of rateStep, read
// and written in one IMMEDIATE transaction so concurrent processes cannot both take the last token.
import { rateStep, type RateState } from '../../rules/rateLimit.js';
import type { RateLimitStore } from '../metering.js';
import type { DB } from './db.js';

/** Forgets an account's windows, inside the purge's transaction. */
export function rateLimitsPurge(db: DB): (accountId: string) => void {
  const del = db.prepare('DELETE FROM rate_windows WHERE subject = ?');
  return (accountId) => void del.run(accountId);
}

export function sqliteRateLimits(db: DB): RateLimitStore {
  const get = db.prepare<[string], { tokens: number; refilled_at: number; hour_start: number; hour_count: number }>(
    'SELECT tokens, refilled_at, hour_start, hour_count FROM rate_windows WHERE subject = ?',
  );
  const put = db.prepare(
    `INSERT INTO rate_windows (subject, tokens, refilled_at, hour_start, hour_count) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (subject) DO UPDATE SET tokens = excluded.tokens, refilled_at = excluded.refilled_at,
       hour_start = excluded.hour_start, hour_count = excluded.hour_count`,
  );
  const load = (subject: string): RateState | null => {
    const r = get.get(subject);
    return r ? { tokens: r.tokens, refilledAt: r.refilled_at, hourStart: r.hour_start, hourCount: r.hour_count } : null;
  };
  const hitTx = db.transaction((subject: string, limits: Parameters<typeof rateStep>[1], now: number) => {
    const { state, decision } = rateStep(load(subject), limits, now, true);
    if (decision.allowed) put.run(subject, state.tokens, state.refilledAt, state.hourStart, state.hourCount);
    return decision;
  });
  return {
    async hit(subject, limits, now) {
      return hitTx.immediate(subject, limits, now);
    },
    async peek(subject, limits, now) {
      return rateStep(load(subject), limits, now, false).decision;
    },
  };
}
