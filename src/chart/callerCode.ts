// Whether a stored request could run caller code when rendered (pure): a superset of what the
// page revives, so "no" is always safe.
import type { RenderRequest } from './request.js';

// The page revives a string into a function only when functions are allowed and the string
// contains "function" or "=>" (renderer-page/harness.js cleanConfig); this answers for any such
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
