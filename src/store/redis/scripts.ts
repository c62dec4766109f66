// The Lua scripts of the Redis store, each one atomic check-and-change, loaded once per
// connection with defineCommand (EVALSHA afterwards, the source is not sent again).
import type { Redis } from 'ioredis';

// Numbers are stored with %.17g: Lua's tostring keeps 14 digits, which would drift from the
// JavaScript arithmetic the scripts mirror.
const FMT = `local function f(x) return string.format('%.17g', x) end\n`;

/** rateStep of src/rules/rateLimit.ts, line for line. KEYS: state. ARGV: perMinute, perHour, burst, now, take(1|0). */
const RATE_STEP = `${FMT}
local HOUR, MINUTE = 3600000, 60000
local perMinute, perHour, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now, take = tonumber(ARGV[4]), ARGV[5] == '1'
local tokens, refilledAt, hourStart, hourCount
local v = redis.call('HMGET', KEYS[1], 't', 'r', 'h', 'c')
if v[1] then
  tokens, refilledAt, hourStart, hourCount = tonumber(v[1]), tonumber(v[2]), tonumber(v[3]), tonumber(v[4])
else
  tokens, refilledAt, hourStart, hourCount = burst, now, math.floor(now / HOUR) * HOUR, 0
end
if now > refilledAt then
  tokens = math.min(burst, tokens + ((now - refilledAt) * perMinute) / MINUTE)
  refilledAt = now
end
if tokens > burst then tokens = burst end
if now >= hourStart + HOUR or now < hourStart then
  hourStart = math.floor(now / HOUR) * HOUR
  hourCount = 0
end
local allowed = tokens >= 1 and hourCount < perHour
if allowed and take then
  tokens = tokens - 1
  hourCount = hourCount + 1
end
local hourRoom = math.max(0, perHour - hourCount)
local bucketRoom = math.max(0, math.floor(tokens + 1e-9))
local remaining = math.min(bucketRoom, hourRoom)
local hourEnd = hourStart + HOUR
local bucketFullAt = now + ((burst - tokens) * MINUTE) / perMinute
local resetMs = bucketFullAt
if hourRoom < bucketRoom or hourRoom == 0 then resetMs = hourEnd end
local retryAfterS = 0
if not allowed then
  local tokenWait, hourWait = 0, 0
  if tokens < 1 then tokenWait = ((1 - tokens) * MINUTE) / perMinute end
  if hourCount >= perHour then hourWait = hourEnd - now end
  retryAfterS = math.max(1, math.ceil(math.max(tokenWait, hourWait) / 1000))
end
if allowed and take then
  redis.call('HSET', KEYS[1], 't', f(tokens), 'r', f(refilledAt), 'h', f(hourStart), 'c', f(hourCount))
  -- once expired, a fresh state is what the old one would have become: a full bucket, a new hour
  local ttl = math.max(hourEnd - now, ((burst - tokens) * MINUTE) / perMinute)
  redis.call('PEXPIRE', KEYS[1], math.ceil(ttl) + 60000)
end
return {allowed and 1 or 0, f(burst), f(remaining), f(math.ceil(resetMs / 1000)), f(retryAfterS)}
`;

/** The open endpoint's sliding window. KEYS: sorted set of render times. ARGV: now, windowMs, limit, unique member. */
const WINDOW_TAKE = `${FMT}
local now, windowMs, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', f(now - windowMs))
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local retry = windowMs
  if limit > 0 then
    -- the render whose expiry frees a slot: the (n - limit + 1)-th oldest in the window
    local r = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
    if r[2] then retry = math.max(1, tonumber(r[2]) + windowMs - now) end
  end
  return {0, n, f(retry)}
end
redis.call('ZADD', KEYS[1], f(now), ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(windowMs)))
return {1, n + 1, '0'}
`;

