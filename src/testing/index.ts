// chartshot/testing: golden-image checks of Chart.js configs from test code. renderChart draws a
// POST /v1/chart body with the server's own engine in this process (or through a server);
// compareChart compares it with a golden image under the same rules as `chartshot test`
// (tolerance, anti-aliasing, masks and chart parts, a second render for a failing case); a chai
// plugin and a jest/vitest matcher wrap it. The reference: docs/golden-tests.md.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadCiEnv, loadConfig } from '../config.js';
import type { Box } from '../golden/compare.js';
import { formatOf, type GoldenCase } from '../golden/cases.js';
import { offlineEngine, serverEngine, type Engine } from '../golden/engine.js';
import { caseTolerance, OptionError, parseCaseOptions, toleranceFromFlags, type CaseOptions } from '../golden/options.js';
import { runCase, UPDATE_MODES, type UpdateMode } from '../golden/run.js';
import { describe as describeResult, partsVerdict, type CaseResult, type CaseStatus } from '../golden/report.js';

export type { Box, CaseOptions, CaseStatus, UpdateMode };
export { OptionError };

/** A POST /v1/chart body: {chart, width, height, format, backgroundColor, devicePixelRatio, ...}. */
export type ChartBody = Record<string, unknown>;

export interface RendererOptions {
  /** Render through this server (with apiKey) instead of the engine in this process. */
  server?: string;
  apiKey?: string;
}

export interface CompareOptions extends CaseOptions, RendererOptions {
  /** Write the golden: missing (when there is none), changed (also when it fails), all. Default:
   *  CHARTSHOT_UPDATE, else none. Never written otherwise. */
  update?: UpdateMode | 'none';
  /** Where to write the actual image and the diff of a failing comparison (a folder); default: none. */
  outputDir?: string;
}

export interface CompareResult {
  pass: boolean;
  status: CaseStatus;
  /** One line: what happened, the counts and the parts verdict. */
  message: string;
  diffPixels?: number;
  aaPixels?: number;
  totalPixels?: number;
  /** Differing pixels per chart part. */
  parts?: Record<string, number>;
  /** Files written to outputDir. */
  files: { actual?: string; diff?: string; again?: string };
}

let engine: { key: string; ready: Promise<Engine> } | null = null;

/** One renderer per process, started by the first render and kept until closeRenderer(). */
function engineFor(o: RendererOptions): Promise<Engine> {
  const key = o.server ? `${o.server}\n${o.apiKey ?? ''}` : 'offline';
  if (engine?.key === key) return engine.ready;
  const previous = engine?.ready;
  const ready = (async () => {
    if (previous) await (await previous).close();
    if (o.server) {
      if (!o.apiKey) throw new OptionError('server needs apiKey');
      return serverEngine(o.server, o.apiKey);
    }
    return offlineEngine(loadConfig(), 1);
  })();
  engine = { key, ready };
  ready.catch(() => {
    if (engine?.ready === ready) engine = null;
  });
  return ready;
}

/** Stops the renderer (Chromium) this process started: call it once after the tests (afterAll / after). */
export async function closeRenderer(): Promise<void> {
  const e = engine;
  engine = null;
  if (e) await (await e.ready.catch(() => null))?.close();
}

/** Draws a POST /v1/chart body: the image, what drew it and (offline PNG) the chart's part boxes. */
export async function renderChart(body: ChartBody, o: RendererOptions = {}): Promise<{ image: Buffer; renderer: string | null; parts?: Record<string, Box> }> {
  const r = await (await engineFor(o)).render(body);
  return { image: r.body, renderer: r.renderer, ...(r.parts ? { parts: r.parts } : {}) };
}

const OPTION_KEYS = ['ignore', 'only', 'mask', 'maxDiffPixels', 'maxDiffRatio', 'window', 'threshold', 'ignoreAntialiasing'] as const;

/**
 * Renders `body` and compares it with the golden image at `goldenPath` (its extension is the
 * body's format: .png, .svg or .pdf). Exact unless the options say otherwise. Never throws for a
 * difference: the result says pass or not; bad options throw OptionError.
 */
