// mocha's spec reporter, plus where the run's time went per test file: wall time (from the
// file's first suite starting to its last ending, hooks included) and the summed durations of
// its tests and of its hooks (these move less on a shared machine). The slowest files are
// printed after mocha's totals; TEST_TIMINGS_FILE=path also writes every file's figures as JSON.
// CommonJS because mocha loads a reporter with require().
'use strict';
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');
const { Spec } = require('mocha/lib/reporters/spec.js');

const SHOWN = 15;

class TimingReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const files = new Map();
    const started = Date.now();
    const of = (file) => {
      const key = file ? relative(process.cwd(), file) : '(root hooks)';
      let f = files.get(key);
      if (!f) files.set(key, (f = { file: key, wallMs: 0, testsMs: 0, hooksMs: 0, tests: 0, open: 0, since: 0 }));
      return f;
    };
    // a file's top-level suites (a file may have several); nested suites are inside them
    const topLevel = (suite) => suite.parent && suite.parent.root;
    runner.on('suite', (suite) => {
      if (!topLevel(suite)) return;
      const f = of(suite.file);
      if (f.open++ === 0) f.since = Date.now();
    });
    runner.on('suite end', (suite) => {
      if (!topLevel(suite)) return;
      const f = of(suite.file);
      if (--f.open === 0) f.wallMs += Date.now() - f.since;
    });
    runner.on('test end', (test) => {
      const f = of(test.file);
      f.tests += 1;
      f.testsMs += test.duration || 0;
    });
    runner.on('hook end', (hook) => {
      const file = hook.parent && hook.parent.root ? null : hook.file || (hook.parent && hook.parent.file);
      of(file).hooksMs += hook.duration || 0;
    });
    runner.once('end', () => {
      const rows = [...files.values()].map(({ open, since, ...r }) => r).sort((a, b) => b.wallMs - a.wallMs);
      const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
      const lines = [`  slowest test files (wall s, tests s, hooks s, tests), run ${s(Date.now() - started).trim()} s:`];
      for (const r of rows.slice(0, SHOWN)) lines.push(`  ${s(r.wallMs)} ${s(r.testsMs)} ${s(r.hooksMs)} ${String(r.tests).padStart(5)}  ${r.file}`);
      // after Spec's epilogue (registered first, so it has printed by now); scripts/test-shards.mjs
      // prints one table over all its shards instead
      if (!process.env.TEST_TIMINGS_QUIET) process.stdout.write(`${lines.join('\n')}\n\n`);
      if (process.env.TEST_TIMINGS_FILE) writeFileSync(process.env.TEST_TIMINGS_FILE, `${JSON.stringify(rows, null, 1)}\n`);
    });
  }
}

module.exports = TimingReporter;
