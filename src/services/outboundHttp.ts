// Outbound HTTP for webhooks: http(s) to public addresses only, connecting to the very address
// that was vetted (no DNS rebinding), redirects not followed.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddress } from '../rules/outboundAddresses.js';

// Public addresses only unless allowPrivate. The name is resolved once and the connection made to
// the very address that was vetted (a custom lookup), so a DNS answer that changes between check
// and connect (rebinding) gains nothing. Redirects are not followed: the caller sees the 3xx.
/** The target may never be reached (scheme or address): retrying cannot help. */
export class RefusedTarget extends Error {}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Scheme and, for a literal IP host, its range; names are checked when resolved. */
export function checkTargetUrl(raw: string, allowPrivate: boolean): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new RefusedTarget('not a valid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RefusedTarget(`scheme ${u.protocol} is not http(s)`);
  if (u.username || u.password) throw new RefusedTarget('credentials in the URL are not allowed');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    if (isIP(host)) {
      const why = refusedAddress(host);
      if (why) throw new RefusedTarget(`${host} is ${why}; set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
    } else if (/^localhost\.?$|\.localhost\.?$/i.test(host)) {
      throw new RefusedTarget(`${host} is loopback; set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
    }
  }
  return u;
}

/** A lookup that refuses the whole name when any address it resolves to is not public. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const bad = allowPrivate ? undefined : addresses.find((a) => refusedAddress(a.address) !== null);
      if (bad) {
        return callback(new RefusedTarget(`${hostname} resolves to ${bad.address}, ${refusedAddress(bad.address)}; set WEBHOOK_ALLOW_PRIVATE=true to allow it`) as NodeJS.ErrnoException, '', 0);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** POSTs the body; resolves with the status code (the response body is discarded, bounded by the timeout). */
export function postGuarded(rawUrl: string, o: PostOptions): Promise<number> {
  const u = checkTargetUrl(rawUrl, o.allowPrivate);
  const opts: RequestOptions = {
    method: 'POST',
    headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
    lookup: guardedLookup(o.allowPrivate),
    signal: AbortSignal.timeout(o.timeoutMs),
    // no connection reuse: every delivery resolves and vets the name again
    agent: false,
  };
  return new Promise((resolve, reject) => {
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, opts, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', (err) => reject(err instanceof RefusedTarget ? err : (err as { cause?: unknown }).cause instanceof RefusedTarget ? (err as { cause: Error }).cause : err));
    req.end(o.body);
  });
}

export interface GetOptions {
  timeoutMs: number;
  /** Larger bodies are cut off and refused. */
  maxBytes: number;
  allowPrivate: boolean;
  headers?: Record<string, string>;
}

export interface GetResult {
  status: number;
  contentType: string;
  body: Buffer;
}

/** A GET through the same guard: public addresses only, no redirects followed (the 3xx is the
 *  answer), the whole exchange within timeoutMs, the body at most maxBytes (else a TooLarge). */
export class TooLarge extends Error {}

export function getGuarded(rawUrl: string, o: GetOptions): Promise<GetResult> {
  const u = checkTargetUrl(rawUrl, o.allowPrivate);
  const opts: RequestOptions = {
    method: 'GET',
    headers: { ...(o.headers ?? {}), 'accept-encoding': 'identity' },
    lookup: guardedLookup(o.allowPrivate),
    signal: AbortSignal.timeout(o.timeoutMs),
    agent: false,
  };
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => reject(err instanceof RefusedTarget || err instanceof TooLarge ? err : (err as { cause?: unknown }).cause instanceof RefusedTarget ? (err as { cause: Error }).cause : err);
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, opts, (res) => {
      const status = res.statusCode ?? 0;
      const contentType = String(res.headers['content-type'] ?? '');
      if (status !== 200) {
        resolve({ status, contentType, body: Buffer.alloc(0) });
        return res.destroy();
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > o.maxBytes) {
        reject(new TooLarge(`${declared} bytes; at most ${o.maxBytes}`));
        return res.destroy();
      }
      const parts: Buffer[] = [];
      let got = 0;
      res.on('data', (b: Buffer) => {
        got += b.length;
        if (got > o.maxBytes) {
          reject(new TooLarge(`more than ${o.maxBytes} bytes`));
          res.destroy();
          return;
        }
        parts.push(b);
      });
      res.on('end', () => resolve({ status, contentType, body: Buffer.concat(parts) }));
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('the response was cut off')));
    });
    req.on('error', fail);
    req.end();
  });
}
