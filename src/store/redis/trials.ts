// Trial claims in Redis: one per address per window, claimed by a Lua script, so two instances
// cannot both hand out a trial to one address. Redis away: the claim fails as unavailable.
import type { TrialSignupStore } from '../metering.js';
import { StorageError } from '../errors.js';
import type { RedisLink } from './client.js';

const unavailable = (err?: unknown) =>
  new StorageError('unavailable', `trial claims are unavailable: ${err instanceof Error ? err.message : 'redis disconnected'}`, 'REDIS_DOWN');

export function redisTrials(link: RedisLink): TrialSignupStore {
  const r = link.redis;
  return {
    // A fallback to the store would forget the claims Redis holds and hand out a second trial.
    async claim(ipHash, now, windowMs) {
      if (!link.up) throw unavailable();
      try {
        const [ok, value] = await r.trialClaim(`trial:${ipHash}`, 'trial:seq', String(now), String(windowMs));
        if (ok !== 1) return { ok: false, retryAt: Number(value) };
        const claimId = Number(value);
        await r.set(`trial-claim:${claimId}`, ipHash, 'PX', Math.max(1, Math.ceil(windowMs)));
        return { ok: true, claimId };
      } catch (err) {
        link.failed(err, 'trial claims');
        throw unavailable(err);
      }
    },
    async attach(claimId) {
      // the claim stands for its window; only the way back to it (for drop) is no longer needed
      await r.del(`trial-claim:${claimId}`).catch((err: unknown) => link.failed(err, 'trial claims'));
    },
    // Called while a failed sign-up unwinds: a failure here is logged, not thrown over the cause.
    async drop(claimId) {
      try {
        const ipHash = await r.get(`trial-claim:${claimId}`);
        if (ipHash === null) return;
        await r.trialDrop(`trial:${ipHash}`, String(claimId));
        await r.del(`trial-claim:${claimId}`);
      } catch (err) {
        link.failed(err, 'trial claims');
      }
    },
  };
}
