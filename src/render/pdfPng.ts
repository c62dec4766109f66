// The PNG side of a PDF (pdfAssemble.ts): a PNG read chunk by chunk, and an image with alpha
// split into colour and alpha streams a row at a time, so that its memory stays a few rows
// whatever its size. Only what Chromium writes is read: 8-bit, non-interlaced grey or RGB, with
// or without alpha.
import { createDeflate, createInflate, type Deflate } from 'node:zlib';

/** What one assembly may spend. */
export interface PdfLimits {
  /** Most pixels (width x height of the PNG) an image may have. */
  maxPixels: number;
  /** Most bytes the PDF may have (the streams are collected in memory). */
  maxOutputBytes: number;
  /** zlib level of the colour and alpha streams of an image with alpha (1 fastest, 9 smallest). */
  level?: number;
}

/** A PNG that cannot be made a PDF (not Chromium's kind, or over a limit). */
export class PdfInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfInputError';
  }
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface Png {
  width: number;
  height: number;
  /** 0 grey, 2 RGB, 4 grey + alpha, 6 RGBA (8 bits a sample, not interlaced: what Chromium writes). */
  colorType: 0 | 2 | 4 | 6;
  /** The IDAT chunks' data, in order: one zlib stream. */
  idat: Buffer[];
}

/** The chunks of a PNG that matter here; anything else about it is refused. */
export function readPng(png: Buffer): Png {
  if (png.length < 8 + 25 || !png.subarray(0, 8).equals(SIGNATURE)) throw new PdfInputError('not a PNG');
  let at = 8;
  let header: { width: number; height: number; colorType: number } | null = null;
  const idat: Buffer[] = [];
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = at + 8;
    if (length > png.length - data - 4) throw new PdfInputError('a PNG chunk runs past the end');
    if (type === 'IHDR') {
      if (length !== 13) throw new PdfInputError('bad IHDR');
      const depth = png[data + 8];
      const colorType = png[data + 9]!;
      const interlace = png[data + 12];
      if (depth !== 8 || interlace !== 0 || ![0, 2, 4, 6].includes(colorType)) throw new PdfInputError('only 8-bit, non-interlaced grey or RGB PNGs (with or without alpha) are supported');
      header = { width: png.readUInt32BE(data), height: png.readUInt32BE(data + 4), colorType };
    } else if (type === 'IDAT') {
      idat.push(png.subarray(data, data + length));
    } else if (type === 'tRNS' || type === 'PLTE') {
      throw new PdfInputError(`PNG chunk ${type} is not supported`);
    } else if (type === 'IEND') {
      break;
    }
    at = data + length + 4;
  }
  if (!header || header.width < 1 || header.height < 1) throw new PdfInputError('the PNG has no size');
  if (idat.length === 0) throw new PdfInputError('the PNG has no image data');
  return { ...header, colorType: header.colorType as Png['colorType'], idat };
}


/**
 * An image with alpha as two deflated streams of PNG-filtered rows (filter None): its colour
 * and its alpha. Inflated, unfiltered and split a row at a time; zlib works on libuv's pool.
 */
