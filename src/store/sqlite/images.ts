import type { ImageStore, StoredImage } from '../types.js';
import type { DB } from './db.js';

interface Row { content_type: string; etag: string; body: Buffer; created_at: number; expires_at: number | null }

/** Writes one image row, synchronously (also inside another store's transaction). */
export function imageWriter(db: DB): (key: string, i: StoredImage) => void {
  const put = db.prepare(
    'INSERT OR REPLACE INTO images (key, content_type, etag, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return (key, i) => {
    put.run(key, i.contentType, i.etag, i.body, i.createdAt, i.expiresAt);
  };
}

export function sqliteImages(db: DB): ImageStore {
  const get = db.prepare<[string], Row>('SELECT content_type, etag, body, created_at, expires_at FROM images WHERE key = ?');
  const put = imageWriter(db);
  const del = db.prepare('DELETE FROM images WHERE key = ?');
  // A short chart's image is kept past its expiry while the chart exists: it is the last good
  // image, served (stale) while a re-render is pending or has failed. It goes with its chart.
  const purge = db.prepare(`
    DELETE FROM images WHERE expires_at IS NOT NULL AND expires_at < @now
      AND (substr(key, 1, 6) <> 'chart:' OR NOT EXISTS (SELECT 1 FROM charts WHERE id = substr(images.key, 7)))`);
  return {
    async get(key): Promise<StoredImage | null> {
      const r = get.get(key);
      return r ? { contentType: r.content_type, etag: r.etag, body: r.body, createdAt: r.created_at, expiresAt: r.expires_at } : null;
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
  };
}
