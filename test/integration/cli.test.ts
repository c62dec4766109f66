// The `chartshot` CLI: its commands, flags and output (built dist/cli.js, real SQLite file).
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { useCli } from '../helpers/cli.js';
import { apiKey, post } from '../helpers/client.js';
import { decodePng } from '../helpers/images.js';

describe('the chartshot CLI', function () {
  this.timeout(60000);
  const cli = useCli('chartshot-cli-');
  const { run } = cli;

  it('accounts create --json prints exactly the five fields, and stores only hashes', () => {
    const r = run('accounts', 'create', '--plan', 'starter', '--email', 'a@example.com', '--json');
    expect(r.code, r.err).to.equal(0);
    const o = JSON.parse(r.out) as Record<string, string>;
    expect(Object.keys(o).sort()).to.deep.equal(['account_id', 'api_key', 'key_id', 'session_token', 'signing_secret']);
    expect(o.api_key).to.match(/^live_/);
    const db = readFileSync(join(cli.dataDir, 'chartshot.db'));
    const wal = existsSync(join(cli.dataDir, 'chartshot.db-wal')) ? readFileSync(join(cli.dataDir, 'chartshot.db-wal')) : Buffer.alloc(0);
    for (const secret of [o.api_key!, o.session_token!, o.signing_secret!]) {
      expect(db.includes(secret) || wal.includes(secret), 'secret stored in clear').to.equal(false);
    }
  });

  it('a trial account gets a trial_ key; "pro" is growth', () => {
    expect(JSON.parse(run('accounts', 'create', '--plan', 'trial', '--json').out).api_key).to.match(/^trial_/);
    expect(run('accounts', 'create', '--plan', 'pro', '--json').code).to.equal(0);
  });

  it('keys create / list / revoke and sessions create', () => {
    const acct = JSON.parse(run('accounts', 'create', '--plan', 'growth', '--json').out) as { account_id: string };
    const k = run('keys', 'create', '--account', acct.account_id, '--json');
    expect(k.code, k.err).to.equal(0);
    const key = JSON.parse(k.out) as Record<string, string>;
    expect(Object.keys(key).sort()).to.deep.equal(['api_key', 'key_id', 'signing_secret']);
    const list = JSON.parse(run('keys', 'list', '--account', acct.account_id, '--json').out) as Array<{ key_id: string; revoked_at: string | null }>;
    expect(list.map((x) => x.key_id)).to.include(key.key_id);
    expect(JSON.stringify(list)).not.to.contain(key.api_key);
    expect(run('keys', 'revoke', key.key_id!).code).to.equal(0);
    const after = JSON.parse(run('keys', 'list', '--account', acct.account_id, '--json').out) as Array<{ key_id: string; revoked_at: string | null }>;
    expect(after.find((x) => x.key_id === key.key_id)!.revoked_at).to.be.a('string');
    const s = JSON.parse(run('sessions', 'create', '--account', acct.account_id, '--json').out) as { session_token: string; expires_at: string };
    expect(s.session_token).to.be.a('string');
    expect(Date.parse(s.expires_at) - Date.now()).to.be.within(29 * 86400e3, 31 * 86400e3);
  });

  it('bad input: one clear line on stderr and a non-zero exit', function () {
    this.timeout(300_000); // eight CLI processes one after another: a bound for a loaded machine
    for (const args of [['accounts', 'create', '--plan', 'gold'], ['accounts', 'create'], ['keys', 'create', '--account', 'acct_nope'], ['frobnicate'], ['keys', 'revoke', 'key_nope'], ['keys', 'list', '--account', 'acct_nope'], ['render', '/nonexistent.json', '-o', '/tmp/x.png'], ['accounts', 'create', '--plan', 'starter', '--bogus']]) {
      const r = run(...args);
      expect(r.code, args.join(' ')).not.to.equal(0);
      expect(r.err.trim().split('\n'), args.join(' ')).to.have.length(1);
      expect(r.err).to.match(/^chartshot: /);
    }
  });

  it('a bad environment value refuses to start with the variable named', () => {
    const r = spawnSync('node', ['dist/cli.js', 'serve'], { env: { ...process.env, DATA_DIR: cli.dataDir, PORT: 'eighty' }, encoding: 'utf8' });
    expect(r.status).not.to.equal(0);
    expect(r.stderr).to.contain('PORT');
  });

  it('serve: SIGTERM drains the request in flight, closes the pool and exits 0', async () => {
    const acct = JSON.parse(run('accounts', 'create', '--plan', 'starter', '--json').out) as { api_key: string };
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn('node', ['dist/cli.js', 'serve'], {
      env: { ...process.env, DATA_DIR: cli.dataDir, PORT: String(port), HOST: '127.0.0.1', POOL_SIZE: '1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (d: Buffer) => (logs += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const deadline = Date.now() + 30000;
    while (!logs.includes('chartshot listening')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start: ${logs}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // A render that takes a while, then SIGTERM while it is in flight.
    const slow = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { title: { display: true, text: 'function(){ var t=Date.now(); while(Date.now()-t<2000){} return "slow"; }' } } } };
    const inflight = post(`http://127.0.0.1:${port}`, '/v1/chart', { chart: slow, width: 200, height: 100 }, apiKey(acct.api_key));
    // The signal that it is in flight: the pool's busy gauge (loopback may read /metrics).
    for (let busy = false; !busy; ) {
      if (Date.now() > deadline + 30000) throw new Error('the render never started');
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      busy = /^chartshot_pool_busy 1$/m.test(metrics);
    }
    child.kill('SIGTERM');
    const res = await inflight;
    expect(res.status).to.equal(200);
    expect(await exited).to.equal(0);
    expect(logs).to.contain('chartshot stopped');
    // Structured JSON logs with a request id, and no key in them.
    const lines = logs.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // the render was still in flight when the signal came: its request line follows "shutting down"
    const shutting = lines.findIndex((l) => l.msg === 'shutting down');
    const answered = lines.findIndex((l) => l.msg === 'request' && l.method === 'POST' && l.url === '/v1/chart');
    expect(shutting, 'a "shutting down" line').to.be.at.least(0);
    expect(answered, 'the render answered after the signal').to.be.greaterThan(shutting);
    expect(lines.some((l) => l.msg === 'request' && typeof l.requestId === 'string')).to.equal(true);
    expect(logs).not.to.contain(acct.api_key);
  });

  it('render works offline with the same engine (png and svg)', () => {
    const cfg = join(cli.dataDir, 'chart.json');
    writeFileSync(cfg, JSON.stringify({ type: 'line', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'x', data: [1, 3, 2] }] } }));
    const png = join(cli.dataDir, 'out.png');
    const r = run('render', cfg, '-o', png, '--width', '320', '--height', '200');
    expect(r.code, r.err).to.equal(0);
    const img = decodePng(readFileSync(png));
    expect([img.width, img.height]).to.deep.equal([320, 200]);
    const svg = join(cli.dataDir, 'out.svg');
    expect(run('render', cfg, '-o', svg, '--format', 'svg').code).to.equal(0);
    expect(readFileSync(svg, 'utf8')).to.match(/^<svg[^>]*width="800"/);
  });
});
