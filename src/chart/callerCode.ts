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

/** Whether a key may still run code it stored: not revoked, not expired. */
export function keyMayRunCode(key: { revokedAt: number | null; expiresAt: number | null } | null, now: number): boolean {
  return key !== null && key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}

/**
 * A stored request as it may be rendered now. The key that stored it was revoked or has expired:
 * its code never runs again (null: refuse), and a request with nothing to revive renders the same
 * image without the means to run any code.
 */
export function requestUnderKey(req: RenderRequest, keyUsable: boolean): RenderRequest | null {
  if (!req.allowFunctions || keyUsable) return req;
  return mayRunCallerCode(req) ? null : { ...req, allowFunctions: false };
}

export const KEY_GONE_DETAIL = 'this chart can no longer be rendered: the API key that created it was revoked or has expired';
