// Golden-image tests, two numbers (a benchmark, not a test):
// 1. `chartshot test` over 500 mixed cases offline (bar, line, pie, doughnut, radar, scatter,
//    polarArea, bubble; 300x200 to 1000x500; one in ten SVG, one in ten on Chart.js 3, one in
//    twenty on Chart.js 2; every tenth with NAME.golden.json options), goldens matching: cases per
//    second of the whole command (node start, browser start, renders, comparisons), best and
//    median of RUNS runs.
// 2. The comparison's own cost per 800x400 PNG, in this process: equal bytes, equal pixels in
//    other bytes, a real difference (exact), the same with the recommended tolerance and the
//    parts verdict, and with masks.
// Results: printed and written to BENCH_OUT (default bench/golden-results.md).
// Run: npm run bench:golden   (BENCH_RUNS=3 by default; CASES=500)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { compareImages, EXACT } from '../src/golden/compare.js';
import { RECOMMENDED_FLAGS, toleranceFromFlags } from '../src/golden/options.js';

const CASES = Number(process.env.CASES ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const OUT = process.env.BENCH_OUT ?? 'bench/golden-results.md';
const jobsAt = process.argv.indexOf('--jobs');
const jobs = jobsAt > 0 ? ['--jobs', process.argv[jobsAt + 1]!] : [];

const TYPES = ['bar', 'line', 'pie', 'doughnut', 'radar', 'scatter', 'polarArea', 'bubble'];
const SIZES: Array<[number, number]> = [[300, 200], [500, 300], [800, 400], [1000, 500], [600, 600]];

function caseBody(i: number): Record<string, unknown> {
  const type = TYPES[i % TYPES.length]!;
  const [width, height] = SIZES[(i >> 3) % SIZES.length]!;
  const n = 4 + (i % 9);
  const labels = Array.from({ length: n }, (_, k) => `L${k + 1}`);
  const point = (k: number, d: number) => ((k * 37 + i * 11 + d * 5) % 50) + 5;
  const data = (d: number) =>
    type === 'scatter' ? labels.map((_, k) => ({ x: point(k, d), y: point(k + 3, d) })) : type === 'bubble' ? labels.map((_, k) => ({ x: point(k, d), y: point(k + 1, d), r: 3 + (k % 6) })) : labels.map((_, k) => point(k, d));
  const datasets = Array.from({ length: 1 + (i % 3) }, (_, d) => ({ label: `series ${d + 1}`, data: data(d) }));
  const chart = { type, data: { labels, datasets }, options: { plugins: { title: { display: i % 2 === 0, text: `case ${i}` } } } };
  const body: Record<string, unknown> = { chart, width, height, backgroundColor: 'white' };
  if (i % 10 === 3) body.format = 'svg';
  else if (i % 10 === 7) body.chartjs = 3;
  else if (i % 20 === 9) body.chartjs = 2;
  return body;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** ms per call of fn, median of 5 batches of n calls. */
function timeIt(n: number, fn: () => void): number {
  fn();
  const batches: number[] = [];
  for (let b = 0; b < 5; b++) {
    const t0 = performance.now();
    for (let k = 0; k < n; k++) fn();
    batches.push((performance.now() - t0) / n);
  }
  return median(batches);
}

function comparisonCost(): string[] {
  const golden = readFileSync('test/golden-calibration/bar-1px-taller.golden.png');
  const taller = readFileSync('test/golden-calibration/bar-1px-taller.actual.png');
  const legend = readFileSync('test/golden-calibration/bar-legend-swapped.actual.png');
  const p = PNG.sync.read(golden);
  const sameOtherBytes = PNG.sync.write(p, { filterType: 0 });
  const recommended = toleranceFromFlags(RECOMMENDED_FLAGS);
  const parts = { title: { x: 0, y: 0, width: 800, height: 30 }, legend: { x: 0, y: 30, width: 800, height: 30 }, chartArea: { x: 36, y: 66, width: 764, height: 306 }, x: { x: 36, y: 372, width: 764, height: 28 }, y: { x: 0, y: 66, width: 36, height: 306 } };
  const rows: Array<[string, number]> = [
    ['equal bytes', timeIt(200, () => compareImages(golden, Buffer.from(golden), 'png', EXACT))],
    ['equal pixels, other bytes (both decoded, compared)', timeIt(20, () => compareImages(golden, sameOtherBytes, 'png', EXACT))],
    ['a bar 1 px taller, exact (diff image encoded)', timeIt(20, () => compareImages(golden, taller, 'png', EXACT))],
    ['legend swapped, recommended tolerance + window + parts verdict', timeIt(20, () => compareImages(golden, legend, 'png', recommended, { parts }))],
    ['legend swapped, exact, legend masked', timeIt(20, () => compareImages(golden, legend, 'png', EXACT, { masks: [parts.legend], parts }))],
  ];
  return rows.map(([what, ms]) => `| ${what} | ${ms.toFixed(2)} ms |`);
}

const dir = mkdtempSync(join(tmpdir(), 'chartshot-golden-bench-'));
const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-golden-bench-data-'));
try {
  const cost = comparisonCost();
  console.log(cost.join('\n'));
  for (let i = 0; i < CASES; i++) {
    const sub = join(dir, TYPES[i % TYPES.length]!);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `case-${String(i).padStart(3, '0')}.json`), JSON.stringify(caseBody(i)));
    if (i % 10 === 5) writeFileSync(join(sub, `case-${String(i).padStart(3, '0')}.golden.json`), JSON.stringify({ ignore: ['legend'], maxDiffRatio: 0.005, window: '8:12' }));
  }
  const run = (...args: string[]) => execFileSync('node', ['dist/cli.js', 'test', dir, ...jobs, ...args], { env: { ...process.env, DATA_DIR: dataDir, CI: '' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  run('--update');
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const out = run();
    times.push(performance.now() - t0);
    if (!out.includes(`${CASES} configs: ${CASES} ok`)) throw new Error(`goldens did not match:\n${out.split('\n').slice(-5).join('\n')}`);
  }
  times.sort((a, b) => a - b);
  const best = times[0]!;
  const med = times[Math.floor(RUNS / 2)]!;
  const load = loadavg()[0]!.toFixed(1);
  const line = `chartshot test, ${CASES} mixed cases offline, goldens matching: best ${(best / 1000).toFixed(1)} s (${(CASES / (best / 1000)).toFixed(1)} cases/s), median ${(med / 1000).toFixed(1)} s (${(CASES / (med / 1000)).toFixed(1)} cases/s) over ${RUNS} runs; ${cpus().length} cores, load ${load} at the end${jobs.length ? `, ${jobs.join(' ')}` : ''}`;
  console.log(line);
  const note = `# Golden-image tests: throughput and the comparison's cost

Run: \`npm run bench:golden\` (bench/golden.ts), ${new Date().toISOString().slice(0, 16)} UTC.

${line}.

The comparison's own cost per 800x400 PNG (median of 5 batches, this process):

| comparison | per image |
|---|---|
${cost.join('\n')}
`;
  writeFileSync(OUT, note);
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
