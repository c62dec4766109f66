// PostgreSQL: per-client sliding windows of the open endpoint's cache-miss renders: one row per
// admitted render, at most `limit` live rows per client.
import type { OpenRenderWindows, WindowTake } from '../types.js';
import type { PgDb } from './db.js';

/** First key of the two-key advisory locks of open windows (apart from any one-key lock). */
const WINDOW_LOCKS = 0x6f70656e; // "open"

export function pgOpenWindows(db: PgDb): OpenRenderWindows {
  return {
    async take(client, now, windowMs, limit) {
      // A per-client transaction lock: instances checking one client take turns, so two of them
      // cannot both read "4 of 5" and both insert. Rows older than the window go as clients return.
      return db.tx(async (sql): Promise<WindowTake> => {
        await sql.exec('SELECT pg_advisory_xact_lock($1, hashtext($2))', [WINDOW_LOCKS, client]);
        const since = now - windowMs;
        await sql.exec('DELETE FROM open_renders WHERE client = $1 AND at <= $2', [client, since]);
        const n = (await sql.one<{ n: number }>('SELECT count(*) AS n FROM open_renders WHERE client = $1 AND at > $2', [client, since]))!.n;
        if (n >= limit) {
          // the render whose expiry frees a slot: the (n - limit + 1)-th oldest in the window
          const at =
            limit > 0
              ? (await sql.one<{ at: number }>('SELECT at FROM open_renders WHERE client = $1 AND at > $2 ORDER BY at LIMIT 1 OFFSET $3', [client, since, n - limit]))?.at
              : undefined;
          return { allowed: false, used: n, retryAfterMs: at === undefined ? windowMs : Math.max(1, at + windowMs - now) };
        }
        await sql.exec('INSERT INTO open_renders (client, at) VALUES ($1, $2)', [client, now]);
        return { allowed: true, used: n + 1, retryAfterMs: 0 };
      });
    },
    async purge(before) {
      return db.exec('DELETE FROM open_renders WHERE at <= $1', [before]);
    },
  };
}
