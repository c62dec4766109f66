// The open endpoint's per-client sliding windows in Redis: a sorted set of render times per
// client, checked and added to by one Lua script. Redis away: the store's windows answer.
import { randomBytes } from 'node:crypto';
import type { OpenRenderWindows, WindowTake } from '../types.js';
import type { RedisLink } from './client.js';

export function redisOpenWindows(link: RedisLink, fallback: OpenRenderWindows): OpenRenderWindows {
  return {
    async take(client, now, windowMs, limit): Promise<WindowTake> {
      if (link.up) {
        try {
          // a random member: two renders in one millisecond are two entries
          const [allowed, used, retry] = await link.redis.windowTake(`open:${client}`, String(now), String(windowMs), String(limit), randomBytes(8).toString('base64url'));
          return { allowed: allowed === 1, used, retryAfterMs: Number(retry) };
        } catch (err) {
          link.failed(err, 'open windows');
        }
      }
      return fallback.take(client, now, windowMs, limit);
    },
    async purge(before) {
      // Redis entries expire with their set (PEXPIRE windowMs); the fallback's rows need purging.
      return fallback.purge(before);
    },
  };
}
