// Compares a rendered image with its golden: bytes first (the usual, cheap answer), then pixels
// with pixelmatch for PNG, within the caller's tolerance. Anti-aliased pixels are told apart
// (pixelmatch's detection), masked regions left out, the differing pixels counted per chart part
// and by density. Pure: buffers in, a verdict out. The rules: docs/golden-tests.md.
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/** A rectangle in image pixels (a part box the page measured, or a mask scaled by the ratio). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Tolerance {
  /** pixelmatch's per-pixel colour threshold, 0-1 (0: any change counts). */
  threshold: number;
  /** How many counted differing pixels still pass (absent with maxDiffRatio absent: 0). */
  maxDiffPixels?: number;
  /** The same as a share of the compared pixels, 0-1; with both, the smaller limit holds. */
  maxDiffRatio?: number;
  /** Fails when any size x size window holds more than max counted differing pixels. */
  window?: { size: number; max: number };
  /** Anti-aliased differences are shown and counted apart, but do not fail the case. */
  ignoreAntialiasing: boolean;
}

export const EXACT: Tolerance = { threshold: 0, ignoreAntialiasing: false };

export interface Regions {
  /** Left out of the comparison (masks and ignored parts). */
  masks?: Box[];
  /** When set, only these are compared (parts named by `only`). */
  only?: Box[];
  /** Named boxes whose differing pixels are counted apart (the parts verdict). */
  parts?: Record<string, Box>;
}

export interface Counts {
  /** Differing pixels that count against the tolerance. */
  diffPixels: number;
  /** Of the differing pixels, those pixelmatch took for anti-aliasing (counted in diffPixels unless ignoreAntialiasing). */
  aaPixels: number;
  totalPixels: number;
  /** Pixels compared (total less masks, or the only-parts). */
  comparedPixels: number;
  /** The densest window of the window rule: its top-left corner and its count. */
  worstWindow?: { x: number; y: number; count: number };
  /** Every differing pixel (AA included) inside each named part. */
  parts?: Record<string, number>;
}

export type Verdict =
  | ({ status: 'ok'; identical: boolean } & Counts)
  | ({
      status: 'differs';
      /** What failed: the count, the ratio, the window rule, the size, or bytes (SVG, PDF). */
      reason: 'pixels' | 'ratio' | 'window' | 'size' | 'bytes' | 'unreadable';
      sizeChange?: string;
      /** The diff image: the golden faded, red where counted pixels differ, yellow where anti-aliasing does, blue over masks. */
      diffPng?: Buffer;
    } & Counts);

const DIFF: [number, number, number] = [255, 0, 64];
const AA: [number, number, number] = [255, 200, 0];

export function decodePng(buf: Buffer): PNG | null {
  try {
    return PNG.sync.read(buf);
  } catch {
    return null;
  }
}

/** The pixel limit: maxDiffPixels and maxDiffRatio of the compared pixels, the smaller when both (none: 0). */
export function pixelLimit(tol: Tolerance, compared: number): number {
  const byRatio = tol.maxDiffRatio !== undefined ? Math.floor(tol.maxDiffRatio * compared) : undefined;
  if (tol.maxDiffPixels !== undefined && byRatio !== undefined) return Math.min(tol.maxDiffPixels, byRatio);
  return tol.maxDiffPixels ?? byRatio ?? 0;
}

/** Boxes clipped to the image, in whole pixels (a box's edge pixels included). */
function clip(b: Box, w: number, h: number): [number, number, number, number] | null {
  const x0 = Math.max(0, Math.floor(b.x));
  const y0 = Math.max(0, Math.floor(b.y));
  const x1 = Math.min(w, Math.ceil(b.x + b.width));
  const y1 = Math.min(h, Math.ceil(b.y + b.height));
  return x1 > x0 && y1 > y0 ? [x0, y0, x1, y1] : null;
}

/** 1 where a pixel is left out of the comparison, or null when none is. */
function excluded(w: number, h: number, r: Regions): Uint8Array | null {
  if (!r.masks?.length && !r.only) return null;
  const out = new Uint8Array(w * h);
  if (r.only) {
    out.fill(1);
    for (const b of r.only) {
      const c = clip(b, w, h);
      if (c) for (let y = c[1]; y < c[3]; y++) out.fill(0, y * w + c[0], y * w + c[2]);
    }
  }
  for (const b of r.masks ?? []) {
    const c = clip(b, w, h);
    if (c) for (let y = c[1]; y < c[3]; y++) out.fill(1, y * w + c[0], y * w + c[2]);
  }
  return out;
}

/** The densest size x size window of `counted` (a summed-area table: one pass whatever the size). */
function densest(counted: Uint8Array, w: number, h: number, size: number): { x: number; y: number; count: number } {
  const n = Math.min(size, w, h);
  const sat = new Uint32Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += counted[y * w + x]!;
      sat[(y + 1) * (w + 1) + x + 1] = sat[y * (w + 1) + x + 1]! + row;
    }
  }
  let best = { x: 0, y: 0, count: 0 };
  for (let y = 0; y + n <= h; y++) {
    for (let x = 0; x + n <= w; x++) {
      const s = sat[(y + n) * (w + 1) + x + n]! - sat[y * (w + 1) + x + n]! - sat[(y + n) * (w + 1) + x]! + sat[y * (w + 1) + x]!;
      if (s > best.count) best = { x, y, count: s };
    }
  }
  return best;
}

