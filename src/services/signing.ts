// Signed GET /v1/chart URLs: HMAC-SHA256 over the raw query string up to "&sig=", exp at most a
// year ahead. Why this way: docs/decisions/0005-signed-urls.md.
import { invalidInput, unauthorized } from '../errors.js';
import { hmacHex, safeEqualHex } from './credentials.js';

export const MAX_SIGNED_LIFETIME_S = 366 * 86400;

/** Verifies a raw query string; `resolve` looks up the key named by key_id (throws 401 when unknown). */
export async function verifySignedQuery<T extends { signingSecret: string }>(
  rawQuery: string,
  nowMs: number,
  resolve: () => Promise<T>,
): Promise<T> {
  const at = rawQuery.lastIndexOf('&sig=');
  if (at < 0) throw unauthorized('sig must be the last query parameter');
  const signed = rawQuery.slice(0, at);
  const sig = rawQuery.slice(at + 5);
  if (!/^[0-9a-f]{64}$/.test(sig)) throw unauthorized('invalid signature');
  const params = new URLSearchParams(signed);
  if (params.getAll('sig').length > 0) throw unauthorized('sig must appear once, last');
  const expRaw = params.get('exp');
  if (!expRaw || !/^\d{1,12}$/.test(expRaw)) throw unauthorized('signed URLs need exp (Unix seconds)');
  const exp = Number(expRaw);
  const nowS = Math.floor(nowMs / 1000);
  if (exp <= nowS) throw unauthorized('signed URL expired');
  if (exp > nowS + MAX_SIGNED_LIFETIME_S) throw invalidInput('exp must be at most one year ahead');
  if (!params.get('key_id')) throw unauthorized('signed URLs need key_id');
  const ctx = await resolve();
  if (!safeEqualHex(hmacHex(ctx.signingSecret, signed), sig)) throw unauthorized('invalid signature');
  return ctx;
}

/** Builds a signed query string for the given parameters (CLI `sign` and clients). */
export function signQuery(params: Record<string, string>, keyId: string, secret: string, expUnixS: number): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) q.set(k, v);
  q.set('key_id', keyId);
  q.set('exp', String(expUnixS));
  const raw = q.toString();
  return `${raw}&sig=${hmacHex(secret, raw)}`;
}
