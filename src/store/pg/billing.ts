// PostgreSQL: the billing table family (not written yet: see pending.ts).
import type { BillingStore } from '../metering.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgBilling(_db: PgDb): BillingStore {
  return pending<BillingStore>('BillingStore');
}
