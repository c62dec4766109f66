// PostgreSQL: the usage table family (not written yet: see pending.ts).
import type { UsageStore } from '../metering.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgUsage(_db: PgDb): UsageStore {
  return pending<UsageStore>('UsageStore');
}