export async function splitAlpha(img: Png, limits: PdfLimits): Promise<{ color: Buffer[]; alpha: Buffer[]; opaque: boolean }> {
  const channels = img.colorType === 6 ? 4 : 2;
  const stride = img.width * channels;
  const colorBytes = channels - 1;
  const level = limits.level ?? 6;
  const colorOut = collect(createDeflate({ level }), limits.maxOutputBytes);
  const alphaOut = collect(createDeflate({ level }), limits.maxOutputBytes);
  const inflate = createInflate();
  let prev = Buffer.alloc(stride);
  let row = Buffer.alloc(stride);
  let filter = -1;
  let filled = 0;
  let rows = 0;
  let opaque = true;
  // a band of rows is written at once: fewer, larger zlib calls
  const BAND_ROWS = Math.max(1, Math.floor((256 * 1024) / (stride + 1)));
  let colorBand = Buffer.alloc(BAND_ROWS * (1 + img.width * colorBytes));
  let alphaBand = Buffer.alloc(BAND_ROWS * (1 + img.width));
  let inBand = 0;
  const flushBand = async () => {
    if (inBand === 0) return;
    const c = colorBand.subarray(0, inBand * (1 + img.width * colorBytes));
    const a = alphaBand.subarray(0, inBand * (1 + img.width));
    colorBand = Buffer.alloc(colorBand.length);
    alphaBand = Buffer.alloc(alphaBand.length);
    inBand = 0;
    await Promise.all([colorOut.write(c), alphaOut.write(a)]);
  };
  const finishRow = () => {
    unfilter(filter, row, prev, channels);
    let c = inBand * (1 + img.width * colorBytes);
    let a = inBand * (1 + img.width);
    colorBand[c++] = 0;
    alphaBand[a++] = 0;
    for (let x = 0; x < stride; x += channels) {
      for (let k = 0; k < colorBytes; k++) colorBand[c++] = row[x + k]!;
      const v = row[x + colorBytes]!;
      if (v !== 255) opaque = false;
      alphaBand[a++] = v;
    }
    inBand++;
    const t = prev;
    prev = row;
    row = t;
    filled = 0;
    filter = -1;
    rows++;
  };
  const expected = img.height * (stride + 1);
  let seen = 0;
  const done = new Promise<void>((resolve, reject) => {
    inflate.on('error', (e: Error) => reject(new PdfInputError(`the PNG's image data is corrupt: ${e.message}`)));
    inflate.on('end', resolve);
  });
  inflate.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > expected) {
      inflate.destroy(new Error('more image data than its size'));
      return;
    }
    let i = 0;
    while (i < chunk.length) {
      if (filter < 0) {
        filter = chunk[i++]!;
        if (filter > 4) {
          inflate.destroy(new Error(`unknown row filter ${filter}`));
          return;
        }
        continue;
      }
      const n = Math.min(stride - filled, chunk.length - i);
      chunk.copy(row, filled, i, i + n);
      filled += n;
      i += n;
      if (filled === stride) {
        finishRow();
        if (inBand === BAND_ROWS) {
          inflate.pause();
          flushBand().then(() => inflate.resume(), (e: unknown) => inflate.destroy(e as Error));
        }
      }
    }
  });
  for (const part of img.idat) {
    if (!inflate.write(part)) await new Promise((r) => inflate.once('drain', r));
  }
  inflate.end();
  await done;
  if (rows !== img.height) throw new PdfInputError(`the PNG has ${rows} rows of image data; its header says ${img.height}`);
  await flushBand();
  const [color, alpha] = await Promise.all([colorOut.end(), alphaOut.end()]);
  return { color, alpha, opaque };
}

/** PNG's row filters undone in place (`prev`: the row above, unfiltered; zero above the first). */
function unfilter(filter: number, row: Buffer, prev: Buffer, bpp: number): void {
  const n = row.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) row[i] = (row[i]! + row[i - bpp]!) & 0xff;
      return;
    case 2:
      for (let i = 0; i < n; i++) row[i] = (row[i]! + prev[i]!) & 0xff;
      return;
    case 3:
      for (let i = 0; i < bpp; i++) row[i] = (row[i]! + (prev[i]! >> 1)) & 0xff;
      for (let i = bpp; i < n; i++) row[i] = (row[i]! + ((row[i - bpp]! + prev[i]!) >> 1)) & 0xff;
      return;
    default: {
      for (let i = 0; i < bpp; i++) row[i] = (row[i]! + prev[i]!) & 0xff;
      for (let i = bpp; i < n; i++) {
        const a = row[i - bpp]!;
        const b = prev[i]!;
        const c = prev[i - bpp]!;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
    }
  }
}

/** A deflate stream whose output is collected, with backpressure on write, up to `max` bytes. */
function collect(z: Deflate, max: number): { write(b: Buffer): Promise<void>; end(): Promise<Buffer[]> } {
  const out: Buffer[] = [];
  let bytes = 0;
  let failed: Error | null = null;
  z.on('data', (c: Buffer) => {
    bytes += c.length;
    if (bytes > max) {
      failed = new PdfInputError(`the PDF would be over ${max} bytes`);
      z.destroy(failed);
      return;
    }
    out.push(c);
  });
  const ended = new Promise<Buffer[]>((resolve, reject) => {
    z.on('error', (e) => reject(failed ?? e));
    z.on('end', () => resolve(out));
  });
  ended.catch(() => {});
  return {
    async write(b: Buffer) {
      const check = () => {
        if (failed) throw failed;
        if (z.destroyed || z.errored) throw z.errored ?? new Error('the PDF stream was closed');
      };
      check();
      if (!z.write(b)) await drained(z);
      check();
    },
    end() {
      z.end();
      return ended;
    },
  };
}

/** Until `z` takes writes again, or fails or closes (then write() sees why). A promise per wait,
 *  not a race against the stream's end: each race would leave a reaction on that promise. */
function drained(z: Deflate): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      z.off('drain', done);
      z.off('error', done);
      z.off('close', done);
      resolve();
    };
    z.on('drain', done);
    z.on('error', done);
    z.on('close', done);
  });
}
