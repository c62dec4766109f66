// Identical renders across instances: the first to take a short lease (SET NX PX) renders and
// stores the image; the others poll the cache with backoff until it appears or the lease ends.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisLink } from './client.js';

export interface SharedFlights {
  /**
   * `render` (which stores its result in the cache) when no other instance is rendering `key`;
   * otherwise the result `cached` finds once that instance stored it. Falls back to `render`
   * when the other instance gave up (its lease ended without an image) or Redis is away.
   */
  run<T>(key: string, render: () => Promise<T>, cached: () => Promise<T | null>, signal?: AbortSignal): Promise<T>;
  /** Callers of this instance polling for another instance's render now. */
  waiting(): number;
}

export interface SharedFlightOptions {
  /** Lease of a render, ms: longer than a render may take (RENDER_TIMEOUT_MS plus the store write). */
  leaseMs: number;
  /** First poll delay, doubled up to maxPollMs. */
  firstPollMs?: number;
  maxPollMs?: number;
}

export function redisFlights(link: RedisLink, opts: SharedFlightOptions): SharedFlights {
  const r = link.redis;
  const first = opts.firstPollMs ?? 20;
  const most = opts.maxPollMs ?? 250;
  let polling = 0;
  return {
    waiting: () => polling,
    async run(key, render, cached, signal) {
      const lock = `flight:${key}`;
      const token = randomBytes(12).toString('base64url');
      // real time, not the service clock: the lease is Redis's
      const deadline = Date.now() + opts.leaseMs;
      let delay = first;
      for (;;) {
        if (!link.up) return await render();
        let leased: boolean;
        try {
          leased = (await r.set(lock, token, 'PX', opts.leaseMs, 'NX')) === 'OK';
        } catch (err) {
          link.failed(err, 'render leases');
          return await render();
        }
        if (leased) {
          try {
            // the image may have been stored between the caller's cache miss and this lease
            const found = await cached();
            return found !== null ? found : await render();
          } finally {
            await r.unlock(lock, token).catch((err: unknown) => link.failed(err, 'render leases'));
          }
        }
        polling++;
        try {
          await sleep(delay, undefined, { signal });
        } finally {
          polling--;
        }
        delay = Math.min(most, delay * 2);
        const found = await cached();
        if (found !== null) return found;
        // the holder is stuck past its lease: render rather than wait on
        if (Date.now() > deadline) return await render();
      }
    },
  };
}
