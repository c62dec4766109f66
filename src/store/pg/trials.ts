// PostgreSQL: the trials table family (not written yet: see pending.ts).
import type { TrialSignupStore } from '../metering.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgTrials(_db: PgDb): TrialSignupStore {
  return pending<TrialSignupStore>('TrialSignupStore');
}
