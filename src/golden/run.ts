// One golden case from render to verdict: render, read the golden, compare within the case's
// tolerance and regions, render a failing case once more (two renders that differ from each
// other make it unstable), and write the golden only when the update mode says so.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GoldenCase } from './cases.js';
import { compareImages, decodePng, type Box, type Tolerance, type Verdict } from './compare.js';
import { RenderRefused, type Engine, type Rendered } from './engine.js';
import { caseTolerance, missingParts, regionsOf } from './options.js';
import type { CaseResult } from './report.js';

/** none: compare only; missing: write goldens that do not exist; changed: also those that fail; all: every one whose bytes differ. */
export type UpdateMode = 'none' | 'missing' | 'changed' | 'all';
export const UPDATE_MODES: readonly UpdateMode[] = ['missing', 'changed', 'all'];

export interface CaseContext {
  engine: Engine;
  update: UpdateMode;
  tolerance: Tolerance;
  /** CI=true: a missing golden's message says nothing is written without --update. */
  ci: boolean;
}

/** The images a case's report shows, as bytes (the report writes and embeds them). */
export interface CaseImages {
  golden?: Buffer;
  actual?: Buffer;
  /** The second render of an unstable case. */
  again?: Buffer;
  diff?: Buffer;
}

function readGolden(path: string): { bytes: Buffer } | { missing: true } | { unreadable: string } {
  try {
    return { bytes: readFileSync(path) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { missing: true } : { unreadable: code ?? (err as Error).message };
  }
}

function write(path: string, body: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
}

const ratioOf = (body: Record<string, unknown>) => (typeof body.devicePixelRatio === 'number' && body.devicePixelRatio >= 1 ? body.devicePixelRatio : 1);

function errorOf(err: unknown): { error: string; errorCode?: string } {
  if (err instanceof RenderRefused) return { error: `${err.code}: ${err.detail}`.trim(), errorCode: err.code };
  return { error: (err as Error).message ?? String(err) };
}

/** The counts of a verdict as the result carries them. */
function countsOf(v: Verdict, tol: Tolerance): Partial<CaseResult> {
  const out: Partial<CaseResult> = { diffPixels: v.diffPixels, aaPixels: v.aaPixels, totalPixels: v.totalPixels, comparedPixels: v.comparedPixels };
  if (tol.ignoreAntialiasing) out.aaIgnored = true;
  if (v.worstWindow) out.worstWindow = v.worstWindow;
  if (v.parts) out.parts = v.parts;
  if (v.status === 'differs') {
    out.reason = v.reason;
    if (v.sizeChange) out.sizeChange = v.sizeChange;
  }
  return out;
}

/** Runs one case; never throws (a render error or unreadable golden is the case's result). */
export async function runCase(c: GoldenCase, ctx: CaseContext): Promise<{ result: CaseResult; images: CaseImages }> {
  const t0 = performance.now();
  const base = (): CaseResult => ({ name: c.name, format: c.format, status: 'ok', ms: performance.now() - t0, options: c.options, images: {} });
  let r: Rendered;
  try {
    r = await ctx.engine.render(c.body);
  } catch (err) {
    return { result: { ...base(), status: 'error', ...errorOf(err) }, images: {} };
  }
  const images: CaseImages = { actual: r.body };
  // parts the case names must be parts of its chart: bad usage, named with the ones it has
  const naming = (c.options.ignore?.length ?? 0) + (c.options.only?.length ?? 0) > 0;
  if (naming && c.format === 'png') {
    if (!r.parts) return { result: { ...base(), status: 'error', usage: true, error: `${c.optionsPath}: ignore and only need the chart's part boxes, which this server did not send (an older chartshot? run offline)` }, images };
    const gone = missingParts(c.options, r.parts);
    if (gone) return { result: { ...base(), status: 'error', usage: true, error: `${c.optionsPath}: no part "${gone.name}" in this chart: its parts are ${gone.have.join(', ') || '(none)'}` }, images };
  }
  if (c.format !== 'png' && (naming || c.options.mask)) {
    return { result: { ...base(), status: 'error', usage: true, error: `${c.optionsPath}: mask, ignore and only apply to png cases (${c.format} goldens are compared by bytes)` }, images };
  }
  const golden = readGolden(c.goldenPath);
  if ('missing' in golden) {
    if (ctx.update !== 'none') {
      write(c.goldenPath, r.body);
      return { result: { ...base(), status: 'updated', detail: 'golden written' }, images };
    }
    const hint = ctx.ci ? 'CI: nothing is written without --update' : 'write it with --update=missing';
    return { result: { ...base(), status: 'missing', detail: `no golden image (${hint})` }, images };
  }
  if ('unreadable' in golden) {
    if (ctx.update === 'changed' || ctx.update === 'all') {
      write(c.goldenPath, r.body);
      return { result: { ...base(), status: 'updated', detail: `golden rewritten (it was unreadable: ${golden.unreadable})` }, images };
    }
    return { result: { ...base(), status: 'unreadable', detail: `golden unreadable: ${golden.unreadable}` }, images };
  }
  images.golden = golden.bytes;
  if (ctx.update === 'all') {
    if (golden.bytes.equals(r.body)) return { result: base(), images };
    write(c.goldenPath, r.body);
    return { result: { ...base(), status: 'updated', detail: 'golden rewritten' }, images };
  }
  if (c.format === 'png' && !golden.bytes.equals(r.body) && !decodePng(golden.bytes)) {
    if (ctx.update === 'changed') {
      write(c.goldenPath, r.body);
      return { result: { ...base(), status: 'updated', detail: 'golden rewritten (it was not a readable PNG)' }, images };
    }
    return { result: { ...base(), status: 'unreadable', detail: 'golden unreadable: not a PNG' }, images };
  }
  const tol = caseTolerance(ctx.tolerance, c.options);
  const ratio = ratioOf(c.body);
  const parts: Record<string, Box> | undefined = r.parts;
  const regions = { ...regionsOf(c.options, parts, ratio), ...(parts ? { parts } : {}) };
  const verdict = compareImages(golden.bytes, r.body, c.format, tol, regions);
  if (verdict.status === 'ok') return { result: { ...base(), ...countsOf(verdict, tol) }, images: {} };
  if (verdict.diffPng) images.diff = verdict.diffPng;
  // a failing case is drawn once more: a render that differs from the first is a flake, not a change
  let again: Rendered | null = null;
  try {
    again = await ctx.engine.render(c.body);
  } catch (err) {
    return { result: { ...base(), status: 'unstable', ...countsOf(verdict, tol), detail: `the second render failed: ${errorOf(err).error}` }, images };
  }
  if (!again.body.equals(r.body)) {
    images.again = again.body;
    return { result: { ...base(), status: 'unstable', ...countsOf(verdict, tol), detail: 'two renders of the same config differ' }, images };
  }
  if (ctx.update === 'changed') {
    write(c.goldenPath, r.body);
    return { result: { ...base(), status: 'updated', ...countsOf(verdict, tol), detail: 'golden rewritten' }, images };
  }
  return { result: { ...base(), status: 'differs', ...countsOf(verdict, tol) }, images };
}
