// Writes dist/build-info.json, the buildHash of GET /v1/status: the git commit (-dirty when the
// tree has changes), else the package version. BUILD_HASH at run time still wins.
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
