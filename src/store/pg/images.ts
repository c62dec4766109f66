// PostgreSQL: cached images (bytea), the expiry purge and the open cache's byte budget.
import type { ImageStore, StoredImage } from '../types.js';
import { storageError, type PgDb, type Sql } from './db.js';

interface Row { content_type: string; etag: string; body: Buffer; created_at: number; expires_at: number | null; renderer: string | null }

/** An image row's columns, in the order of imageArgs(). */
export const IMAGE_COLUMNS = 'key, content_type, etag, body, created_at, expires_at, size, renderer';
/** How many values imageArgs() gives (placeholders after an upsert's start from `first + IMAGE_ARG_COUNT`). */
export const IMAGE_ARG_COUNT = 8;

export function imageArgs(key: string, i: StoredImage): unknown[] {
  return [key, i.contentType, i.etag, i.body, i.createdAt, i.expiresAt, i.body.length, i.renderer ?? null];
}

/** An upsert of one image row, its values from `$<first>` on (imageArgs); the open cache's byte total is kept by a trigger. */
export function imageUpsert(first: number): string {
  const p = Array.from({ length: IMAGE_ARG_COUNT }, (_, i) => `$${first + i}`).join(', ');
  return `INSERT INTO images (${IMAGE_COLUMNS}) VALUES (${p})
  ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, etag = excluded.etag, body = excluded.body,
    created_at = excluded.created_at, expires_at = excluded.expires_at, size = excluded.size, renderer = excluded.renderer`;
}

const PUT = imageUpsert(1);

/** Writes one image row through `sql` (the pool, or another family's transaction). */
export async function writeImage(sql: Sql, key: string, i: StoredImage): Promise<void> {
  await sql.exec(PUT, imageArgs(key, i));
}

const DEADLOCK = '40P01';

/** Trimmers take turns under this advisory lock (a pair of keys: no other lock of ours uses 0x7472696d). */
const TRIM_LOCK = [0x7472696d, 0] as const;

/** Runs a single idempotent statement again when PostgreSQL chose it as a deadlock's victim
 *  (an expiry purge and a trim both delete many rows, in different orders). */
async function retryDeadlock<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: unknown }).code !== DEADLOCK || attempt >= 3) throw err;
    }
  }
}

export function pgImages(db: PgDb): ImageStore {
  const openBytes = async (sql: Sql) => (await sql.one<{ bytes: number }>('SELECT bytes FROM open_cache_bytes WHERE id = 1'))?.bytes ?? 0;
  return {
    async get(key): Promise<StoredImage | null> {
      const r = await db.one<Row>('SELECT content_type, etag, body, created_at, expires_at, renderer FROM images WHERE key = $1', [key]);
      return r ? { contentType: r.content_type, etag: r.etag, body: r.body, createdAt: r.created_at, expiresAt: r.expires_at, ...(r.renderer ? { renderer: r.renderer } : {}) } : null;
    },
    async put(key, i) {
      await writeImage(db, key, i);
    },
    async delete(key) {
      await db.exec('DELETE FROM images WHERE key = $1', [key]);
    },
    async purgeExpired(now) {
      // A short chart's image is kept past its expiry while the chart exists: it is the last good
      // image, served (stale) while a re-render is pending or has failed. It goes with its chart.
      return retryDeadlock(() =>
        db.exec(
          `DELETE FROM images WHERE expires_at IS NOT NULL AND expires_at < $1
             AND (substr(key, 1, 6) <> 'chart:' OR NOT EXISTS (SELECT 1 FROM charts WHERE id = substr(images.key, 7)))`,
          [now],
        ),
      );
    },
    async openCacheBytes() {
      return openBytes(db);
    },
    async trimOpenCache(maxBytes) {
      if ((await openBytes(db)) <= maxBytes) return 0; // the usual case: one cheap read
      // Trimmers take turns under a session advisory lock, so two instances never evict the same
      // excess; each batch is its own statement, so a put (image row, then the byte total through
      // its trigger) never waits on a trim holding the total while it locks more rows (measured:
      // the row-locking transaction this replaces deadlocked with puts, p99 put 1 s under load).
      const client = await db.pool.connect().catch((err: unknown) => {
        throw storageError(err);
      });
      try {
        await client.query('SELECT pg_advisory_lock($1, $2)', [...TRIM_LOCK]);
        try {
          let evicted = 0;
          for (;;) {
            const bytes = (await client.query<{ bytes: number }>('SELECT bytes FROM open_cache_bytes WHERE id = 1')).rows[0]?.bytes ?? 0;
            if (bytes <= maxBytes) break;
            const batch = (
              await client.query<{ key: string; size: number }>(
                "SELECT key, size FROM images WHERE starts_with(key, 'open:') ORDER BY created_at, key COLLATE \"C\" LIMIT 32",
              )
            ).rows;
            if (batch.length === 0) break;
            const doomed: string[] = [];
            let left = bytes;
            for (const { key, size } of batch) {
              if (left <= maxBytes) break;
              doomed.push(key);
              left -= size;
            }
            evicted += (await client.query('DELETE FROM images WHERE key = ANY($1::text[])', [doomed])).rowCount ?? 0;
          }
          return evicted;
        } finally {
          await client.query('SELECT pg_advisory_unlock($1, $2)', [...TRIM_LOCK]).catch(() => {});
        }
      } catch (err) {
        throw storageError(err);
      } finally {
        client.release();
      }
    },
  };
}
