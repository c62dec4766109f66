// Which IP addresses an outbound request (webhooks) may reach (pure, no I/O): public unicast
// only, however the address is written.
import { isIP } from 'node:net';
import { expandIpv6 } from './clientAddress.js';

const V4_REFUSED: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, '"this network" (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'private (10/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64/10)'],
  ['127.0.0.0', 8, 'loopback (127/8)'],
  ['169.254.0.0', 16, 'link-local / cloud metadata (169.254/16)'],
  ['172.16.0.0', 12, 'private (172.16/12)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2/24)'],
  ['192.88.99.0', 24, '6to4 relay anycast (192.88.99/24)'],
  ['192.168.0.0', 16, 'private (192.168/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113/24)'],
  ['224.0.0.0', 4, 'multicast (224/4)'],
  ['240.0.0.0', 4, 'reserved and broadcast (240/4)'],
];

const v4ToInt = (a: string): number => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);

function refusedV4(a: string): string | null {
  const n = v4ToInt(a);
  for (const [base, bits, why] of V4_REFUSED) {
    const size = 2 ** (32 - bits);
    const start = v4ToInt(base);
    if (n >= start && n < start + size) return why;
  }
  return null;
}

const hex = (h: string) => parseInt(h, 16);
const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

function refusedV6(a: string): string | null {
  const h = expandIpv6(a).map(hex);
  const zeros = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified (::)';
  if (zeros(0, 7) && h[7] === 1) return 'loopback (::1)';
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d
  if (zeros(0, 5) && (h[5] === 0xffff || h[5] === 0)) return embedded(v4Of(h[6]!, h[7]!));
  if (zeros(0, 4) && h[4] === 0xffff && h[5] === 0) return embedded(v4Of(h[6]!, h[7]!));
  // NAT64 64:ff9b::/96 and 64:ff9b:1::/48 reach the IPv4 address inside
  if (h[0] === 0x64 && h[1] === 0xff9b) return embedded(v4Of(h[6]!, h[7]!));
  // 6to4 2002:AABB:CCDD::/48 carries an IPv4 address in bits 16-47
  if (h[0] === 0x2002) return embedded(v4Of(h[1]!, h[2]!));
  const first = h[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'unique local (fc00::/7)';
  if ((first & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((first & 0xffc0) === 0xfec0) return 'site-local (fec0::/10)';
  if ((first & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  if (first === 0x2001 && h[1] === 0xdb8) return 'documentation (2001:db8::/32)';
  if (first === 0x100 && zeros(1, 4)) return 'discard-only (100::/64)';
  // outside 2000::/3 nothing is global unicast
  if ((first & 0xe000) !== 0x2000) return 'reserved (outside 2000::/3)';
  return null;
}

function embedded(v4: string): string | null {
  const why = refusedV4(v4);
  return why && `${why}, embedded in IPv6`;
}

// Refused: loopback, private, link-local (the cloud metadata service at 169.254.169.254), CGNAT,
// "this network", multicast, broadcast, reserved and documentation ranges, also when written as
// IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6.
/** Why an outbound request must not go to this address, or null when it is public. */
export function refusedAddress(address: string): string | null {
  let a = address.trim();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const zone = a.indexOf('%');
  if (zone >= 0) return 'an IPv6 address with a zone (link-local)';
  switch (isIP(a)) {
    case 4:
      return refusedV4(a);
    case 6:
      return refusedV6(a);
    default:
      return 'not an IP address';
  }
}
