// A golden case's options: the tolerance of the command line, and per case NAME.golden.json
// beside NAME.json (ignore, only, mask, maxDiffPixels, maxDiffRatio, window, threshold,
// ignoreAntialiasing). A bad value is bad usage (exit 2) naming what is allowed. Pure.
import type { Box, Tolerance } from './compare.js';

/** A bad flag or case option: the message names the allowed values. */
export class OptionError extends Error {}

/** The parts every chart may have besides its scales (each scale is named by its id). */
export const FIXED_PARTS = ['title', 'subtitle', 'legend', 'chartArea'] as const;

/**
 * The recommended tolerance (docs/golden-tests.md, calibrated on test/golden-calibration/):
 * rasterisation differences pass, a bar 1 px taller, a lost tick label, a moved point or
 * swapped legend items fail. As flags: --threshold 0.1 --max-diff-ratio 0.005 --max-diff-window 8:12.
 */
export const RECOMMENDED_FLAGS: Readonly<ToleranceFlags> = { threshold: '0.1', 'max-diff-ratio': '0.005', 'max-diff-window': '8:12' };

export const CASE_OPTION_KEYS = ['ignore', 'only', 'mask', 'maxDiffPixels', 'maxDiffRatio', 'window', 'threshold', 'ignoreAntialiasing'] as const;

export interface CaseOptions {
  ignore?: string[];
  only?: string[];
  /** In CSS pixels of the chart (the request's width and height); scaled by its devicePixelRatio. */
  mask?: Box[];
  maxDiffPixels?: number;
  maxDiffRatio?: number;
  window?: string;
  threshold?: number;
  ignoreAntialiasing?: boolean;
}

/** Tolerance flags as the command line gives them (strings), each optional. */
export interface ToleranceFlags {
  threshold?: string;
  'max-diff-pixels'?: string;
  'max-diff-ratio'?: string;
  'max-diff-window'?: string;
  'ignore-antialiasing'?: boolean;
}

const NUMBER = /^\d*\.?\d+$/;

export function parseThreshold(text: string, what = '--threshold'): number {
  const v = Number(text);
  if (!NUMBER.test(text) || !(v >= 0 && v <= 1)) throw new OptionError(`${what} must be a number from 0 to 1`);
  return v;
}

export function parseWindow(text: string, what = '--max-diff-window'): { size: number; max: number } {
  const m = /^(\d{1,4}):(\d{1,7})$/.exec(text);
  const size = m ? Number(m[1]) : 0;
  const max = m ? Number(m[2]) : 0;
  if (!m || size < 1 || max >= size * size) throw new OptionError(`${what} must be N:K (N from 1 to 9999, K from 0 to N*N-1: fail when an N x N window holds more than K differing pixels), got "${text}"`);
  return { size, max };
}

export function toleranceFromFlags(f: ToleranceFlags): Tolerance {
  const tol: Tolerance = { threshold: f.threshold === undefined ? 0 : parseThreshold(f.threshold), ignoreAntialiasing: f['ignore-antialiasing'] === true };
  const px = f['max-diff-pixels'];
  if (px !== undefined) {
    if (!/^\d{1,10}$/.test(px)) throw new OptionError('--max-diff-pixels must be a whole number of pixels');
    tol.maxDiffPixels = Number(px);
  }
  if (f['max-diff-ratio'] !== undefined) tol.maxDiffRatio = parseThreshold(f['max-diff-ratio'], '--max-diff-ratio');
  if (f['max-diff-window'] !== undefined) tol.window = parseWindow(f['max-diff-window']);
  return tol;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const PART_NAME = /^[A-Za-z0-9_$.-]{1,100}$/;

function partList(v: unknown, key: string, where: string): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > 64 || !v.every((p) => typeof p === 'string' && PART_NAME.test(p))) {
    throw new OptionError(`${where}: ${key} must be a list of chart parts: ${FIXED_PARTS.join(', ')} or a scale id (x, y, y1...)`);
  }
  return [...new Set(v as string[])];
}

function boxList(v: unknown, where: string): Box[] {
  const ok = (n: unknown, min: number) => typeof n === 'number' && Number.isFinite(n) && n >= min && n <= 100_000;
  if (!Array.isArray(v) || v.length > 256 || !v.every((b) => isObj(b) && Object.keys(b).every((k) => ['x', 'y', 'width', 'height'].includes(k)) && ok(b.x, 0) && ok(b.y, 0) && ok(b.width, 1) && ok(b.height, 1))) {
    throw new OptionError(`${where}: mask must be a list of {"x", "y", "width", "height"} in CSS pixels of the chart (x, y >= 0; width, height >= 1)`);
  }
  return (v as Box[]).map((b) => ({ x: b.x, y: b.y, width: b.width, height: b.height }));
}

