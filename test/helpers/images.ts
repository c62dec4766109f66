import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';

export function decodePng(buf: Buffer): PNG {
  return PNG.sync.read(buf);
}

/** RGBA at (x, y). */
export function pixel(png: PNG, x: number, y: number): [number, number, number, number] {
  const i = (png.width * y + x) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!, png.data[i + 3]!];
}

/** Fraction of pixels that differ beyond pixelmatch's per-pixel threshold. */
export function diffRatio(a: Buffer, b: Buffer, threshold = 0.1): number {
  const pa = decodePng(a);
  const pb = decodePng(b);
  if (pa.width !== pb.width || pa.height !== pb.height) return 1;
  const n = pixelmatch(pa.data, pb.data, undefined, pa.width, pa.height, { threshold, includeAA: true });
  return n / (pa.width * pa.height);
}

export function isPng(buf: Buffer): boolean {
  return buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
}

/** Pixels whose RGBA differs at all between two decoded images of the same size. */
export function differingPixels(a: PNG, b: PNG): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2] || a.data[i + 3] !== b.data[i + 3]) n++;
  }
  return n;
}

/** Pixels that are not white (what a chart drew on a white background). */
export function inkedPixels(png: PNG): number {
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4) if (png.data[i] !== 255 || png.data[i + 1] !== 255 || png.data[i + 2] !== 255) n++;
  return n;
}
