// PostgreSQL: the outbox table family (not written yet: see pending.ts).
import type { OutboxStore } from '../metering.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgOutbox(_db: PgDb): OutboxStore {
  return pending<OutboxStore>('OutboxStore');
}
