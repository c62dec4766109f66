// PostgreSQL: the images table family (not written yet: see pending.ts).
import type { ImageStore } from '../types.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgImages(_db: PgDb): ImageStore {
  return pending<ImageStore>('ImageStore');
}