/** NAME.golden.json's text as options; `where` names the file in messages. */
export function parseCaseOptions(text: string, where: string): CaseOptions {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new OptionError(`${where}: not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(v)) throw new OptionError(`${where}: must be a JSON object with any of ${CASE_OPTION_KEYS.join(', ')}`);
  const unknown = Object.keys(v).filter((k) => !(CASE_OPTION_KEYS as readonly string[]).includes(k));
  if (unknown.length) throw new OptionError(`${where}: unknown option "${unknown[0]}": allowed are ${CASE_OPTION_KEYS.join(', ')}`);
  const o: CaseOptions = {};
  if (v.ignore !== undefined) o.ignore = partList(v.ignore, 'ignore', where);
  if (v.only !== undefined) o.only = partList(v.only, 'only', where);
  if (v.mask !== undefined) o.mask = boxList(v.mask, where);
  if (v.maxDiffPixels !== undefined) {
    if (typeof v.maxDiffPixels !== 'number' || !Number.isInteger(v.maxDiffPixels) || v.maxDiffPixels < 0) throw new OptionError(`${where}: maxDiffPixels must be a whole number of pixels (0 or more)`);
    o.maxDiffPixels = v.maxDiffPixels;
  }
  for (const key of ['maxDiffRatio', 'threshold'] as const) {
    const n = v[key];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !(n >= 0 && n <= 1)) throw new OptionError(`${where}: ${key} must be a number from 0 to 1`);
    o[key] = n;
  }
  if (v.window !== undefined) {
    if (typeof v.window !== 'string') throw new OptionError(`${where}: window must be "N:K" (fail when an N x N window holds more than K differing pixels)`);
    parseWindow(v.window, `${where}: window`);
    o.window = v.window;
  }
  if (v.ignoreAntialiasing !== undefined) {
    if (typeof v.ignoreAntialiasing !== 'boolean') throw new OptionError(`${where}: ignoreAntialiasing must be true or false`);
    o.ignoreAntialiasing = v.ignoreAntialiasing;
  }
  return o;
}

/** The case's tolerance: its own fields replace the command line's. */
export function caseTolerance(base: Tolerance, o: CaseOptions): Tolerance {
  const tol: Tolerance = { ...base };
  if (o.threshold !== undefined) tol.threshold = o.threshold;
  if (o.maxDiffPixels !== undefined) tol.maxDiffPixels = o.maxDiffPixels;
  if (o.maxDiffRatio !== undefined) tol.maxDiffRatio = o.maxDiffRatio;
  if (o.window !== undefined) tol.window = parseWindow(o.window);
  if (o.ignoreAntialiasing !== undefined) tol.ignoreAntialiasing = o.ignoreAntialiasing;
  return tol;
}

/** Whether the case needs the page's part boxes (ignore/only name parts; the verdict wants them when it fails). */
export const namesParts = (o: CaseOptions): boolean => (o.ignore?.length ?? 0) > 0 || (o.only?.length ?? 0) > 0;

/** Parts a case names that its chart does not have, and the ones it has: null when all are there. */
export function missingParts(o: CaseOptions, parts: Record<string, Box>): { name: string; have: string[] } | null {
  for (const name of [...(o.ignore ?? []), ...(o.only ?? [])]) {
    if (!Object.hasOwn(parts, name)) return { name, have: Object.keys(parts) };
  }
  return null;
}

/** Masks and parts as comparison regions, in image pixels (CSS pixels times the ratio). */
export function regionsOf(o: CaseOptions, parts: Record<string, Box> | undefined, ratio: number): { masks: Box[]; only?: Box[] } {
  const masks = (o.mask ?? []).map((b) => ({ x: b.x * ratio, y: b.y * ratio, width: b.width * ratio, height: b.height * ratio }));
  for (const name of o.ignore ?? []) if (parts?.[name]) masks.push(parts[name]!);
  const only = o.only ? o.only.map((n) => parts?.[n]).filter((b): b is Box => b !== undefined) : undefined;
  return only ? { masks, only } : { masks };
}
