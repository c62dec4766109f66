// Request bodies, read only once a route has matched and its caller passed authentication and
// the rate limit (the router puts the reader after them), each with its route's byte limit, a
// deadline for the whole body and a place in the process's budget of bytes in flight; then
// parsed as JSON, with a depth limit checked before anything is parsed.
import type { Context, Middleware } from 'koa';
import { invalidInput, serviceUnavailable, type AppError } from '../errors.js';
import { MAX_JSON_DEPTH, scanJson, utf8, type JsonScan } from '../chart/jsonDepth.js';
import type { BodyBudget } from './bodyBudget.js';
import { lingerClose, settleUnreadBody } from './linger.js';
import { absent } from '../chart/fieldAlias.js';

/**
 * The largest body a route anyone may call reads (no key yet: POST /signup/anon, keyless
 * QuickChart POST /chart): the open endpoint's configs are at most 6 KB, so 32 KiB holds one
 * pretty-printed with room to spare, and parsing it costs next to nothing.
 */
export const ANONYMOUS_BODY_BYTES = 32 * 1024;

/** Whose body a reader reads: anyone's (ANONYMOUS_BODY_BYTES) or an authenticated caller's (MAX_BODY_BYTES). */
export type BodyClass = 'anonymous' | 'authenticated';

export interface BodyLimits {
  /** MAX_BODY_BYTES: authenticated routes. */
  maxBytes: number;
  /** BODY_READ_TIMEOUT_MS, from the first read of the body. */
  readTimeoutMs: number;
  /** MAX_BODY_BYTES_IN_FLIGHT, shared by every request of the process. */
  budget: BodyBudget;
}

/**
 * The process's body reader: its limits (MAX_BODY_BYTES, BODY_READ_TIMEOUT_MS, the budget of
 * bytes in flight) travel with it, a value createApp makes once and hands to the router, the
 * QuickChart caller step and the dashboard's forms.
 */
export class BodyReader {
  constructor(readonly limits: BodyLimits) {}

  /** The byte limit of a class of caller. */
  limit(cls: BodyClass): number {
    return cls === 'anonymous' ? Math.min(ANONYMOUS_BODY_BYTES, this.limits.maxBytes) : this.limits.maxBytes;
  }

  /** The body's bytes, at most maxBytes, under the process's deadline and budget (readBody). */
  read(ctx: Context, maxBytes: number): Promise<Buffer> {
    return readBody(ctx, maxBytes, this.limits);
  }

  /** Reads and parses the JSON body (at most maxBytes) into ctx.request.body (readJsonBody). */
  readJson(ctx: Context, maxBytes: number): Promise<void> {
    return readJsonBody(ctx, maxBytes, this.limits);
  }

  /** The route's body reader: reads and parses the JSON body with the class's limit, then the rest of the chain. */
  json(cls: BodyClass): Middleware {
    const maxBytes = this.limit(cls);
    return async (ctx, next) => {
      await this.readJson(ctx, maxBytes);
      await next();
    };
  }
}

/** Reads the body (at most maxBytes; under `limits` when given) and sets ctx.request.body (see setJsonBody). */
export async function readJsonBody(ctx: Context, maxBytes: number, limits?: BodyLimits): Promise<void> {
  if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return;
  setJsonBody(ctx, await readBody(ctx, maxBytes, limits));
}

/**
 * Parses `bytes` as the JSON body: ctx.request.body is the value, or a getter that throws the
 * 400 when the body is not JSON (thrown when the route reads it: a QuickChart error image, or
 * the input check, names it).
 */
export function setJsonBody(ctx: Context, bytes: Buffer): void {
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
          ctx.state.bodyConfigJson = configText(body, bytes, scan);
        } catch (err) {
          bad = invalidInput(`the body is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
        }
      }
    }
  }
  if (bad) {
    const err = bad;
    Object.defineProperty(ctx.request, 'body', {
      configurable: true,
      get() {
        throw err;
      },
    });
  } else {
    Object.defineProperty(ctx.request, 'body', { configurable: true, writable: true, value: body });
  }
}

/**
 * The JSON text of the body's chart config object, as sent: chart's, or c's when chart is absent
 * (the one the request's fields pick: pickAlias). The route hands it to the service with the
 * fields (ctx.state.bodyConfigJson), so the page gets it without serialising it again.
 */
function configText(body: unknown, bytes: Buffer, scan: JsonScan): string | undefined {
  if (!scan.members || typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  const field = absent(fields.chart) ? 'c' : 'chart';
  const value = fields[field];
  const span = scan.members.get(field);
  return span && typeof value === 'object' && value !== null && !Array.isArray(value) ? utf8(bytes, span[0], span[1]) : undefined;
}

/**
 * The body's bytes, at most maxBytes (else the tooLarge error), whole within BODY_READ_TIMEOUT_MS
 * (else 400 and the connection closed), each byte reserved in the process's budget first (else
 * 503 with Retry-After, nothing read). A declared Content-Length is judged before anything is
 * read; a chunked body as it arrives. Plain stream events, not an async iterator: the
 * iterator's promise per chunk cost about a tenth of a millisecond even for a one-chunk body.
 * One chunk is used as it is, without a copy.
 */
function readBody(ctx: Context, maxBytes: number, limits: BodyLimits | undefined): Promise<Buffer> {
  const req = ctx.req;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxBytes) return Promise.reject(tooLarge(ctx, maxBytes));
  const budget = limits?.budget;
  let reserved = 0;
  if (budget && declared > 0) {
    if (!budget.reserve(declared)) return Promise.reject(overBudget(ctx, limits));
    reserved = declared;
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = limits ? setTimeout(() => done(stalled(ctx, limits.readTimeoutMs)), limits.readTimeoutMs) : undefined;
    const done = (err: Error | null) => {
      if (timer) clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      budget?.release(reserved);
      reserved = 0;
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (budget) budget.bytesRead += chunk.length;
      if (size > maxBytes) return done(tooLarge(ctx, maxBytes));
      // a chunked body (or one longer than declared) reserves as it grows
      if (budget && size > reserved) {
        if (!budget.reserve(size - reserved)) return done(overBudget(ctx, limits!));
        reserved = size;
      }
      chunks.push(chunk);
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

/**
 * An oversized body is answered, not read: the 400 goes out at once and the rest of the body is
 * read and thrown away for a bounded time and size (settleUnreadBody), so a client or a proxy
 * that sends it whole before reading still reads its answer, on a connection it may keep.
 */
export function tooLarge(ctx: Context, maxBytes: number): AppError {
  settleUnreadBody(ctx);
  return invalidInput(`body larger than ${maxBytes} bytes`);
}

/** The process holds as many body bytes as it may: 503, and this body is not read. */
function overBudget(ctx: Context, limits: BodyLimits): AppError {
  settleUnreadBody(ctx);
  // what is held is freed within a read deadline at the latest
  return serviceUnavailable(Math.min(5, limits.readTimeoutMs / 1000), 'too many request bodies arriving at once; try again');
}

/** The body stopped arriving: 400, and the connection is closed (after a bounded drain). */
function stalled(ctx: Context, readTimeoutMs: number): AppError {
  lingerClose(ctx);
  return invalidInput(`the request body did not arrive whole within ${readTimeoutMs} ms`);
}
