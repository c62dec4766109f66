// `chartshot test DIR`: renders every config of a folder (offline with the server's engine, or
// through a running server) and compares each with its golden image; --update rewrites them.
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Context } from 'koa';
import type { Config } from './config.js';
import { TEST_USAGE, TestUsageError } from './cli-test-usage.js';
import type { AuthContext } from './services/accounts.js';
import { PLANS } from './rules/plans.js';
import { AppError, invalidInput } from './errors.js';
import { MAX_JSON_DEPTH, nestingDepth } from './chart/jsonDepth.js';
import { Chartshot, ChartshotError, type ChartRequest } from './client/index.js';
import { findCases, UnreadableConfig, type GoldenCase } from './golden/cases.js';
import { compareImages, type Tolerance } from './golden/compare.js';
import { describe, isFailure, junitXml, reportHtml, summaryLine, type CaseResult } from './golden/report.js';
import { RENDERER_FILE, parseFingerprint, rendererChange } from './golden/renderer.js';


export interface TestFlags {
  update?: boolean;
  report?: string;
  threshold?: string;
  'max-diff-pixels'?: string;
  jobs?: string;
  server?: string;
  'api-key'?: string;
}

interface Rendered {
  body: Buffer;
  renderer: string | null;
}

interface Engine {
  render(c: GoldenCase): Promise<Rendered>;
  /** What renders here (Chart.js 4); null until known (a server says it with its first image). */
  renderer(): string | null;
  close(): Promise<void>;
}

// Offline renders stand for the largest plan with a live key: no watermark, every format.
const OFFLINE_CALLER = { plan: PLANS.enterprise, key: { kind: 'live' }, account: { id: 'cli', status: 'active' } } as unknown as AuthContext;

