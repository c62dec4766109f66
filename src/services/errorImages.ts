// Images of error messages for QuickChart's routes, so an <img> shows what went wrong: drawn as a
// title-only chart through the pool, one at a time and cached; a small fixed image otherwise.
import { deflateSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { pngToPdf } from '../render/pdf.js';
import type { RenderRequest } from '../chart/request.js';
import type { RenderService } from './render.js';
import { chunk, SIGNATURE } from './qrPng.js';

export type ErrorImageFormat = 'png' | 'svg' | 'pdf';

export interface ErrorImage {
  body: Buffer;
  contentType: string;
}

const WIDTH = 600;
const LINE_CHARS = 70;
const MAX_LINES = 6;

/** "Chart error: ..." cut into short lines (the message is data: the page never revives it). */
export function errorLines(message: string): string[] {
  const words = `Chart error: ${message}`.replace(/\s+/g, ' ').trim().split(' ');
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    const word = w.length > LINE_CHARS ? `${w.slice(0, LINE_CHARS - 1)}…` : w;
    if (line && line.length + 1 + word.length > LINE_CHARS) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length > MAX_LINES) return [...lines.slice(0, MAX_LINES - 1), `${lines[MAX_LINES - 1]!.slice(0, LINE_CHARS - 1)}…`];
  return lines;
}

export function errorChartRequest(message: string, format: 'png' | 'pdf'): RenderRequest {
  const lines = errorLines(message);
  return {
    config: {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        plugins: { legend: { display: false }, title: { display: true, text: lines, color: '#b00020', font: { size: 14 } } },
        scales: { x: { display: false }, y: { display: false } },
      },
    },
    width: WIDTH,
    height: 24 + 20 * lines.length,
    format,
    backgroundColor: '#ffffff',
    allowFunctions: false,
    watermark: null,
  };
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** SVG needs no browser: text in a box, every character escaped. */
export function errorSvg(message: string): Buffer {
  const lines = errorLines(message);
  const height = 24 + 20 * lines.length;
  const text = lines.map((l, i) => `<text x="10" y="${28 + 20 * i}">${escapeXml(l)}</text>`).join('');
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}"><rect width="100%" height="100%" fill="#ffffff"/><g font-family="sans-serif" font-size="14" fill="#b00020">${text}</g></svg>`,
    'utf8',
  );
}

function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A 120x20 light red PNG, made once: what an <img> shows when the message could not be drawn. */
export const FIXED_ERROR_PNG: Buffer = solidPng(120, 20, [0xf8, 0xd7, 0xda]);

const CONTENT: Record<ErrorImageFormat, string> = { png: 'image/png', svg: 'image/svg+xml', pdf: 'application/pdf' };

export class ErrorImageService {
  private readonly cache = new LRUCache<string, Buffer>({ maxSize: 8 * 1024 * 1024, sizeCalculation: (b) => b.length + 64 });
  /** One error drawing at a time: a flood of bad requests holds at most one page. */
  private drawing = false;

  constructor(private readonly renderer: Pick<RenderService, 'render'>) {}

  /**
   * `draw`: false when the pool must not be asked (it is busy, or the caller is over a limit):
   * the fixed image then, unless this message was drawn before.
   */
  async image(message: string, format: ErrorImageFormat, owner: string, draw = true): Promise<ErrorImage> {
    if (format === 'svg') return { body: errorSvg(message), contentType: CONTENT.svg };
    const key = `${format}\n${message}`;
    const known = this.cache.get(key);
    if (known) return { body: known, contentType: CONTENT[format] };
    if (draw && !this.drawing) {
      this.drawing = true;
      try {
        const img = await this.renderer.render(errorChartRequest(message, format), owner);
        this.cache.set(key, img.body);
        return { body: img.body, contentType: img.contentType };
      } catch {
        // the message could not be drawn: the fixed image below says at least that it failed
      } finally {
        this.drawing = false;
      }
    }
    // 120x20: made in place, in well under a millisecond
    if (format === 'pdf') return { body: await pngToPdf(FIXED_ERROR_PNG, 120, 20), contentType: CONTENT.pdf };
    return { body: FIXED_ERROR_PNG, contentType: CONTENT.png };
  }
}
