// With REDIS_URL: the Redis families (rate limits, open windows, trial claims) laid over the
// store's, the shared hot image tier and the cross-instance render leases.
import type { Logger } from '../../log.js';
import type { Store } from '../types.js';
import { connectRedis, type RedisConnectOptions, type RedisLink } from './client.js';
import { redisRateLimits } from './rateLimits.js';
import { redisOpenWindows } from './openWindows.js';
import { redisTrials } from './trials.js';
import { redisHotTier, type HotImageTier } from './hotTier.js';
import { redisFlights, type SharedFlights } from './flights.js';

export interface RedisParts {
  link: RedisLink;
  /** The store with rate limits, open windows and trial claims in Redis; close() closes both. */
  store: Store;
  hotTier: HotImageTier;
  flights: SharedFlights;
}

export interface RedisSettings {
  redisUrl: string | null;
  /** Byte budget of the shared hot tier. */
  redisCacheMaxBytes: number;
  renderTimeoutMs: number;
}

/** Redis-backed parts over `store`, or null without REDIS_URL. */
export async function openRedis(config: RedisSettings, store: Store, log?: Logger, connect: Partial<RedisConnectOptions> = {}): Promise<RedisParts | null> {
  if (!config.redisUrl) return null;
  const link = await connectRedis({ url: config.redisUrl, ...connect }, log);
  return {
    link,
    store: withRedis(store, link),
    hotTier: redisHotTier(link, config.redisCacheMaxBytes),
    // a lease outlives any render (its timeout) and the store write after it
    flights: redisFlights(link, { leaseMs: config.renderTimeoutMs * 2 + 5000 }),
  };
}

export function withRedis(store: Store, link: RedisLink): Store {
  return {
    ...store,
    rateLimits: redisRateLimits(link, store.rateLimits),
    openWindows: redisOpenWindows(link, store.openWindows),
    trials: redisTrials(link),
    async close() {
      await link.close();
      await store.close();
    },
  };
}
