// LOG_FORMAT: one readable line per request on a terminal (secrets still redacted), JSON for
// files and collectors, and a startup line naming the address really bound.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startServer, type Running } from '../../src/main.js';
import { BAR, testConfig } from '../helpers/server.js';
import { apiKey, post } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

function sink(): { stream: Writable & { isTTY?: boolean }; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('LOG_FORMAT', function () {
  it('is json, pretty or unset (auto); anything else refuses to start', () => {
    expect(loadConfig({}).logFormat).to.equal('auto');
    expect(loadConfig({ LOG_FORMAT: 'Pretty' }).logFormat).to.equal('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).to.equal('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).to.throw(ConfigError, /LOG_FORMAT must be json or pretty/);
  });

  it('auto writes readable lines to a terminal and JSON elsewhere', () => {
    const tty = sink();
    tty.stream.isTTY = true;
    createLogger('info', tty.stream, 'auto').info({ n: 1 }, 'hello');
    const file = sink();
    createLogger('info', file.stream, 'auto').info({ n: 1 }, 'hello');
    expect(tty.text()).to.match(/^\d\d:\d\d:\d\d\.\d{3} INFO  hello {2}n=1\n$/);
    expect(JSON.parse(file.text())).to.include({ msg: 'hello', n: 1 });
  });

  describe('pretty, on a running server', () => {
    const out = sink();
    const config = testConfig({ poolSize: 1 });
    let s: Running;
    before(async () => {
      s = await startServer(config, { log: createLogger('info', out.stream, 'pretty'), schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
    });
    after(async () => {
      await s?.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    });

    it('one line per request: method, path, status, ms and request id; keys and signatures redacted', async () => {
      const acct = await s.deps.accounts.createAccount('starter', null);
      const q = new URLSearchParams({ chart: JSON.stringify(BAR), width: '60', height: '40', api_key: acct.api_key });
      const viaQuery = await fetch(`${s.url}/v1/chart?${q}`);
      expect(viaQuery.status).to.equal(200);
      const sig = 'ab'.repeat(32);
      const signed = await fetch(`${s.url}/v1/chart?chart=%7B%7D&width=1&height=1&key_id=nope&exp=1&sig=${sig}`);
      expect(signed.status).to.equal(401);
      const viaHeader = await post(s.url, '/v1/chart', { chart: BAR, width: 60, height: 40 }, apiKey(acct.api_key));
      expect(viaHeader.status).to.equal(200);
      const status = await fetch(`${s.url}/v1/status`);
      const lineOf = (res: Response) => out.text().split('\n').filter((l) => l.endsWith(` ${res.headers.get('x-request-id')}`));
      // the last request's line is the marker that every earlier line is written (one logger, in order)
      await waitFor('the last request\'s log line', () => lineOf(status).length > 0, { stepMs: 50, state: () => out.text().slice(-2000) });
      const text = out.text();
      expect(lineOf(status)).to.have.length(1);
      expect(lineOf(status)[0]).to.match(/^\d\d:\d\d:\d\d\.\d{3} GET \/v1\/status 200 [\d.]+ ms [\w-]+$/);
      expect(lineOf(viaHeader)[0]).to.match(/^\d\d:\d\d:\d\d\.\d{3} POST \/v1\/chart 200 [\d.]+ ms /);
      expect(lineOf(viaQuery)[0]).to.match(/ GET \/v1\/chart\?chart=.*api_key=\[redacted\] 200 /);
      expect(lineOf(signed)[0]).to.match(/sig=\[redacted\] 401 /);
      expect(text).not.to.contain(acct.api_key);
      expect(text).not.to.contain(sig);
      expect(text).not.to.contain('{"');
    });
  });

  it('the built server started with PORT=0 names the address it really bound', async function () {
    if (!existsSync('dist/cli.js')) throw new Error('dist/cli.js missing: run npm run build');
    const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-logs-'));
    const child = spawn('node', ['dist/cli.js', 'serve'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', POOL_SIZE: '1', LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (d: Buffer) => (logs += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 30000;
      let m: RegExpExecArray | null = null;
      while (!(m = /INFO {2}chartshot listening {2}address=127\.0\.0\.1:(\d+) url=(\S+)/.exec(logs))) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start: ${logs}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(Number(m[1])).to.be.above(0);
      expect(m[2]).to.equal(`http://127.0.0.1:${m[1]}`);
      expect(logs).to.contain(`store=DATA_DIR ${dataDir}`);
      expect((await fetch(`${m[2]}/v1/status`)).status).to.equal(200);
    } finally {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
