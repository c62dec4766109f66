// GET /qr's parameters under QuickChart's names and defaults, bounded: pure, no I/O.
import { invalidInput } from '../errors.js';

export const QR_LIMITS = Object.freeze({
  /** UTF-8 bytes of text: a version 40 code holds at most 2953 bytes at level L. */
  maxTextBytes: 2048,
  /** Pixels a side: larger images cost the event loop tens of milliseconds to encode. */
  maxSize: 1000,
  maxMargin: 50,
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

/** QuickChart's caption and center image parameters: not drawn yet, so refused rather than ignored. */
const NOT_YET = ['caption', 'captionFontFamily', 'captionFontSize', 'captionFontColor', 'centerImageUrl', 'centerImageSizeRatio', 'centerImageWidth', 'centerImageHeight'];

export function parseQrQuery(q: Record<string, unknown>): QrRequest {
  const asked = NOT_YET.filter((k) => q[k] !== undefined && q[k] !== '');
  if (asked.length > 0) {
    throw invalidInput(`${asked.join(', ')}: QR captions and center images are not supported yet; draw them on your side around the plain code (ecLevel=H leaves room for a center image)`);
  }
  const text = q.text;
  if (typeof text !== 'string' || text === '') throw invalidInput('text is required (the content of the QR code)');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > QR_LIMITS.maxTextBytes) throw invalidInput(`text is ${bytes} bytes; at most ${QR_LIMITS.maxTextBytes}`);
  const f = q.format === undefined || q.format === '' ? 'png' : String(q.format).toLowerCase();
  if (f !== 'png' && f !== 'svg') throw invalidInput('format must be png or svg');
  const ec = q.ecLevel === undefined || q.ecLevel === '' ? 'M' : String(q.ecLevel).toUpperCase();
  if (ec !== 'L' && ec !== 'M' && ec !== 'Q' && ec !== 'H') throw invalidInput('ecLevel must be L, M, Q or H');
  return {
    text,
    format: f,
    size: int(q.size, 'size', 150, 1, QR_LIMITS.maxSize),
    margin: int(q.margin, 'margin', 4, 0, QR_LIMITS.maxMargin),
    ecLevel: ec,
    dark: hex(q.dark, 'dark', '#000000'),
    light: hex(q.light, 'light', '#ffffff'),
  };
}
