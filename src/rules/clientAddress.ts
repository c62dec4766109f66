// The identity a per-client limit is kept for (pure): an IPv4 address, or the /64 of an IPv6
// address, so rotating through one subscriber's block gains nothing.
import { isIP } from 'node:net';

/** The identity a window is kept for: an IPv4 address, or the /64 of an IPv6 address. */
export function clientKey(ip: string): string {
  let a = ip.trim();
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1]!;
  switch (isIP(a)) {
    case 4:
      return a;
    case 6:
      return `${expandIpv6(a).slice(0, 4).join(':')}::/64`;
    default:
      // not an address (a misconfigured proxy header): bounded, so it cannot bloat the table
      return `other:${a.slice(0, 64)}`;
  }
}

/** Eight lower-case hextets without leading zeros, "::" expanded (embedded IPv4 converted). */
export function expandIpv6(a: string): string[] {
  let s = a.toLowerCase();
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const [b1, b2, b3, b4] = v4.slice(1).map(Number) as [number, number, number, number];
    s = s.slice(0, v4.index) + `${((b1 << 8) | b2).toString(16)}:${((b3 << 8) | b4).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail !== undefined ? Array<string>(8 - left.length - right.length).fill('0') : [];
  return [...left, ...fill, ...right].map((h) => (parseInt(h, 16) || 0).toString(16));
}
