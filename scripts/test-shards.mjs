// Runs the mocha suite as N shards side by side (N = TEST_JOBS, default the CPU count, at most 2):
// each shard is an ordinary mocha process over its share of the files, with its own root hooks,
// shared test server, PostgreSQL and Redis, so nothing is shared between shards. Most of a test's
// time is spent waiting on Chromium, a child process or a timer, so two shards use a second core
// the single process leaves idle. A third on two cores did not finish sooner (23.9 against 24.7
// minutes) and loaded the machine so that pages took longer to load than tests allow.
//
// Files are dealt out by their last measured wall time (test/timings.json, written by
// `TEST_TIMINGS_FILE=test/timings.json npm run test:only`), longest first to the least loaded shard;
// a file not measured yet counts as the median. Shard 1's output streams as it runs; the others'
// is printed as each finishes, whole, so no two shards' lines are interleaved. The last lines are
// the totals over all shards, in mocha's words ("N passing", "N failing", "N pending"), and the
// exit code is non-zero when any shard failed.
//
// usage: node scripts/test-shards.mjs <dir or file>...
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const roots = process.argv.slice(2);
if (roots.length === 0) {
  process.stderr.write('usage: node scripts/test-shards.mjs <dir or file>...\n');
  process.exit(2);
}
const files = roots
  .flatMap((r) => (statSync(r).isDirectory() ? readdirSync(r, { recursive: true }).map((f) => join(r, String(f))) : [r]))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => relative(process.cwd(), f))
  .sort();

const jobsWanted = Number(process.env.TEST_JOBS || Math.min(2, availableParallelism()));
if (!Number.isInteger(jobsWanted) || jobsWanted < 1) {
  process.stderr.write(`TEST_JOBS must be a whole number from 1 (got ${process.env.TEST_JOBS})\n`);
  process.exit(2);
}
const jobs = Math.min(jobsWanted, files.length);

// ---- dealing the files out --------------------------------------------------------------------
const timingsPath = 'test/timings.json';
const measured = new Map(existsSync(timingsPath) ? JSON.parse(readFileSync(timingsPath, 'utf8')).map((r) => [r.file, r.wallMs]) : []);
const known = [...measured.values()].sort((a, b) => a - b);
const median = known.length ? known[Math.floor(known.length / 2)] : 1000;
const cost = (f) => measured.get(f) ?? median;
const shards = Array.from({ length: jobs }, () => ({ files: [], costMs: 0 }));
for (const f of [...files].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b))) {
  const least = shards.reduce((m, s) => (s.costMs < m.costMs ? s : m));
  least.files.push(f);
  least.costMs += cost(f);
}
// within a shard, the usual order (unit tests first, as a plain run would)
for (const s of shards) s.files.sort();

// ---- running them -----------------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), 'chartshot-shards-'));
const started = Date.now();
const mocha = join('node_modules', 'mocha', 'bin', 'mocha.js');
if (jobs > 1) process.stdout.write(`mocha in ${jobs} shards: ${shards.map((s) => `${s.files.length} files (~${Math.round(s.costMs / 1000)} s)`).join(', ')}\n\n`);

const strip = (t) => t.replace(/\x1b\[[0-9;]*m/g, '');
const runs = shards.map((shard, i) => {
  const timings = join(work, `timings-${i}.json`);
  const child = spawn(process.execPath, [mocha, '--reporter', './test/helpers/timing-reporter.cjs', ...shard.files], {
    env: { ...process.env, TEST_TIMINGS_FILE: timings, TEST_TIMINGS_QUIET: jobs > 1 ? '1' : '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks = [];
  const keep = (live) => (d) => {
    chunks.push(d);
    if (i === 0) live.write(d);
  };
  child.stdout.on('data', keep(process.stdout));
  child.stderr.on('data', keep(process.stderr));
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? 1, signal })));
  return { i, child, done, timings, text: () => Buffer.concat(chunks).toString('utf8') };
});
// stopped from outside: stop the shards too (each mocha's own cleanup then runs)
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => runs.forEach((r) => r.child.kill(sig)));

const results = [];
for (const r of runs) {
  const { code, signal } = await r.done;
  const text = r.text();
  if (r.i > 0) process.stdout.write(`\n---- shard ${r.i + 1} of ${jobs} ----\n${text}`);
  const plain = strip(text);
  const count = (word) => {
    const all = [...plain.matchAll(new RegExp(`^ *(\\d+) ${word}`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : 0;
  };
  const rows = existsSync(r.timings) ? JSON.parse(readFileSync(r.timings, 'utf8')) : [];
  results.push({ code, signal, passing: count('passing'), failing: count('failing'), pending: count('pending'), rows });
}

// ---- the totals -------------------------------------------------------------------------------
if (jobs > 1) {
  const rows = results.flatMap((r) => r.rows).filter((r) => r.file !== '(root hooks)').sort((a, b) => b.wallMs - a.wallMs);
  const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
  process.stdout.write(`\n  slowest test files over all shards (wall s, tests s, hooks s, tests):\n`);
  for (const r of rows.slice(0, 15)) process.stdout.write(`  ${s(r.wallMs)} ${s(r.testsMs)} ${s(r.hooksMs)} ${String(r.tests).padStart(5)}  ${r.file}\n`);
  if (process.env.TEST_TIMINGS_FILE) writeFileSync(process.env.TEST_TIMINGS_FILE, `${JSON.stringify(rows, null, 1)}\n`);
  const sum = (k) => results.reduce((n, r) => n + r[k], 0);
  const secs = Math.round((Date.now() - started) / 1000);
  process.stdout.write(`\n  ${sum('passing')} passing (${Math.floor(secs / 60)}m ${secs % 60}s, ${jobs} shards)\n`);
  if (sum('failing')) process.stdout.write(`  ${sum('failing')} failing\n`);
  if (sum('pending')) process.stdout.write(`  ${sum('pending')} pending\n`);
  for (const [i, r] of results.entries()) if (r.code !== 0) process.stdout.write(`  shard ${i + 1} exited with ${r.signal ?? r.code}\n`);
} else if (process.env.TEST_TIMINGS_FILE) {
  writeFileSync(process.env.TEST_TIMINGS_FILE, `${JSON.stringify(results[0].rows, null, 1)}\n`);
}
rmSync(work, { recursive: true, force: true });
// exitCode, not process.exit(): stdout into a pipe (npm test | tee in .ci/run) is written
// asynchronously, and exit() would drop the totals still queued behind a shard's long output
// (a CI run lost them so: its last "passing" line was shard 2's alone)
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
