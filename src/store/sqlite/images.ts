import type { ImageStore, StoredImage } from '../types.js';
import type { DB } from './db.js';

interface Row { content_type: string; etag: string; body: Buffer; created_at: number; expires_at: number | null; renderer: string | null }

/** Writes one image row, synchronously (also inside another store's transaction). */
export function imageWriter(db: DB): (key: string, i: StoredImage) => void {
  // an upsert, not INSERT OR REPLACE: the open cache's byte total is kept by triggers, and
  // REPLACE's implicit delete fires none (migration 6)
  const put = db.prepare(
    `INSERT INTO images (key, content_type, etag, body, created_at, expires_at, size, renderer) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, etag = excluded.etag, body = excluded.body,
       created_at = excluded.created_at, expires_at = excluded.expires_at, size = excluded.size, renderer = excluded.renderer`,
  );
  return (key, i) => {
    put.run(key, i.contentType, i.etag, i.body, i.createdAt, i.expiresAt, i.body.length, i.renderer ?? null);
  };
}

export function sqliteImages(db: DB): ImageStore {
  const get = db.prepare<[string], Row>('SELECT content_type, etag, body, created_at, expires_at, renderer FROM images WHERE key = ?');
  const put = imageWriter(db);
  const del = db.prepare('DELETE FROM images WHERE key = ?');
  // A short chart's image is kept past its expiry while the chart exists: it is the last good
  // image, served (stale) while a re-render is pending or has failed. It goes with its chart.
  const purge = db.prepare(`
    DELETE FROM images WHERE expires_at IS NOT NULL AND expires_at < @now
      AND (substr(key, 1, 6) <> 'chart:' OR NOT EXISTS (SELECT 1 FROM charts WHERE id = substr(images.key, 7)))`);
  const openBytes = db.prepare<[], { bytes: number }>('SELECT bytes FROM open_cache_bytes WHERE id = 1');
  const oldestOpen = db.prepare<[], { key: string }>(
    "SELECT key FROM images WHERE key >= 'open:' AND key < 'open;' ORDER BY created_at, rowid LIMIT 32",
  );
  // oldest first until the open rows fit; a batch at a time, in one transaction
  const trimOpen = db.transaction((maxBytes: number): number => {
    let evicted = 0;
    while ((openBytes.get()?.bytes ?? 0) > maxBytes) {
      const batch = oldestOpen.all();
      if (batch.length === 0) break;
      for (const { key } of batch) {
        del.run(key);
        evicted++;
        if ((openBytes.get()?.bytes ?? 0) <= maxBytes) break;
      }
    }
    return evicted;
  });
  return {
    async get(key): Promise<StoredImage | null> {
      const r = get.get(key);
      return r ? { contentType: r.content_type, etag: r.etag, body: r.body, createdAt: r.created_at, expiresAt: r.expires_at, ...(r.renderer ? { renderer: r.renderer } : {}) } : null;
    },
    async put(key, i) {
      put(key, i);
    },
    async delete(key) {
      del.run(key);
    },
    async purgeExpired(now) {
      return purge.run({ now }).changes;
    },
    async openCacheBytes() {
      return openBytes.get()?.bytes ?? 0;
    },
    async trimOpenCache(maxBytes) {
      return trimOpen(maxBytes);
    },
  };
}
