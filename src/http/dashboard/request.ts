// What the dashboard reads from a request and writes on its answers: cookies, a bounded form
// body, the page headers (a strict CSP with a fresh nonce per answer).
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { invalidInput } from '../../errors.js';
import { tooLarge, type BodyReader } from '../body.js';

export const SESSION_COOKIE = 'chartshot_dashboard';
export const LOGIN_CSRF_COOKIE = 'chartshot_login';
export const OIDC_COOKIE = 'chartshot_oidc';

/** A form is a few fields: the signed-URL helper's config (6,000 characters) is the largest. */
export const MAX_FORM_BYTES = 32 * 1024;

export function readCookie(ctx: Context, name: string): string | undefined {
  const header = ctx.get('cookie');
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9._~-]{1,512}$/.test(v) ? v : undefined;
    }
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeS: number;
  path?: string;
  sameSite?: 'Strict' | 'Lax';
}

/** HttpOnly always; Secure when the request came over https (X-Forwarded-Proto only with TRUST_PROXY). */
export function setCookie(ctx: Context, name: string, value: string, o: CookieOptions): void {
  const parts = [`${name}=${value}`, `Path=${o.path ?? '/'}`, `Max-Age=${Math.max(0, Math.floor(o.maxAgeS))}`, 'HttpOnly', `SameSite=${o.sameSite ?? 'Strict'}`];
  if (ctx.secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(ctx: Context, name: string, path = '/'): void {
  setCookie(ctx, name, '', { maxAgeS: 0, path });
}

/** application/x-www-form-urlencoded, at most MAX_FORM_BYTES; anything else is refused. */
export async function readForm(ctx: Context, bodies: Pick<BodyReader, 'read'>): Promise<URLSearchParams> {
  const type = ctx.get('content-type');
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) throw invalidInput('send the form as application/x-www-form-urlencoded');
  // the JSON API's reader: an oversized body (declared or chunked) is a 400 with Connection: close, not read on
  if (Number(ctx.get('content-length') || 0) > MAX_FORM_BYTES) throw tooLarge(ctx, MAX_FORM_BYTES);
  return new URLSearchParams((await bodies.read(ctx, MAX_FORM_BYTES)).toString('utf8'));
}

export const newNonce = (): string => randomBytes(16).toString('base64');

/** Only this answer's inline style and script run; images may be our own or data: (the usage chart). */
export function pageHeaders(ctx: Context, nonce: string): void {
  ctx.set('Content-Security-Policy', [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '));
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}
