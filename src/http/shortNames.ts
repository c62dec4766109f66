// The short parameter names (w, h, bkg, f) on body routes whose schemas name the long ones
// (width, height, backgroundColor, format): moved to the long name before the schema reads the
// body, so neither is silently ignored; both given with different values is a 400.
import type { Middleware } from 'koa';
import { pickAlias } from '../chart/fieldAlias.js';

export const SHORT_NAMES = [
  ['width', 'w'],
  ['height', 'h'],
  ['backgroundColor', 'bkg'],
  ['format', 'f'],
] as const;

export function shortNames(): Middleware {
  return async (ctx, next) => {
    const req = ctx.request as { body?: unknown };
    const body = req.body;
    if (body && typeof body === 'object' && !Array.isArray(body) && SHORT_NAMES.some(([, s]) => s in body)) {
      const copy = { ...(body as Record<string, unknown>) };
      for (const [long, short] of SHORT_NAMES) {
        if (!(short in copy)) continue;
        const v = pickAlias(copy, long, short);
        delete copy[short];
        if (v !== undefined) copy[long] = v;
      }
      req.body = copy;
    }
    await next();
  };
}
