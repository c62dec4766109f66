// JSON bodies, read with a byte limit before anything is parsed.
import type { Middleware } from 'koa';
import { invalidInput, type AppError } from '../errors.js';

/**
 * Deepest nesting a body may have. Chart.js configs stay near 10; a body nested thousands deep
 * parses fine but overflows the stack of every recursive walk after it (structuredClone, ajv,
 * the canonical digest), which would be a 500 for a client's mistake.
 */
export const MAX_JSON_DEPTH = 64;

/** The deepest [ / { nesting of JSON text, brackets inside strings ignored (linear, no parse). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93 /* } ] */) depth--;
  }
  return max;
}

export function jsonBody(maxBytes: number): Middleware {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > maxBytes) throw invalidInput(`body larger than ${maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw invalidInput(`body larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = {};
    let bad: AppError | undefined;
    if (text.trim() !== '') {
      const type = ctx.get('content-type');
      if (type && !/json/i.test(type)) bad = invalidInput('send the body as application/json');
      else if (nestingDepth(text) > MAX_JSON_DEPTH) bad = invalidInput(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
      else {
        try {
          body = JSON.parse(text);
        } catch (err) {
          bad = invalidInput(`the body is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
        }
      }
    }
    if (bad) {
      // Thrown when a route reads the body, i.e. after authentication and the rate limiter,
      // so a keyed request with a malformed body still gets 401 or its X-RateLimit-* headers.
      const err = bad;
      Object.defineProperty(ctx.request, 'body', {
        configurable: true,
        get() {
          throw err;
        },
      });
    } else (ctx.request as { body?: unknown }).body = body;
    await next();
  };
}