/** One trial per address per window. KEYS: the address's claim, the claim id counter. ARGV: now, windowMs. */
const TRIAL_CLAIM = `${FMT}
local now, windowMs = tonumber(ARGV[1]), tonumber(ARGV[2])
local v = redis.call('GET', KEYS[1])
if v then
  local at = tonumber(string.match(v, '^([^/]+)/'))
  if at and at > now - windowMs then return {0, f(at + windowMs)} end
end
local id = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], f(now) .. '/' .. id, 'PX', math.max(1, math.ceil(windowMs)))
return {1, f(id)}
`;

/** Drops a claim only while it is still the address's current one. KEYS: the address's claim. ARGV: claim id. */
const TRIAL_DROP = `
local v = redis.call('GET', KEYS[1])
if v and string.match(v, '/(%d+)$') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Deletes a lock only when it still holds our token. KEYS: lock. ARGV: token. */
const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// The hot tier's byte budget is kept by the tier itself (an LRU sorted set of its keys, their
// sizes and a running total), not by the server's maxmemory policy: evicting by policy could
// as well drop a rate-limit window, which must never happen. Members are full key names, so
// eviction deletes keys the script was not given: fine on one server, not on Redis Cluster.
const EVICT = `
local function evict(lru, sizes, total, budget)
  local n = 0
  while total > budget do
    local o = redis.call('ZRANGE', lru, 0, 0)
    if not o[1] then break end
    local s = tonumber(redis.call('HGET', sizes, o[1]) or '0')
    redis.call('ZREM', lru, o[1])
    redis.call('HDEL', sizes, o[1])
    redis.call('DEL', o[1])
    total = redis.call('INCRBY', KEYS[4], -s)
    n = n + 1
  end
  return n
end
`;

/** KEYS: image, LRU set, sizes hash, total bytes. ARGV: value, ttl ms ('' = none), now, budget bytes. */
const HOT_PUT = `${EVICT}
local old = tonumber(redis.call('HGET', KEYS[3], KEYS[1]) or '0')
local size = string.len(ARGV[1])
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) else redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('HSET', KEYS[3], KEYS[1], size)
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
local total = redis.call('INCRBY', KEYS[4], size - old)
return evict(KEYS[2], KEYS[3], total, tonumber(ARGV[4]))
`;

/** KEYS: image, LRU set, sizes hash, total bytes. */
const HOT_DELETE = `
local s = tonumber(redis.call('HGET', KEYS[3], KEYS[1]) or '0')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('HDEL', KEYS[3], KEYS[1])
if s > 0 then redis.call('INCRBY', KEYS[4], -s) end
return s
`;

export interface Scripted {
  hotPut(key: string, lruKey: string, sizesKey: string, totalKey: string, value: Buffer, ttlMs: string, now: string, budget: string): Promise<number>;
  hotDelete(key: string, lruKey: string, sizesKey: string, totalKey: string): Promise<number>;
  rateStep(key: string, perMinute: string, perHour: string, burst: string, now: string, take: '1' | '0'): Promise<[number, string, string, string, string]>;
  windowTake(key: string, now: string, windowMs: string, limit: string, member: string): Promise<[number, number, string]>;
  trialClaim(key: string, seqKey: string, now: string, windowMs: string): Promise<[number, string]>;
  trialDrop(key: string, claimId: string): Promise<number>;
  unlock(key: string, token: string): Promise<number>;
}

export type ScriptedRedis = Redis & Scripted;

/** Registers the scripts on a connection (EVALSHA, with EVAL once when the server lacks one). */
export function defineScripts(redis: Redis): ScriptedRedis {
  redis.defineCommand('rateStep', { numberOfKeys: 1, lua: RATE_STEP });
  redis.defineCommand('windowTake', { numberOfKeys: 1, lua: WINDOW_TAKE });
  redis.defineCommand('trialClaim', { numberOfKeys: 2, lua: TRIAL_CLAIM });
  redis.defineCommand('trialDrop', { numberOfKeys: 1, lua: TRIAL_DROP });
  redis.defineCommand('hotPut', { numberOfKeys: 4, lua: HOT_PUT });
  redis.defineCommand('hotDelete', { numberOfKeys: 4, lua: HOT_DELETE });
  redis.defineCommand('unlock', { numberOfKeys: 1, lua: UNLOCK });
  return redis as ScriptedRedis;
}
