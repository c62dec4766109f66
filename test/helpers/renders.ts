// Test probes on a running server: count the renders that reach the page pool, count the
// generations the store counted.
import type { PagePool } from '../../src/render/pool.js';
import type { Running } from '../../src/main.js';

export interface RenderProbe {
  /** Renders that reached the pool since the probe was installed. */
  readonly count: number;
  restore(): void;
}

/**
 * Counts the renders that reach the page pool, from the pool's own counter (nothing replaced).
 * `delayMs` holds each render that long first, so that concurrent requests surely overlap: the
 * one place left where a test wraps deps.pool.render (see issue 31: a real busy pool is to come).
 */
export function probeRenders(s: Running, opts: { delayMs?: number } = {}): RenderProbe {
  const pool = s.deps.pool as PagePool & { render: PagePool['render'] };
  const start = pool.stats().renders ?? 0;
  if (opts.delayMs) {
    const original = pool.render;
    pool.render = async (req, ...rest) => {
      await new Promise((r) => setTimeout(r, opts.delayMs));
      return original.call(pool, req, ...rest);
    };
  }
  return {
    get count() {
      return (pool.stats().renders ?? 0) - start;
    },
    restore() {
      delete (pool as { render?: unknown }).render;
    },
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
