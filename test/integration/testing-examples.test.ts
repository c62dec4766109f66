// chartshot/testing as a user installs it: the package packed by `npm pack` (so its `files` and
// `exports` are what is checked), unpacked into each project of examples/testing/, whose tests
// then run under their own runner: vitest 3, jest 30 (ESM) and mocha with chai. The runners are
// installed from the npm registry once into .examples-run/runners (kept between runs,
// gitignored) and linked into each project; chartshot's own dependencies resolve from this
// checkout's node_modules, as the projects sit below it (never from the runners' folder, whose
// dependencies are other versions). Nothing is skipped: a runner that cannot be installed fails.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve('.');
const RUN = join(ROOT, '.examples-run');
const RUNNER_DIR = join(RUN, 'runners');
const RUNNERS = { vitest: '3.2.7', jest: '30.5.2', '@jest/globals': '30.5.2' };
const MINUTES = 60_000;

function run(cmd: string, args: string[], cwd: string, timeout: number): { code: number | null; out: string } {
  const { CI: _ci, GITHUB_ACTIONS: _gh, CHARTSHOT_UPDATE: _u, ...env } = process.env;
  const r = spawnSync(cmd, args, { cwd, env: { ...env, LOG_LEVEL: 'silent', NO_COLOR: '1', FORCE_COLOR: '0' }, encoding: 'utf8', timeout });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}` };
}

describe('chartshot/testing from npm pack: the example projects', function () {
  this.timeout(20 * MINUTES);
  let tarball: string;
  let packDir: string;

  before(function () {
    if (!existsSync('dist/testing/index.js') || !existsSync('dist/testing/index.d.ts')) throw new Error('dist/testing missing: run npm run build');
    packDir = mkdtempSync(join(tmpdir(), 'chartshot-pack-'));
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: ROOT, encoding: 'utf8', timeout: 5 * MINUTES }).trim().split('\n').pop()!;
    tarball = join(packDir, name);
    // the runners, once: an install that fails fails the suite (nothing skipped)
    mkdirSync(RUNNER_DIR, { recursive: true });
    const have = Object.entries(RUNNERS).every(([p, v]) => existsSync(join(RUNNER_DIR, 'node_modules', p, 'package.json')) && JSON.parse(readFileSync(join(RUNNER_DIR, 'node_modules', p, 'package.json'), 'utf8')).version === v);
    if (!have) {
      writeFileSync(join(RUNNER_DIR, 'package.json'), JSON.stringify({ name: 'chartshot-examples-runners', private: true, devDependencies: RUNNERS }, null, 2));
      const r = run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], RUNNER_DIR, 10 * MINUTES);
      if (r.code !== 0) throw new Error(`installing ${Object.entries(RUNNERS).map(([p, v]) => `${p}@${v}`).join(' ')} failed:\n${r.out.slice(-2000)}`);
    }
  });
  after(() => rmSync(packDir, { recursive: true, force: true }));

  /** examples/testing/<name> copied below .examples-run with the packed chartshot unpacked into its node_modules and `links` (runner packages) linked there. */
  function project(name: string, links: string[] = []): string {
    const dir = join(RUN, 'projects', name);
    rmSync(dir, { recursive: true, force: true });
    cpSync(join(ROOT, 'examples', 'testing', name), dir, { recursive: true });
    const pkg = join(dir, 'node_modules', 'chartshot');
    mkdirSync(pkg, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', pkg, '--strip-components=1']);
    for (const l of links) {
      mkdirSync(dirname(join(dir, 'node_modules', l)), { recursive: true });
      symlinkSync(join(RUNNER_DIR, 'node_modules', l), join(dir, 'node_modules', l), 'dir');
    }
    return dir;
  }

  it('the package holds the built library, its types and the renderer page, and no tests or sources', () => {
    const list = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const f of ['package/dist/testing/index.js', 'package/dist/testing/index.d.ts', 'package/dist/cli.js', 'package/renderer-page/built/harness.js', 'package/renderer-page/vendor/chart.umd.js', 'package/renderer-page/harness.html']) {
      expect(list, f).to.include(f);
    }
    expect(list.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/') || f.endsWith('.map'))).to.deep.equal([]);
  });

  it('vitest 3: toMatchChartGolden passes, fails and masks as its tests say', () => {
    const dir = project('vitest', ['vitest']);
    const r = run('node', [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], dir, 10 * MINUTES);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).to.match(/Tests\s+3 passed \(3\)/);
  });

  it('jest 30 (ESM): toMatchChartGolden passes, fails and masks as its tests say', () => {
    const dir = project('jest', ['jest', '@jest/globals']);
    const r = run('node', ['--experimental-vm-modules', join(dir, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci'], dir, 10 * MINUTES);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).to.match(/Tests:\s+3 passed, 3 total/);
  });

  it('mocha with chai: matchChartGolden passes, fails and masks as its tests say', () => {
    const dir = project('chai');
    // --no-config: this checkout's .mocharc.json is not the project's
    const r = run('node', [join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '--no-package', '--timeout', '120000', 'bar.test.js'], dir, 10 * MINUTES);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).to.match(/3 passing/);
    // the failing comparison wrote nothing next to the golden
    expect(readdirSync(join(dir, 'charts')).sort()).to.deep.equal(['bar.json', 'bar.png']);
  });
});
