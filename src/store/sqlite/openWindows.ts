// Per-client sliding windows of the open endpoint's cache-miss renders: one row per admitted
// render, at most `limit` live rows per client, so a check reads at most `limit` index entries.
import type { OpenRenderWindows, WindowTake } from '../types.js';
import type { DB } from './db.js';

// Rows older than the window are deleted as clients come back, and all of them by purge().
export function sqliteOpenWindows(db: DB): OpenRenderWindows {
  const forget = db.prepare('DELETE FROM open_renders WHERE client = ? AND at <= ?');
  const count = db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM open_renders WHERE client = ? AND at > ?');
  // the render whose expiry frees a slot: the (n - limit + 1)-th oldest in the window
  const freeing = db.prepare<[string, number, number], { at: number }>(
    'SELECT at FROM open_renders WHERE client = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?',
  );
  const insert = db.prepare('INSERT INTO open_renders (client, at) VALUES (?, ?)');
  const purge = db.prepare('DELETE FROM open_renders WHERE at <= ?');
  // IMMEDIATE: two processes on one file cannot both read "4 of 5" and both insert
  const take = db.transaction((client: string, now: number, windowMs: number, limit: number): WindowTake => {
    const since = now - windowMs;
    forget.run(client, since);
    const n = count.get(client, since)!.n;
    if (n >= limit) {
      const at = limit > 0 ? freeing.get(client, since, n - limit)?.at : undefined;
      return { allowed: false, used: n, retryAfterMs: at === undefined ? windowMs : Math.max(1, at + windowMs - now) };
    }
    insert.run(client, now);
    return { allowed: true, used: n + 1, retryAfterMs: 0 };
  });
  return {
    async take(client, now, windowMs, limit) {
      return take.immediate(client, now, windowMs, limit);
    },
    async purge(before) {
      return purge.run(before).changes;
    },
  };
}
