// Who may read GET /metrics: the holder of METRICS_TOKEN (Authorization: Bearer), or, when no
// token is set, a client on this machine (by socket address, never by a header).
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

export type MetricsAccess = 'allowed' | 'unauthorized' | 'forbidden';

export interface MetricsRequest {
  /** METRICS_TOKEN, or null when unset. */
  token: string | null;
  /** The Authorization header as sent ('' when absent). */
  authorization: string;
  /** The TCP peer's address (req.socket.remoteAddress). */
  remoteAddress: string | undefined;
  /** A proxy header (X-Forwarded-For, Forwarded, X-Real-IP) is present. */
  forwarded: boolean;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped form. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.replace(/^::ffff:/i, '');
  if (isIP(a) === 4) return a.startsWith('127.');
  return isIP(address) === 6 && /^(?:0{0,4}:){2,7}0{0,3}1$|^::1$/.test(address);
}

function sameToken(given: string, expected: string): boolean {
  // hash first: equal lengths for timingSafeEqual, and no length leak
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function metricsAccess(r: MetricsRequest): MetricsAccess {
  if (r.token !== null) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(r.authorization);
    return m && sameToken(m[1]!, r.token) ? 'allowed' : 'unauthorized';
  }
  // A local reverse proxy connects from loopback on behalf of anyone: a forwarded request is
  // not a local client, whatever TRUST_PROXY says.
  return isLoopback(r.remoteAddress) && !r.forwarded ? 'allowed' : 'forbidden';
}
