// Compares a rendered image with its golden: bytes first (the usual, cheap answer), then pixels
// with pixelmatch for PNG, within the caller's tolerance. Pure: buffers in, a verdict out.
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

export interface Tolerance {
  /** pixelmatch's per-pixel colour threshold, 0-1 (0: any change counts). */
  threshold: number;
  /** How many differing pixels still pass. */
  maxDiffPixels: number;
}

export type Verdict =
  | { status: 'ok'; identical: boolean; diffPixels: number }
  | { status: 'differs'; diffPixels: number; totalPixels: number; sizeChange?: string; diffPng?: Buffer };

function decode(buf: Buffer): PNG | null {
  try {
    return PNG.sync.read(buf);
  } catch {
    return null;
  }
}

/** `golden` and `actual` of one format: PNG compared by pixels, any other format by bytes. */
export function compareImages(golden: Buffer, actual: Buffer, format: string, tol: Tolerance): Verdict {
  if (golden.equals(actual)) return { status: 'ok', identical: true, diffPixels: 0 };
  if (format !== 'png') return { status: 'differs', diffPixels: -1, totalPixels: -1 };
  const g = decode(golden);
  const a = decode(actual);
  if (!a) return { status: 'differs', diffPixels: -1, totalPixels: -1 };
  if (!g || g.width !== a.width || g.height !== a.height) {
    const total = a.width * a.height;
    return { status: 'differs', diffPixels: total, totalPixels: total, sizeChange: `${g ? `${g.width}x${g.height}` : 'unreadable'} -> ${a.width}x${a.height}` };
  }
  const diff = new PNG({ width: a.width, height: a.height });
  // includeAA: anti-aliased pixels count too; a tolerance is the caller's explicit choice
  const n = pixelmatch(g.data, a.data, diff.data, a.width, a.height, { threshold: tol.threshold, includeAA: true, alpha: 0.2, diffColor: [255, 0, 64] });
  const totalPixels = a.width * a.height;
  // equal pixels in different bytes (another zlib level, metadata): no difference to show
  if (n <= tol.maxDiffPixels) return { status: 'ok', identical: false, diffPixels: n };
  return { status: 'differs', diffPixels: n, totalPixels, diffPng: PNG.sync.write(diff) };
}
