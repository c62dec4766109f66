// JSON bodies, read with a byte limit before anything is parsed.
import type { Context, Middleware } from 'koa';
import { invalidInput, type AppError } from '../errors.js';
import { MAX_JSON_DEPTH, scanJson, utf8, type JsonScan } from '../chart/jsonDepth.js';
import { rememberConfigJson } from '../chart/request.js';

export function jsonBody(maxBytes: number): Middleware {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > maxBytes) throw tooLarge(ctx, maxBytes);
    const bytes = await readBody(ctx, maxBytes);
    const text = bytes.length === 0 ? '' : bytes.toString('utf8');
    let body: unknown = {};
    let bad: AppError | undefined;
    if (text.trim() !== '') {
      const type = ctx.get('content-type');
      if (type && !/json/i.test(type)) bad = invalidInput('send the body as application/json');
      else {
        const scan = scanJson(bytes);
        if (scan.depth > MAX_JSON_DEPTH) bad = invalidInput(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
        else {
          try {
            body = JSON.parse(text);
            keepConfigText(body, bytes, scan);
          } catch (err) {
            bad = invalidInput(`the body is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
          }
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

/** A chart config object in the body keeps its own text: the page gets it without serialising it again. */
function keepConfigText(body: unknown, bytes: Buffer, scan: JsonScan): void {
  if (!scan.members || typeof body !== 'object' || body === null || Array.isArray(body)) return;
  for (const field of ['chart', 'c']) {
    const value = (body as Record<string, unknown>)[field];
    const span = scan.members.get(field);
    if (span && typeof value === 'object' && value !== null && !Array.isArray(value)) rememberConfigJson(value, utf8(bytes, span[0], span[1]));
  }
}

/**
 * The body's bytes, at most maxBytes (else the tooLarge error). Plain stream events, not an
 * async iterator: the iterator's promise per chunk cost about a tenth of a millisecond even
 * for a one-chunk body. One chunk is used as it is, without a copy.
 */
export function readBody(ctx: Context, maxBytes: number): Promise<Buffer> {
  const req = ctx.req;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      // tooLarge pauses the request: reading stops, the socket is not torn down before the 400 is out
      if (size > maxBytes) done(tooLarge(ctx, maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => done(null);
    const onError = (err: Error) => done(err);
    // the client went away before the body ended: the same error the stream's iterator gives
    const onClose = () => done(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** How long a closing connection may still send before it is cut (the 400 is out by then). */
const LINGER_MS = 2000;

/**
 * An oversized body is answered, not read: Connection: close, reading stops, and once the
 * answer is flushed the socket is ended and, after a short linger, destroyed (Node would
 * otherwise drain the rest of the body, however large, to keep the connection alive).
 */
export function tooLarge(ctx: Context, maxBytes: number): AppError {
  const socket = ctx.req.socket;
  ctx.req.pause();
  ctx.res.once('finish', () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
  const err = invalidInput(`body larger than ${maxBytes} bytes`);
  // the error mapper copies these onto the response
  (err.headers as Record<string, string>).Connection = 'close';
  return err;
}