export async function compareChart(body: ChartBody, goldenPath: string, o: CompareOptions = {}): Promise<CompareResult> {
  const update = o.update ?? loadCiEnv().update;
  if (update !== 'none' && !(UPDATE_MODES as readonly string[]).includes(update)) throw new OptionError(`update must be one of none, ${UPDATE_MODES.join(', ')}`);
  const given: Record<string, unknown> = {};
  for (const k of OPTION_KEYS) if (o[k] !== undefined) given[k] = o[k];
  // the same checks as NAME.golden.json
  const options = parseCaseOptions(JSON.stringify(given), 'compareChart options');
  const format = formatOf(body);
  if (!goldenPath.endsWith(`.${format}`)) throw new OptionError(`the golden of a ${format} chart ends in .${format}: ${goldenPath}`);
  const c: GoldenCase = { name: goldenPath, configPath: goldenPath, goldenPath, format, body, options, optionsPath: 'compareChart options' };
  const eng = await engineFor(o);
  const { result, images } = await runCase(c, { engine: eng, update, tolerance: caseTolerance(toleranceFromFlags({}), {}), ci: loadCiEnv().ci });
  const files: CompareResult['files'] = {};
  if (o.outputDir && result.status !== 'ok' && result.status !== 'updated') {
    const stem = goldenPath.replace(/^.*[\\/]/, '').replace(/\.[a-z]+$/, '');
    const put = (what: 'actual' | 'diff' | 'again', bytes: Buffer | undefined, ext: string) => {
      if (!bytes) return;
      const path = `${o.outputDir}/${stem}.${what}.${ext}`;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
      files[what] = path;
    };
    put('actual', images.actual, format);
    put('diff', images.diff, 'png');
    put('again', images.again, format);
  }
  return resultOf(result, goldenPath, files);
}

function resultOf(r: CaseResult, goldenPath: string, files: CompareResult['files']): CompareResult {
  const pass = r.status === 'ok' || r.status === 'updated';
  const detail = describeResult(r);
  const verdict = r.status !== 'differs' && r.parts ? partsVerdict(r.parts) : '';
  const message = `${goldenPath}: ${r.status}${detail ? ` (${detail})` : ''}${verdict ? `; ${verdict}` : ''}${files.diff ? `; diff: ${files.diff}` : ''}`;
  return {
    pass,
    status: r.status,
    message,
    ...(r.diffPixels !== undefined ? { diffPixels: r.diffPixels } : {}),
    ...(r.aaPixels !== undefined ? { aaPixels: r.aaPixels } : {}),
    ...(r.totalPixels !== undefined ? { totalPixels: r.totalPixels } : {}),
    ...(r.parts ? { parts: r.parts } : {}),
    files,
  };
}

/** Whether a golden exists (for tests that write one on first run explicitly). */
export const goldenExists = (path: string): boolean => existsSync(path);

// ---- test runners ------------------------------------------------------------------------

/** The part of chai a plugin touches (chai 4, 5 and 6). */
interface ChaiLike {
  Assertion: { addMethod(name: string, fn: (this: ChaiAssertion, ...args: never[]) => unknown): void };
}
interface ChaiAssertion {
  _obj: unknown;
  assert(pass: boolean, message: string, negated: string): void;
}

/**
 * chai.use(chartshotChai): `await expect(body).to.matchChartGolden('charts/bar.png', options)`
 * (the assertion is a promise: await it).
 */
export function chartshotChai(chai: ChaiLike): void {
  chai.Assertion.addMethod('matchChartGolden', function (this: ChaiAssertion, goldenPath: string, options?: CompareOptions) {
    const body = this._obj as ChartBody;
    return compareChart(body, goldenPath, options).then((r) => {
      this.assert(r.pass, r.message, `expected the chart not to match ${goldenPath}`);
    });
  } as (this: ChaiAssertion, ...args: never[]) => unknown);
}

/**
 * expect.extend({ toMatchChartGolden }) in jest or vitest:
 * `await expect(body).toMatchChartGolden('charts/bar.png', options)`.
 */
export async function toMatchChartGolden(this: unknown, received: ChartBody, goldenPath: string, options?: CompareOptions): Promise<{ pass: boolean; message: () => string }> {
  const r = await compareChart(received, goldenPath, options);
  return { pass: r.pass, message: () => (r.pass ? `expected the chart not to match ${goldenPath}` : r.message) };
}
