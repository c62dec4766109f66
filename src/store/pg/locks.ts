// PostgreSQL named locks shared by every instance: a session advisory lock held on one pooled
// connection while the job runs; a dead instance's lock goes with its connection.
import type { LockStore } from '../metering.js';
import { storageError, type PgDb } from './db.js';

/** First key of named locks (two-key space, apart from the migration lock). */
const NAMED_LOCK = 0x6c6f636b; // "lock"

export function pgLocks(db: PgDb): LockStore {
  return {
    async tryRun(name, fn) {
      const client = await db.pool.connect().catch((err: unknown) => {
        throw storageError(err);
      });
      let broken = false;
      try {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [NAMED_LOCK, name]).catch((err: unknown) => {
          throw storageError(err);
        });
        if (!rows[0]?.ok) return { ran: false };
        try {
          return { ran: true, value: await fn() };
        } finally {
          await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [NAMED_LOCK, name]).catch(() => {
            // the lock is held until the connection ends: end it rather than reuse it
            broken = true;
          });
        }
      } finally {
        client.release(broken);
      }
    },
  };
}
