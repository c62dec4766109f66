// Account rate limits in Redis: rateStep's token bucket and hour window as one Lua script, so
// every instance takes from the same bucket. Redis away: the store's windows answer instead.
import type { RateDecision } from '../../rules/rateLimit.js';
import type { RateLimitStore } from '../metering.js';
import type { RedisLink } from './client.js';

export function redisRateLimits(link: RedisLink, fallback: RateLimitStore): RateLimitStore {
  const step = async (subject: string, limits: Parameters<RateLimitStore['hit']>[1], now: number, take: boolean): Promise<RateDecision> => {
    const [allowed, limit, remaining, resetAt, retryAfterS] = await link.redis.rateStep(
      `rate:${subject}`, String(limits.perMinute), String(limits.perHour), String(limits.burst), String(now), take ? '1' : '0',
    );
    return { allowed: allowed === 1, limit: Number(limit), remaining: Number(remaining), resetAt: Number(resetAt), retryAfterS: Number(retryAfterS) };
  };
  // Degrade to the store (correct, slower, its own windows): never to "no limit".
  const guarded = (take: boolean) => async (subject: string, limits: Parameters<RateLimitStore['hit']>[1], now: number) => {
    if (link.up) {
      try {
        return await step(subject, limits, now, take);
      } catch (err) {
        link.failed(err, 'rate limits');
      }
    }
    return take ? fallback.hit(subject, limits, now) : fallback.peek(subject, limits, now);
  };
  return { hit: guarded(true), peek: guarded(false) };
}