/**
 * `golden` and `actual` of one format: PNG compared by pixels, any other format by bytes.
 * Regions are in the actual image's pixels.
 */
export function compareImages(golden: Buffer, actual: Buffer, format: string, tol: Tolerance, regions: Regions = {}): Verdict {
  const none = { diffPixels: 0, aaPixels: 0, totalPixels: 0, comparedPixels: 0 };
  if (golden.equals(actual)) return { status: 'ok', identical: true, ...none };
  if (format !== 'png') return { status: 'differs', reason: 'bytes', ...none, diffPixels: -1, totalPixels: -1, comparedPixels: -1 };
  const a = decodePng(actual);
  if (!a) return { status: 'differs', reason: 'unreadable', ...none, diffPixels: -1, totalPixels: -1, comparedPixels: -1 };
  const w = a.width;
  const h = a.height;
  const total = w * h;
  const g = decodePng(golden);
  if (!g || g.width !== w || g.height !== h) {
    return { status: 'differs', reason: g ? 'size' : 'unreadable', diffPixels: total, aaPixels: 0, totalPixels: total, comparedPixels: total, sizeChange: `${g ? `${g.width}x${g.height}` : 'unreadable'} -> ${w}x${h}` };
  }
  const skip = excluded(w, h, regions);
  let actualData: Uint8Array = a.data;
  let compared = total;
  if (skip) {
    // left-out pixels take the golden's value: equal, never counted (their neighbours' anti-aliasing check still sees them)
    actualData = Buffer.from(a.data);
    compared = 0;
    for (let i = 0; i < total; i++) {
      if (skip[i]) actualData.set(g.data.subarray(i * 4, i * 4 + 4), i * 4);
      else compared++;
    }
  }
  const diff = new PNG({ width: w, height: h });
  // AA detection on: anti-aliased pixels come out yellow and uncounted, the rest red and counted
  const hard = pixelmatch(g.data, actualData, diff.data, w, h, { threshold: tol.threshold, includeAA: false, alpha: 0.2, diffColor: DIFF, aaColor: AA });
  // which pixel is which, read back from the colours (the faded golden is grey: r = g = b)
  const counted = new Uint8Array(total);
  const any = new Uint8Array(total);
  let aaPixels = 0;
  for (let i = 0, p = 0; i < total; i++, p += 4) {
    const r = diff.data[p]!;
    const gg = diff.data[p + 1]!;
    const b = diff.data[p + 2]!;
    if (r === DIFF[0] && gg === DIFF[1] && b === DIFF[2]) {
      any[i] = 1;
      counted[i] = 1;
    } else if (r === AA[0] && gg === AA[1] && b === AA[2]) {
      any[i] = 1;
      aaPixels++;
      if (!tol.ignoreAntialiasing) counted[i] = 1;
    }
  }
  const diffPixels = hard + (tol.ignoreAntialiasing ? 0 : aaPixels);
  const counts: Counts = { diffPixels, aaPixels, totalPixels: total, comparedPixels: compared };
  if (tol.window && diffPixels > 0) counts.worstWindow = densest(counted, w, h, tol.window.size);
  if (regions.parts) {
    counts.parts = {};
    for (const [name, box] of Object.entries(regions.parts)) {
      const c = clip(box, w, h);
      let n = 0;
      if (c) for (let y = c[1]; y < c[3]; y++) for (let x = c[0]; x < c[2]; x++) n += any[y * w + x]!;
      counts.parts[name] = n;
    }
  }
  const limit = pixelLimit(tol, compared);
  const reason =
    diffPixels > limit
      ? tol.maxDiffPixels === undefined && tol.maxDiffRatio !== undefined
        ? 'ratio'
        : tol.maxDiffRatio !== undefined && Math.floor(tol.maxDiffRatio * compared) < (tol.maxDiffPixels ?? Infinity)
          ? 'ratio'
          : 'pixels'
      : tol.window && counts.worstWindow && counts.worstWindow.count > tol.window.max
        ? 'window'
        : null;
  // equal pixels in different bytes (another zlib level, metadata) or a difference within tolerance
  if (!reason) return { status: 'ok', identical: false, ...counts };
  if (skip) {
    // left-out regions tinted blue in the diff image
    for (let i = 0, p = 0; i < total; i++, p += 4) {
      if (skip[i]) {
        diff.data[p] = (diff.data[p]! >> 1) + 20;
        diff.data[p + 1] = (diff.data[p + 1]! >> 1) + 60;
        diff.data[p + 2] = (diff.data[p + 2]! >> 1) + 127;
      }
    }
  }
  return { status: 'differs', reason, ...counts, diffPng: PNG.sync.write(diff) };
}
