// Writes dist/build-info.json: the build identifier GET /v1/status reports as buildHash.
// The git commit when the tree is a git checkout (with -dirty for uncommitted changes),
// otherwise the package version. BUILD_HASH at run time still wins (see src/config.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

let buildHash;
try {
  buildHash = git('rev-parse', '--short=12', 'HEAD');
  if (git('status', '--porcelain', '--untracked-files=no') !== '') buildHash += '-dirty';
} catch {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  buildHash = `v${version}`;
}
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'build-info.json'), JSON.stringify({ buildHash, builtAt: new Date().toISOString() }) + '\n');
console.log(`build-info: ${buildHash}`);
