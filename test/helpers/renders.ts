// Test probes on a running server: count the renders that reach the page pool, count the
// generations the store counted.
import type { Running } from '../../src/main.js';

export interface RenderProbe {
  /** Renders that reached the pool since the probe was installed. */
  readonly count: number;
  restore(): void;
}

/**
 * Counts the renders that reach the page pool, from the pool's own counter (nothing replaced).
 * To make identical requests overlap, hold them in a real busy pool: crash.ts whileRendersHeld.
 */
export function probeRenders(s: Running): RenderProbe {
  const pool = s.deps.pool;
  const start = pool.stats().renders ?? 0;
  return {
    get count() {
      return (pool.stats().renders ?? 0) - start;
    },
    restore() {},
  };
}

/**
 * Generations the store counted for an account (usage_counters.used) in its billing period as of
 * the server's clock now: read from the store itself, the record billing and limits use.
 */
export async function generationsCounted(s: Running, accountId: string): Promise<{ periodStart: number; used: number; reserved: number }> {
  const account = await s.deps.store.accounts.find(accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  const { start } = await s.deps.billing.currentPeriod(account);
  const { used, reserved } = await s.deps.store.usage.get(accountId, start);
  return { periodStart: start, used, reserved };
}

/** The key a stored chart was made with (charts.key_id), from the store. */
export async function chartKeyOf(s: Running, id: string): Promise<{ accountId: string; keyId: string } | null> {
  const row = await s.deps.store.charts.find(id);
  return row ? { accountId: row.accountId, keyId: row.keyId } : null;
}
