// GET /qr's parameters under QuickChart's names and defaults, bounded: pure, no I/O.
import { invalidInput } from '../errors.js';
import { checkColor } from './request.js';

export const QR_LIMITS = Object.freeze({
  /** UTF-8 bytes of text: a version 40 code holds at most 2953 bytes at level L. */
  maxTextBytes: 2048,
  /** Pixels a side: larger images cost the event loop tens of milliseconds to encode. */
  maxSize: 1000,
  maxMargin: 50,
  maxCaptionChars: 200,
});

export interface QrRequest {
  text: string;
  format: 'png' | 'svg';
  size: number;
  margin: number;
  ecLevel: 'L' | 'M' | 'Q' | 'H';
  /** #rrggbb or #rrggbbaa */
  dark: string;
  light: string;
  /** Text below the code (drawn by the renderer page). */
  caption?: QrCaption;
  /** An image over the code's middle: an http(s) URL (REMOTE_IMAGES_ALLOW) or a data:image URL. */
  centerImage?: QrCenterImage;
}

export interface QrCaption {
  text: string;
  fontFamily: string;
  /** CSS pixels. */
  fontSize: number;
  color: string;
}

export interface QrCenterImage {
  url: string;
  /** Side of the image's box as a fraction of the code's (used unless width or height is given). */
  sizeRatio: number;
  width?: number;
  height?: number;
}

function int(v: unknown, name: string, def: number, min: number, max: number): number {
  if (v === undefined || v === '') return def;
  const s = String(v).trim();
  if (!/^\d{1,6}$/.test(s) || Number(s) < min || Number(s) > max) throw invalidInput(`${name} must be an integer ${min}-${max}`);
  return Number(s);
}

/** QuickChart's colours are hex without '#' (000, ffffff, ff000080); a leading '#' is accepted too. */
function hex(v: unknown, name: string, def: string): string {
  if (v === undefined || v === '') return def;
  const s = String(v).trim().replace(/^#/, '');
  if (!/^(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(s)) throw invalidInput(`${name} must be a hex colour such as 000000 or ff000080`);
  const full = s.length <= 4 ? [...s].map((c) => c + c).join('') : s;
  return `#${full.toLowerCase()}`;
}

const given = (v: unknown) => v !== undefined && v !== '';

/** captionFontFamily: a CSS family list of plain names (it becomes part of a canvas font string). */
function family(v: unknown): string {
  if (!given(v)) return 'sans-serif';
  const s = String(v).trim();
  if (!/^[A-Za-z0-9 ,'"_-]{1,100}$/.test(s)) throw invalidInput('captionFontFamily must be font family names (letters, digits, spaces, commas, quotes, - and _; at most 100)');
  return s;
}

/** captionFontColor: a colour name or hex code, with or without '#', as QuickChart takes it. */
function captionColor(v: unknown): string {
  if (!given(v)) return 'black';
  const s = String(v).trim();
  const c = checkColor(/^[0-9a-f]{3,8}$/i.test(s) ? `#${s}` : s, 'captionFontColor');
  return c ?? 'black';
}

function ratio(v: unknown): number {
  if (!given(v)) return 0.3;
  const s = String(v).trim();
  const n = /^\d*\.?\d+$/.test(s) ? Number(s) : NaN;
  if (!(n > 0 && n <= 1)) throw invalidInput('centerImageSizeRatio must be a number above 0 and at most 1');
  return n;
}

export function parseQrQuery(q: Record<string, unknown>): QrRequest {
  const text = q.text;
  if (typeof text !== 'string' || text === '') throw invalidInput('text is required (the content of the QR code)');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > QR_LIMITS.maxTextBytes) throw invalidInput(`text is ${bytes} bytes; at most ${QR_LIMITS.maxTextBytes}`);
  const f = q.format === undefined || q.format === '' ? 'png' : String(q.format).toLowerCase();
  if (f !== 'png' && f !== 'svg') throw invalidInput('format must be png or svg');
  const centerUrl = given(q.centerImageUrl) ? String(q.centerImageUrl) : undefined;
  // QuickChart's default: M, or H when a center image covers part of the code
  const ec = q.ecLevel === undefined || q.ecLevel === '' ? (centerUrl ? 'H' : 'M') : String(q.ecLevel).toUpperCase();
  if (ec !== 'L' && ec !== 'M' && ec !== 'Q' && ec !== 'H') throw invalidInput('ecLevel must be L, M, Q or H');
  const size = int(q.size, 'size', 150, 1, QR_LIMITS.maxSize);
  let caption: QrCaption | undefined;
  if (given(q.caption)) {
    const t = String(q.caption);
    if (t.length > QR_LIMITS.maxCaptionChars) throw invalidInput(`caption must be at most ${QR_LIMITS.maxCaptionChars} characters`);
    caption = { text: t, fontFamily: family(q.captionFontFamily), fontSize: int(q.captionFontSize, 'captionFontSize', 10, 1, 200), color: captionColor(q.captionFontColor) };
  }
  let centerImage: QrCenterImage | undefined;
  if (centerUrl !== undefined) {
    if (centerUrl.length > 8192) throw invalidInput('centerImageUrl must be at most 8192 characters');
    centerImage = {
      url: centerUrl,
      sizeRatio: ratio(q.centerImageSizeRatio),
      ...(given(q.centerImageWidth) ? { width: int(q.centerImageWidth, 'centerImageWidth', 0, 1, QR_LIMITS.maxSize) } : {}),
      ...(given(q.centerImageHeight) ? { height: int(q.centerImageHeight, 'centerImageHeight', 0, 1, QR_LIMITS.maxSize) } : {}),
    };
  }
  return {
    text,
    format: f,
    size,
    margin: int(q.margin, 'margin', 4, 0, QR_LIMITS.maxMargin),
    ecLevel: ec,
    dark: hex(q.dark, 'dark', '#000000'),
    light: hex(q.light, 'light', '#ffffff'),
    ...(caption ? { caption } : {}),
    ...(centerImage ? { centerImage } : {}),
  };
}
