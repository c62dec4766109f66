// PostgreSQL: the rateLimits table family (not written yet: see pending.ts).
import type { RateLimitStore } from '../metering.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgRateLimits(_db: PgDb): RateLimitStore {
  return pending<RateLimitStore>('RateLimitStore');
}