/** The server's engine in this process: the body checked by the route's schema, normalised as the service does, drawn by the same pool. */
async function offlineEngine(config: Config, jobs: number): Promise<Engine> {
  // imported here, not at the top: bad usage (exit 2) and --server runs never load the renderer
  const [{ createLogger }, { startPool }, { RenderService }, { buildRenderRequest }, { inputReader }, { chartRequestBodySchema }] = await Promise.all([
    import('./log.js'),
    import('./main.js'),
    import('./services/render.js'),
    import('./services/charts.js'),
    import('./http/validate.js'),
    import('./http/schemas/chart.js'),
  ]);
  const log = createLogger(process.env.LOG_LEVEL ? config.logLevel : 'warn', process.stderr);
  const pool = await startPool({ ...config, poolSize: jobs, maxQueue: Math.max(config.maxQueue, jobs) }, log);
  const service = new RenderService(pool, undefined, { maxImageBytes: config.maxImageBytes });
  const read = inputReader({ in: 'body', schema: chartRequestBodySchema });
  return {
    async render(c) {
      // the body parser's own bound, so a config the server refuses fails here too
      if (nestingDepth(JSON.stringify(c.body)) > MAX_JSON_DEPTH) throw invalidInput(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
      // a fresh copy per render: the normaliser may keep references to what it was given
      const fields = read({ request: { body: structuredClone(c.body) } } as unknown as Context) as Record<string, unknown>;
      const img = await service.render(buildRenderRequest(OFFLINE_CALLER, fields), 'cli');
      return { body: img.body, renderer: img.renderer ?? null };
    },
    renderer: () => pool.fingerprint().header(),
    close: () => pool.close(),
  };
}

function serverEngine(baseUrl: string, apiKey: string): Engine {
  const client = new Chartshot({ baseUrl, apiKey });
  let seen: string | null = null;
  let seenV4 = false;
  return {
    async render(c) {
      const res = await client.render(c.body as unknown as ChartRequest);
      // the Chart.js 4 fingerprint is the folder's: configs on 2 or 3 name their own version
      const v4 = (c.body.chartjs ?? 4) === 4;
      if (res.renderer && (seen === null || (v4 && !seenV4))) {
        seen = res.renderer;
        seenV4 = v4;
      }
      return { body: res.body, renderer: res.renderer };
    },
    renderer: () => seen,
    close: async () => {},
  };
}

function parseFlags(dir: string | undefined, o: TestFlags): { dir: string; tol: Tolerance; jobs: number } {
  if (!dir) throw new TestUsageError(`test <dir> is required\n${TEST_USAGE}`);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new TestUsageError(`${dir} is not a directory`);
  const threshold = o.threshold === undefined ? 0 : Number(o.threshold);
  if (!/^\d*\.?\d+$/.test(o.threshold ?? '0') || !(threshold >= 0 && threshold <= 1)) throw new TestUsageError('--threshold must be a number from 0 to 1');
  const maxDiff = o['max-diff-pixels'] ?? '0';
  if (!/^\d{1,10}$/.test(maxDiff)) throw new TestUsageError('--max-diff-pixels must be a whole number of pixels');
  // default: a page per core but one, at most 4: the browser process itself composites and
  // encodes for every page (on 2 cores, 100 bars took 4.3 s on one page, 6.4 s on two)
  const jobsText = o.jobs ?? String(Math.max(1, Math.min(4, availableParallelism() - 1)));
  if (!/^\d{1,2}$/.test(jobsText) || Number(jobsText) < 1 || Number(jobsText) > 32) throw new TestUsageError('--jobs must be a whole number from 1 to 32');
  if (o.server !== undefined && !/^https?:\/\/[^\s]+$/.test(o.server)) throw new TestUsageError('--server must be an http(s) URL');
  if (o.server !== undefined && !o['api-key']) throw new TestUsageError('--server needs --api-key');
  if (o.server === undefined && o['api-key'] !== undefined) throw new TestUsageError('--api-key goes with --server');
  return { dir, tol: { threshold, maxDiffPixels: Number(maxDiff) }, jobs: Number(jobsText) };
}

function writeFile(path: string, body: Buffer | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
}

/** Compares (or, with --update, writes) one case's golden; report files go to `out`. */
function judge(c: GoldenCase, r: Rendered, ms: number, update: boolean, tol: Tolerance, out: string | undefined): CaseResult {
  const base: CaseResult = { name: c.name, format: c.format, status: 'ok', ms, images: {} };
  const golden = existsSync(c.goldenPath) ? readFileSync(c.goldenPath) : null;
  if (update) {
    if (golden?.equals(r.body)) return base;
    writeFileSync(c.goldenPath, r.body);
    return { ...base, status: 'updated' };
  }
  const verdict = golden ? compareImages(golden, r.body, c.format, tol) : null;
  const result: CaseResult = !verdict
    ? { ...base, status: 'missing' }
    : verdict.status === 'ok'
      ? { ...base, diffPixels: verdict.diffPixels }
      : { ...base, status: 'differs', diffPixels: verdict.diffPixels, totalPixels: verdict.totalPixels, ...(verdict.sizeChange ? { sizeChange: verdict.sizeChange } : {}) };
  if (out) {
    if (golden) writeFile(join(out, (result.images.golden = `${c.name}.golden.${c.format}`)), golden);
    if (result.status !== 'ok') writeFile(join(out, (result.images.actual = `${c.name}.actual.${c.format}`)), r.body);
    if (verdict?.status === 'differs' && verdict.diffPng) writeFile(join(out, (result.images.diff = `${c.name}.diff.png`)), verdict.diffPng);
  }
  return result;
}

function errorText(err: unknown): string {
  if (err instanceof AppError) return `${err.code}: ${err.detail ?? ''}`.trim();
  if (err instanceof ChartshotError) return err.message;
  return (err as Error).message ?? String(err);
}

const line = (r: CaseResult) => {
  const d = describe(r);
  return `${r.status.padEnd(8)}${r.name}${d ? `  (${d})` : ''}`;
};

/** Runs the command; resolves to the exit code: 0 all match, 1 a difference, missing golden or render error. */
export async function runGoldenTests(config: Config, dirArg: string | undefined, o: TestFlags): Promise<number> {
  const started = performance.now();
  const { dir, tol, jobs } = parseFlags(dirArg, o);
  const out = o.report ? resolve(o.report) : undefined;
  let cases: GoldenCase[];
  try {
    cases = findCases(dir, out ? [out] : []);
  } catch (err) {
    if (err instanceof UnreadableConfig) throw new TestUsageError(err.message);
    throw err;
  }
  if (cases.length === 0) throw new TestUsageError(`no *.json configs under ${dir}`);
  const tty = process.stdout.isTTY === true;
  if (tty) process.stdout.write(`[0/${cases.length}] starting the renderer...`);
  const engine = o.server ? serverEngine(o.server, o['api-key']!) : await offlineEngine(config, jobs);
  const results: Array<CaseResult | undefined> = new Array(cases.length);
  let printed = 0;
  let done = 0;
  const flush = () => {
    let text = tty ? '\r\x1b[K' : '';
    while (printed < cases.length && results[printed]) text += line(results[printed++]!) + '\n';
    if (tty && done < cases.length) text += `[${done}/${cases.length}] rendering...`;
    process.stdout.write(text);
  };
  try {
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        const c = cases[i]!;
        const t0 = performance.now();
        let result: CaseResult;
        try {
          const rendered = await engine.render(c);
          result = judge(c, rendered, performance.now() - t0, o.update === true, tol, out);
        } catch (err) {
          result = { name: c.name, format: c.format, status: 'error', error: errorText(err), ms: performance.now() - t0, images: {} };
        }
        results[i] = result;
        done++;
        flush();
      }
    };
    await Promise.all(Array.from({ length: Math.min(jobs, cases.length) }, worker));
  } finally {
    await engine.close();
  }
  const all = results as CaseResult[];
  const current = engine.renderer();
  const recordPath = join(dir, RENDERER_FILE);
  const recorded = existsSync(recordPath) ? readFileSync(recordPath, 'utf8') : null;
  if (o.update && current) writeFileSync(recordPath, current + '\n');
  const failed = all.some(isFailure);
  const change = !o.update && failed && recorded && current ? rendererChange(recorded, current) : null;
  const ms = performance.now() - started;
  if (out) {
    const run = { dir, renderer: current ?? 'unknown', rendererChange: change, ms };
    writeFile(join(out, 'index.html'), reportHtml(all, run));
    writeFile(join(out, 'junit.xml'), junitXml(all, run));
  }
  if (change) process.stdout.write(`${change} (goldens were made with ${Object.entries(parseFingerprint(recorded!)).map(([k, v]) => `${k}=${v}`).join('; ')})\n`);
  process.stdout.write(summaryLine(all, ms) + '\n');
  if (out) process.stdout.write(`report: ${join(out, 'index.html')}\n`);
  return failed ? 1 : 0;
}
