// `chartshot test` over 100 configs of an 800x400 bar whose goldens match: the wall time of the
// whole command (node start, browser start, renders, comparisons), best and median of RUNS runs.
// Run: npm run --silent build && node --import tsx bench/golden.ts [--jobs N]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';

const CONFIGS = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const jobsAt = process.argv.indexOf('--jobs');
const jobs = jobsAt > 0 ? ['--jobs', process.argv[jobsAt + 1]!] : [];

const dir = mkdtempSync(join(tmpdir(), 'chartshot-golden-bench-'));
const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-golden-bench-data-'));
try {
  for (let i = 0; i < CONFIGS; i++) {
    const data = [12 + (i % 7), 19, 3 + (i % 5), 5, 2 + (i % 3), 3];
    const chart = { type: 'bar', data: { labels: ['Red', 'Blue', 'Yellow', 'Green', 'Purple', 'Orange'], datasets: [{ label: `series ${i}`, data }] } };
    writeFileSync(join(dir, `bar-${String(i).padStart(3, '0')}.json`), JSON.stringify({ chart, width: 800, height: 400, backgroundColor: 'white' }));
  }
  const run = (...args: string[]) => execFileSync('node', ['dist/cli.js', 'test', dir, ...jobs, ...args], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' });
  run('--update');
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const out = run();
    times.push(performance.now() - t0);
    if (!out.includes(`${CONFIGS} configs: ${CONFIGS} ok`)) throw new Error(`goldens did not match:\n${out}`);
  }
  times.sort((a, b) => a - b);
  const s = (ms: number) => (ms / 1000).toFixed(2);
  console.log(`chartshot test, ${CONFIGS} configs (800x400 bar), goldens matching: best ${s(times[0]!)} s, median ${s(times[Math.floor(RUNS / 2)]!)} s over ${RUNS} runs (${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
