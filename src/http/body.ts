// JSON bodies, read with a byte limit before anything is parsed.
import type { Middleware } from 'koa';
import { invalidInput } from '../errors.js';

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
    if (text.trim() !== '') {
      const type = ctx.get('content-type');
      if (type && !/json/i.test(type)) throw invalidInput('send the body as application/json');
      try {
        body = JSON.parse(text);
      } catch (err) {
        throw invalidInput(`the body is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
      }
    }
    (ctx.request as { body?: unknown }).body = body;
    await next();
  };
}
