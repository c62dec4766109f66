// PostgreSQL: the openWindows table family (not written yet: see pending.ts).
import type { OpenRenderWindows } from '../types.js';
import type { PgDb } from './db.js';
import { pending } from './pending.js';

export function pgOpenWindows(_db: PgDb): OpenRenderWindows {
  return pending<OpenRenderWindows>('OpenRenderWindows');
}
