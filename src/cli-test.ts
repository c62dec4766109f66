// `chartshot test DIR`: renders every config of a folder (offline with the server's engine, or
// through a running server) and compares each with its golden image; `chartshot test merge`
// joins the reports of shards. The rules: docs/golden-tests.md.
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { CiEnv, Config } from './config.js';
import { TEST_USAGE, TestUsageError } from './cli-test-usage.js';
import { findCases, staleGoldens, UnreadableConfig, type GoldenCase } from './golden/cases.js';
import { OptionError, toleranceFromFlags } from './golden/options.js';
import { runCase, UPDATE_MODES, type UpdateMode } from './golden/run.js';
import { describe, exitCodeOf, githubAnnotations, summaryLine, type CaseResult, type RunSummary } from './golden/report.js';
import { RENDERER_FILE, parseFingerprint, rendererChange } from './golden/renderer.js';
import { MergeError, mergeReports, writeReport } from './golden/reportFiles.js';
import type { Engine } from './golden/engine.js';

const OPTIONS = {
  update: { type: 'string' },
  report: { type: 'string' },
  threshold: { type: 'string' },
  'max-diff-pixels': { type: 'string' },
  'max-diff-ratio': { type: 'string' },
  'max-diff-window': { type: 'string' },
  'ignore-antialiasing': { type: 'boolean' },
  jobs: { type: 'string' },
  shard: { type: 'string' },
  server: { type: 'string' },
  'api-key': { type: 'string' },
} as const;

interface TestArgs {
  dir: string;
  update: UpdateMode;
  report?: string;
  jobs: number;
  shard?: { index: number; count: number };
  server?: { url: string; apiKey: string };
  flags: Record<string, string | boolean | undefined>;
}

/** `--update` alone is `--update=all`; parseArgs then reads it as a string option. */
function normaliseUpdate(argv: string[]): string[] {
  return argv.map((a) => (a === '--update' ? '--update=all' : a));
}

function parse(argv: string[]): { positionals: string[]; values: Record<string, string | boolean | undefined> } {
  try {
    const { values, positionals } = parseArgs({ args: normaliseUpdate(argv), allowPositionals: true, strict: true, options: OPTIONS });
    return { values, positionals };
  } catch (err) {
    throw new TestUsageError(`${(err as Error).message.split('\n')[0]}\n${TEST_USAGE}`);
  }
}

function parseTestArgs(argv: string[]): TestArgs {
  const { values: o, positionals } = parse(argv);
  if (positionals.length > 1) throw new TestUsageError(`test takes one folder: ${positionals.join(' ')}`);
  const dir = positionals[0];
  if (!dir) throw new TestUsageError(`test <dir> is required\n${TEST_USAGE}`);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new TestUsageError(`${dir} is not a directory`);
  const update = o.update as string | undefined;
  if (update !== undefined && !(UPDATE_MODES as readonly string[]).includes(update)) throw new TestUsageError(`--update must be one of ${UPDATE_MODES.join(', ')} (alone: all), got "${update}"`);
  // default: a page per core but one, at most 4: the browser process itself composites and
  // encodes for every page (on 2 cores, 100 bars took 4.3 s on one page, 6.4 s on two)
  const jobsText = (o.jobs as string | undefined) ?? String(Math.max(1, Math.min(4, availableParallelism() - 1)));
  if (!/^\d{1,2}$/.test(jobsText) || Number(jobsText) < 1 || Number(jobsText) > 32) throw new TestUsageError('--jobs must be a whole number from 1 to 32');
  let shard: TestArgs['shard'];
  if (o.shard !== undefined) {
    const m = /^(\d{1,4})\/(\d{1,4})$/.exec(o.shard as string);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) throw new TestUsageError(`--shard must be i/n with 1 <= i <= n (e.g. 2/4), got "${o.shard}"`);
    shard = { index: Number(m[1]), count: Number(m[2]) };
  }
  const url = o.server as string | undefined;
  const key = o['api-key'] as string | undefined;
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) throw new TestUsageError('--server must be an http(s) URL');
  if (url !== undefined && !key) throw new TestUsageError('--server needs --api-key');
  if (url === undefined && key !== undefined) throw new TestUsageError('--api-key goes with --server');
  return {
    dir,
    update: (update as UpdateMode | undefined) ?? 'none',
    ...(o.report !== undefined ? { report: resolve(o.report as string) } : {}),
    jobs: Number(jobsText),
    ...(shard ? { shard } : {}),
    ...(url !== undefined ? { server: { url, apiKey: key! } } : {}),
    flags: o,
  };
}

const line = (r: CaseResult) => {
  const d = describe(r);
  return `${r.status.padEnd(8)}${r.status.length >= 8 ? ' ' : ''}${r.name}${d ? `  (${d})` : ''}`;
};

/** The cases of shard i of n: every n-th by name, starting at the i-th. */
export function shardOf<T>(cases: T[], shard: { index: number; count: number } | undefined): T[] {
  return shard ? cases.filter((_, i) => i % shard.count === shard.index - 1) : cases;
}

