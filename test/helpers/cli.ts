// The built `chartshot` command (dist/cli.js) run on a data directory of its own.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

export interface Cli {
  /** The DATA_DIR of this suite (set in its before hook). */
  readonly dataDir: string;
  run(...args: string[]): CliResult;
  /** The same, with extra environment variables. */
  runWith(env: Record<string, string>, ...args: string[]): CliResult;
}

/** In a describe: a fresh DATA_DIR before the suite, removed after it; fails when dist/ is not built. */
export function useCli(prefix: string): Cli {
  let dataDir = '';
  before(() => {
    if (!existsSync('dist/cli.js')) throw new Error('dist/cli.js missing: run npm run build (npm test does)');
    dataDir = mkdtempSync(join(tmpdir(), prefix));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const runWith = (env: Record<string, string>, ...args: string[]): CliResult => {
    const r = spawnSync('node', ['dist/cli.js', ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env }, encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  return {
    get dataDir() {
      return dataDir;
    },
    run: (...args) => runWith({}, ...args),
    runWith,
  };
}
