// SQLite named locks: one process owns the database file, so a lock only keeps two runs of the
// same job in this process apart.
import type { LockStore } from '../metering.js';

export function sqliteLocks(): LockStore {
  const held = new Set<string>();
  return {
    async tryRun(name, fn) {
      if (held.has(name)) return { ran: false };
      held.add(name);
      try {
        return { ran: true, value: await fn() };
      } finally {
        held.delete(name);
      }
    },
  };
}