/** Runs `chartshot test ...`; resolves to the exit code. */
export async function runTestCommand(config: Config, ci: CiEnv, argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return runMerge(ci, argv.slice(1));
  const started = performance.now();
  const a = parseTestArgs(argv);
  let tolerance;
  let all: GoldenCase[];
  try {
    tolerance = toleranceFromFlags(a.flags);
    all = findCases(a.dir, a.report ? [a.report] : []);
  } catch (err) {
    if (err instanceof UnreadableConfig || err instanceof OptionError) throw new TestUsageError(err.message);
    throw err;
  }
  if (all.length === 0) throw new TestUsageError(`no *.json configs under ${a.dir}`);
  const stale = staleGoldens(a.dir, all, a.report ? [a.report] : []);
  const cases = shardOf(all, a.shard);
  const tty = process.stdout.isTTY === true;
  if (tty) process.stdout.write(`[0/${cases.length}] starting the renderer...`);
  let engine: Engine;
  if (a.server) engine = (await import('./golden/engine.js')).serverEngine(a.server.url, a.server.apiKey);
  else engine = await (await import('./golden/engine.js')).offlineEngine(config, Math.max(1, Math.min(a.jobs, cases.length)));
  const results: Array<CaseResult | undefined> = new Array(cases.length);
  const images: Array<Awaited<ReturnType<typeof runCase>>['images']> = new Array(cases.length);
  let printed = 0;
  let done = 0;
  const flush = () => {
    let text = tty ? '\r\x1b[K' : '';
    while (printed < cases.length && results[printed]) text += line(results[printed++]!) + '\n';
    if (tty && done < cases.length) text += `[${done}/${cases.length}] rendering...`;
    process.stdout.write(text);
  };
  const ctx = { engine, update: a.update, tolerance, ci: ci.ci };
  try {
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        const c = cases[i]!;
        const out = await runCase(c, ctx);
        results[i] = { ...out.result, file: relative(process.cwd(), c.configPath) };
        images[i] = out.images;
        done++;
        flush();
      }
    };
    await Promise.all(Array.from({ length: Math.min(a.jobs, cases.length) }, worker));
  } finally {
    await engine.close();
  }
  const done_ = results as CaseResult[];
  const current = engine.renderer();
  const recordPath = join(a.dir, RENDERER_FILE);
  const recorded = existsSync(recordPath) ? readFileSync(recordPath, 'utf8').trim() : null;
  const wrote = done_.some((r) => r.status === 'updated');
  if (current && (wrote || (a.update === 'all' && !a.shard) || (a.update !== 'none' && recorded === null))) writeFileSync(recordPath, current + '\n');
  const code = exitCodeOf(done_);
  const change = code !== 0 && recorded && current ? rendererChange(recorded, current) : null;
  const ms = performance.now() - started;
  const run: RunSummary = {
    dir: a.dir,
    renderer: current ?? 'unknown',
    recorded,
    rendererChange: change,
    ms,
    tolerance,
    stale,
    ...(a.shard ? { shards: [`${a.shard.index}/${a.shard.count}`] } : {}),
  };
  if (a.report) writeReport(a.report, done_, images, run);
  if (change) process.stdout.write(`${change} (goldens were made with ${Object.entries(parseFingerprint(recorded!)).map(([k, v]) => `${k}=${v}`).join('; ')})\n`);
  if (stale.length) process.stdout.write(`stale goldens (no case uses them): ${stale.join(', ')}\n`);
  for (const r of done_) if (r.usage) process.stderr.write(`chartshot: ${r.error}\n`);
  if (ci.githubActions) {
    const notes = githubAnnotations(done_);
    if (notes) process.stdout.write(notes + '\n');
  }
  process.stdout.write(summaryLine(done_, ms) + '\n');
  if (a.report) process.stdout.write(`report: ${join(a.report, 'index.html')}\n`);
  if (code === 3) process.stdout.write('unstable: a failing case drew differently when rendered again (exit 3)\n');
  return code;
}

/** `chartshot test merge DIR... [--report OUT]`: the shards' reports as one. */
async function runMerge(ci: CiEnv, argv: string[]): Promise<number> {
  const { values: o, positionals } = parse(argv);
  const extra = Object.keys(o).filter((k) => k !== 'report' && o[k] !== undefined);
  if (extra.length) throw new TestUsageError(`test merge takes report folders and --report OUT only, not --${extra[0]}`);
  if (positionals.length === 0) throw new TestUsageError(`test merge <report-dir>... is required\n${TEST_USAGE}`);
  const out = resolve((o.report as string | undefined) ?? 'chartshot-report');
  let merged;
  try {
    merged = mergeReports(positionals.map((p) => resolve(p)), out);
  } catch (err) {
    if (err instanceof MergeError) throw new TestUsageError(err.message);
    throw err;
  }
  if (ci.githubActions) {
    const notes = githubAnnotations(merged.results);
    if (notes) process.stdout.write(notes + '\n');
  }
  process.stdout.write(summaryLine(merged.results, merged.run.ms) + '\n');
  process.stdout.write(`report: ${join(out, 'index.html')}\n`);
  return exitCodeOf(merged.results);
}
