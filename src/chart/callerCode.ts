// Whether a stored request could run caller code when rendered (pure): a superset of what the
// page revives, so "no" is always safe.
import type { RenderRequest } from './request.js';

// The page revives a string into a function only when functions are allowed and the string
// contains "function" or "=>" (renderer-page/harness/revive.js cleanConfig); this answers for any such
// string anywhere, labels and data included.
export function mayRunCallerCode(req: RenderRequest): boolean {
  if (!req.allowFunctions) return false;
  // a JavaScript config is code as a whole
  if (req.configJs !== undefined) return true;
  // Iterative: a stored config is depth-limited at creation, but this must not trust that.
  const stack: unknown[] = [req.config];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('function') || v.includes('=>')) return true;
    } else if (v !== null && typeof v === 'object') {
      for (const x of Object.values(v as Record<string, unknown>)) stack.push(x);
    }
  }
  return false;
}

/** The key that stored a request, as far as the rule needs it (null: gone). */
export type StoringKey = { revokedAt: number | null; expiresAt: number | null } | null;

/** Whether a key may still run code it stored: not revoked, not expired. */
function keyMayRunCode(key: StoringKey, now: number): boolean {
  return key !== null && key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}

/**
 * A stored request as it may be rendered `now`: the one statement of the rule that a revoked or
 * expired key's code never runs again (null: refuse); a request with nothing to revive renders
 * the same image without the means to run any code. `key` is looked up only for a request that
 * allows functions (needsKey), so the others cost no store read.
 */
export function requestUnderKey(req: RenderRequest, key: StoringKey, now: number): RenderRequest | null {
  if (!req.allowFunctions || keyMayRunCode(key, now)) return req;
  return mayRunCallerCode(req) ? null : { ...req, allowFunctions: false };
}

/** Whether requestUnderKey needs the storing key at all (a request without functions does not). */
export const needsKey = (req: RenderRequest): boolean => req.allowFunctions;

export const KEY_GONE_DETAIL = 'this chart can no longer be rendered: the API key that created it was revoked or has expired';
