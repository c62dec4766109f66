// The quick start works as written: the shell blocks of the README's "Quick start" (the same as
// docs/getting-started.md's) run in bash against a throwaway server, with only the address
// changed, and leave what they promise: account.json with its fields, a PNG of 800x400, an SVG.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fencedBlocks, section } from '../helpers/markdown.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

function quickStart(file: string): string[] {
  const body = section(readFileSync(join(ROOT, file), 'utf8'), 'Quick start');
  expect(body, `${file} has a "Quick start" section`).to.be.a('string');
  const blocks = fencedBlocks(body!, 'sh');
  expect(blocks, `${file}'s quick start has shell blocks`).to.have.length.above(0);
  return blocks;
}

describe('the quick start', function () {
  this.timeout(120_000);
  let s: TestServer;
  let dir: string;

  before(async () => {
    expect(existsSync(join(ROOT, 'dist/cli.js')), 'dist/cli.js (npm run build)').to.equal(true);
    s = await startTestServer({ poolSize: 1 });
    // the commands run in a folder of their own, where `node dist/cli.js` is the built CLI
    dir = mkdtempSync(join(tmpdir(), 'chartshot-quickstart-'));
    symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
  });
  after(async () => {
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is the same in the README and in docs/getting-started.md', () => {
    expect(quickStart('docs/getting-started.md')).to.deep.equal(quickStart('README.md'));
  });

  it('its commands run against a server and give the account, the PNG and the SVG they promise', async () => {
    const blocks = quickStart('README.md');
    expect(blocks.join('\n'), 'the commands name the default address').to.contain('http://localhost:8080/');
    const script = blocks.join('\n').replaceAll('http://localhost:8080', s.url);
    // the CLI uses the server's store, as the quick start says it must
    await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, env: { ...process.env, DATA_DIR: s.config.dataDir, LOG_LEVEL: 'silent' } });

    const account = JSON.parse(readFileSync(join(dir, 'account.json'), 'utf8')) as Record<string, string>;
    expect(account).to.have.all.keys('account_id', 'api_key', 'key_id', 'signing_secret', 'session_token');
    const png = readFileSync(join(dir, 'chart.png'));
    expect(png.subarray(1, 4).toString('latin1'), 'chart.png is a PNG (not an error body)').to.equal('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)], 'chart.png size').to.deep.equal([800, 400]);
    const svg = readFileSync(join(dir, 'chart.svg'), 'utf8');
    expect(svg, 'chart.svg is an SVG (not an error body)').to.match(/^(<\?xml[^>]*>\s*)?<svg[\s>]/);
    expect(svg).to.match(/width="400"/);
  });
});
