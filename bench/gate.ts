// The open endpoint's gate per request, before (the token rules alone, as on `main` or BEFORE_REF)
// and after (token rules + acorn), on the largest configs the endpoint accepts (6144 bytes).
// Both run in this process, interleaved, timed in CPU time (the machine is shared: wall time
// measures the neighbours). npx tsx bench/gate.ts [rounds]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findGateViolation as after } from '../src/chart/gate.js';

type Gate = (config: unknown) => string | null;
const MAX_BYTES = 6144;
const ROUNDS = Number(process.argv[2] ?? 5);
const REF = process.env.BEFORE_REF ?? 'main';

/** The gate as it is at REF, copied out of git into a temporary folder (it imports request.ts from here). */
async function gateAt(ref: string): Promise<{ gate: Gate; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gate-before-'));
  const show = (path: string) => execFileSync('git', ['show', `${ref}:${path}`], { encoding: 'utf8' });
  const request = pathToFileURL(join(process.cwd(), 'src/chart/request.ts')).href;
  writeFileSync(join(dir, 'gate.ts'), show('src/chart/gate.ts').replace("'./request.js'", `'${request}'`));
  writeFileSync(join(dir, 'jsTokens.ts'), show('src/chart/jsTokens.ts'));
  const mod = (await import(pathToFileURL(join(dir, 'gate.ts')).href)) as { findGateViolation: Gate };
  return { gate: mod.findGateViolation, dir };
}

/** Fills an array with `make(i)` while the config stays within MAX_BYTES. */
function fill(build: (items: string[]) => object, make: (i: number) => string): object {
  const items: string[] = [];
  for (let i = 0; ; i++) {
    items.push(make(i));
    if (JSON.stringify(build(items)).length > MAX_BYTES) {
      items.pop();
      return build(items);
    }
  }
}
const labels = (ls: string[]) => ({ type: 'bar', data: { labels: ls, datasets: [{ data: [1] }] } });
const colours = (cs: string[]) => ({
  type: 'bar',
  data: { labels: ['a'], datasets: [{ data: [1] }] },
  options: { plugins: { annotation: { annotations: Object.fromEntries(cs.map((c, i) => [`a${i}`, { type: 'line', borderColor: c }])) } } },
});
const title = (text: string) => ({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { title: { display: true, text } } } });
const long = (unit: string) => title(unit.repeat(Math.floor((MAX_BYTES - 150) / unit.length)));

const CASES: Array<[string, object]> = [
  ['plain words: no string passes the pre-filter', fill(labels, (i) => `Label ${i}`)],
  ['realistic: labels with colons, parentheses, accents, URLs', fill(labels, (i) => `L${i}: café (${i}%) https://ex.com/${i}`)],
  ['many short calls in data: f(i)', fill(labels, (i) => `f(${i})`)],
  ['many colours in options: rgba(...)', fill(colours, (i) => `rgba(${i % 256},0,0,0.5)`)],
  ['many prose arrows in data: Qi => Qj', fill(labels, (i) => `Q${i} => Q${i + 1}`)],
  ['many short arrows in data: x => 1 (prose there)', fill(labels, () => 'x => 1')],
  ['one 6 KB prose title with arrows and parentheses', long('Sales (EUR) => up 5%, ')],
  ['many labels in braces {i}: two parses each', fill(labels, (i) => `{${i}}`)],
  ['many labels with code words: "eval i (x)"', fill(labels, (i) => `eval ${i} (x)`)],
  ['many labels with backquotes: `x` i', fill(labels, (i) => `\`x\` ${i}`)],
  ['one 6 KB title of nested parentheses', long('(')],
  ['one 6 KB title of parentheses around eval (refused unparsed)', title(`${'('.repeat(6000)}eval(1)`)],
  ['one 6 KB title of arrow chain a=>a=>', long('a=>')],
  ['one 6 KB title of unary minus chain then eval(x)', title(`${'- '.repeat(2990)}eval(x)`)],
  ['many arrows in options (refused at the first)', fill(colours, () => '_ => 0')],
];

function cpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/** CPU µs per call of `gate` on `config`, over at least 200 ms of CPU. */
function measure(gate: Gate, config: object): number {
  let n = 0;
  const t0 = cpuMs();
  while (cpuMs() - t0 < 200) {
    for (let i = 0; i < 10; i++) gate(config);
    n += 10;
  }
  return ((cpuMs() - t0) * 1000) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { gate: before, dir } = await gateAt(REF);
try {
  console.log(`gate cost per config, CPU µs (median of ${ROUNDS} interleaved rounds); before = ${REF}, after = this tree\n`);
  console.log(`${'config'.padEnd(62)} ${'bytes'.padStart(5)} ${'before'.padStart(9)} ${'after'.padStart(9)}  ratio  verdict before -> after`);
  for (const [name, config] of CASES) {
    const bytes = JSON.stringify(config).length;
    const b: number[] = [];
    const a: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      b.push(measure(before, config));
      a.push(measure(after, config));
    }
    const [mb, ma] = [median(b), median(a)];
    const verdict = (g: Gate) => (g(config) ?? 'admitted').replace(/ at config.*/, '');
    console.log(`${name.padEnd(62)} ${String(bytes).padStart(5)} ${mb.toFixed(1).padStart(9)} ${ma.toFixed(1).padStart(9)}  ${(ma / mb).toFixed(2).padStart(5)}  ${verdict(before)} -> ${verdict(after)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
