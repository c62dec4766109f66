// A QR code's modules encoded as a 1-bit palette PNG: the rows are built here (one per module
// row, copied), the compression runs on the thread pool, so a large code costs the event loop
// little. Pixel for pixel what the qrcode package's PNG renderer draws.
import { promisify } from 'node:util';
import { crc32, deflate } from 'node:zlib';

const deflateAsync = promisify(deflate);

export interface QrModules {
  /** Modules a side. */
  size: number;
  /** size x size, row by row: non-zero is dark. */
  data: ArrayLike<number>;
}

/** width: the image side asked for; margin in modules; colours as #rrggbb or #rrggbbaa. */
export interface QrPngOptions {
  width: number;
  margin: number;
  dark: string;
  light: string;
}

/** As qrcode scales: the asked width when the code fits in it, else 4 pixels a module. */
function scaleOf(size: number, o: QrPngOptions): number {
  return o.width >= size + o.margin * 2 ? o.width / (size + o.margin * 2) : 4;
}

/** The filtered scanlines (filter byte 0, then 1 bit a pixel: 1 = dark). */
export function qrScanlines(m: QrModules, o: QrPngOptions): { side: number; raw: Buffer } {
  const scale = scaleOf(m.size, o);
  const side = Math.floor((m.size + o.margin * 2) * scale);
  const margin = o.margin * scale;
  const stride = 1 + Math.ceil(side / 8);
  const raw = Buffer.alloc(stride * side);
  // the columns each module covers, once
  const colModule = new Int32Array(side);
  for (let j = 0; j < side; j++) colModule[j] = j >= margin && j < side - margin ? Math.floor((j - margin) / scale) : -1;
  let prevRow = -2;
  for (let i = 0; i < side; i++) {
    const row = i >= margin && i < side - margin ? Math.floor((i - margin) / scale) : -1;
    const at = i * stride;
    if (row === prevRow) {
      raw.copy(raw, at, at - stride, at);
      continue;
    }
    prevRow = row;
    if (row < 0) continue; // a margin row: all light (zeros)
    for (let j = 0; j < side; j++) {
      const col = colModule[j]!;
      if (col >= 0 && m.data[row * m.size + col]) raw[at + 1 + (j >> 3)]! |= 0x80 >> (j & 7);
    }
  }
  return { side, raw };
}

function rgba(hex: string): [number, number, number, number] {
  const n = (i: number) => parseInt(hex.slice(i, i + 2), 16);
  return [n(1), n(3), n(5), hex.length === 9 ? n(7) : 255];
}

/** One PNG chunk: length, type, data, CRC. */
export function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** The eight bytes every PNG starts with. */
export const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export async function encodeQrPng(m: QrModules, o: QrPngOptions): Promise<Buffer> {
  const { side, raw } = qrScanlines(m, o);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 3; // palette
  const light = rgba(o.light);
  const dark = rgba(o.dark);
  const parts = [SIGNATURE, chunk('IHDR', ihdr), chunk('PLTE', Buffer.from([...light.slice(0, 3), ...dark.slice(0, 3)]))];
  if (light[3] !== 255 || dark[3] !== 255) parts.push(chunk('tRNS', Buffer.from([light[3], dark[3]])));
  parts.push(chunk('IDAT', await deflateAsync(raw)), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}
