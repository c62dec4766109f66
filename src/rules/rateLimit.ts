// Rate-limit windows as pure arithmetic (no I/O): the store keeps the state, this decides.
// Token bucket + hourly window, per account: docs/decisions/0004-rate-limits.md.

export interface RateLimits {
  readonly perMinute: number;
  readonly perHour: number;
  readonly burst: number;
}

export interface RateState {
  tokens: number;
  refilledAt: number; // ms
  hourStart: number; // ms
  hourCount: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds. */
  resetAt: number;
  /** Seconds until a request would be allowed (0 when allowed). */
  retryAfterS: number;
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

export function freshState(limits: RateLimits, now: number): RateState {
  return { tokens: limits.burst, refilledAt: now, hourStart: Math.floor(now / HOUR_MS) * HOUR_MS, hourCount: 0 };
}

// Per-minute + burst = one token bucket: it holds at most `burst` requests and refills at
// `perMinute` per minute, so a quiet client may send `burst` at once and then `perMinute` a
// minute. Per-hour = a fixed window aligned to the clock hour (UTC): at most `perHour` requests
// from hh:00:00 to hh:59:59. A request is allowed when both have room; only an allowed request
// takes from them.
//
// Headers: X-RateLimit-Limit = burst (the most a client can send right now when idle);
// X-RateLimit-Remaining = what it may send right now (bucket tokens, capped by the hour's room);
// X-RateLimit-Reset = Unix seconds when Remaining is back at Limit (or, when the hour window is
// the tighter one, when the hour ends).
/** Advances the state to `now`, then (when `take` and allowed) takes one request. */
export function rateStep(prev: RateState | null, limits: RateLimits, now: number, take: boolean): { state: RateState; decision: RateDecision } {
  const s: RateState = prev ? { ...prev } : freshState(limits, now);
  if (now > s.refilledAt) {
    s.tokens = Math.min(limits.burst, s.tokens + ((now - s.refilledAt) * limits.perMinute) / MINUTE_MS);
    s.refilledAt = now;
  }
  // Limits may have changed (plan change): never hold more than the bucket's size.
  if (s.tokens > limits.burst) s.tokens = limits.burst;
  if (now >= s.hourStart + HOUR_MS || now < s.hourStart) {
    s.hourStart = Math.floor(now / HOUR_MS) * HOUR_MS;
    s.hourCount = 0;
  }
  const allowed = s.tokens >= 1 && s.hourCount < limits.perHour;
  if (allowed && take) {
    s.tokens -= 1;
    s.hourCount += 1;
  }
  const hourRoom = Math.max(0, limits.perHour - s.hourCount);
  const bucketRoom = Math.max(0, Math.floor(s.tokens + 1e-9));
  const remaining = Math.min(bucketRoom, hourRoom);
  const hourEnd = s.hourStart + HOUR_MS;
  const bucketFullAt = now + ((limits.burst - s.tokens) * MINUTE_MS) / limits.perMinute;
  const resetMs = hourRoom < bucketRoom || hourRoom === 0 ? hourEnd : bucketFullAt;
  let retryAfterMs = 0;
  if (!allowed) {
    const tokenWait = s.tokens >= 1 ? 0 : ((1 - s.tokens) * MINUTE_MS) / limits.perMinute;
    const hourWait = s.hourCount >= limits.perHour ? hourEnd - now : 0;
    retryAfterMs = Math.max(tokenWait, hourWait);
  }
  return {
    state: s,
    decision: {
      allowed,
      limit: limits.burst,
      remaining,
      resetAt: Math.ceil(resetMs / 1000),
      retryAfterS: allowed ? 0 : Math.max(1, Math.ceil(retryAfterMs / 1000)),
    },
  };
}
