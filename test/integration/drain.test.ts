// SIGTERM drains (issue 49 item 3): not ready at once (GET /v1/pressure 503 draining); during
// DRAIN_GRACE_MS new connections are still served (a load balancer may route to the instance
// until it notices); then new requests get 503 with Retry-After while the requests already
// connected (bodies still uploading), in flight or queued are answered: every render sent
// before the signal gets its image and no connection is reset; then the process exits 0.
// A real server process (dist/cli.js serve), raw sockets writing their bodies slowly. Nothing
// here depends on the machine's speed: the held bodies finish only once the refusal was seen.
import { expect } from 'chai';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/services.js';
import { head, rawConnect, type RawConnection } from '../helpers/rawHttp.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A line chart of `n` points: a body of some size that takes a page a while to draw. */
function lineBody(n: number): Buffer {
  const data = Array.from({ length: n }, (_, i) => Math.round(500 + 400 * Math.sin(i / 50)));
  return Buffer.from(JSON.stringify({ chart: { type: 'line', data: { labels: data.map((_, i) => i), datasets: [{ label: 'drain', data, pointRadius: 0 }] } }, width: 400, height: 200 }));
}

describe('SIGTERM drains (dist/cli.js serve)', function () {
  this.timeout(300_000);
  let proc: ChildProcess;
  let dataDir: string;
  let url: string;
  let key: string;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  const GRACE_MS = 8000;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'chartshot-drain-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      POOL_SIZE: '1',
      DRAIN_GRACE_MS: String(GRACE_MS),
      // generous: a slow machine must not turn a held request into a timeout
      ACQUIRE_TIMEOUT_MS: '120000',
      RENDER_TIMEOUT_MS: '60000',
      BODY_READ_TIMEOUT_MS: '120000',
    };
    key = (JSON.parse((await run('node', ['dist/cli.js', 'accounts', 'create', '--plan', 'enterprise', '--json'], { cwd: ROOT, env, encoding: 'utf8' })).stdout) as { api_key: string }).api_key;
    proc = spawn('node', ['dist/cli.js', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr!.resume();
    exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null) throw new Error('the server exited at start');
      if (await fetch(`${url}/v1/pressure`).then((r) => r.status === 200, () => false)) break;
      if (i > 1200) throw new Error('the server did not start');
      await sleep(100);
    }
  });

  after(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('renders whose bodies are still uploading at SIGTERM all get their image; new work is served during the grace, then refused with 503 + Retry-After; the process exits 0', async () => {
    const body = lineBody(20_000);
    const held: Array<{ c: RawConnection; sent: number }> = [];
    // six renders, each with its head and part of its body sent, the rest trickling
    for (let i = 0; i < 6; i++) {
      const c = await rawConnect(url);
      await c.write(head('POST', '/v1/chart', { 'X-Api-Key': key, 'Content-Type': 'application/json', 'Content-Length': body.length }));
      await c.write(body.subarray(0, 1000));
      held.push({ c, sent: 1000 });
    }
    let trickling = true;
    const trickle = (async () => {
      while (trickling) {
        for (const h of held) {
          const n = Math.min(50, body.length - h.sent - 1);
          if (n > 0 && (await h.c.write(body.subarray(h.sent, h.sent + n)))) h.sent += n;
        }
        await sleep(100);
      }
    })();

    const signalled = Date.now();
    proc.kill('SIGTERM');
    // not ready at once
    let pressure = await fetch(`${url}/v1/pressure`);
    for (let i = 0; i < 200 && pressure.status !== 503; i++) pressure = await fetch(`${url}/v1/pressure`);
    expect(pressure.status).to.equal(503);
    expect(((await pressure.json()) as { accepting: boolean; reason: string }).reason).to.equal('draining');
    expect(Date.now() - signalled, 'readiness false well within the grace').to.be.below(GRACE_MS);

    // a new connection during the grace is served (it would have been routed here)
    const during = await fetch(`${url}/v1/chart`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: lineBody(10).toString() });
    if (Date.now() - signalled < GRACE_MS) {
      expect(during.status, 'a request during the grace').to.equal(200);
      expect(during.headers.get('connection'), 'keep-alive clients are told to reconnect').to.equal('close');
    }

    // after the grace: new requests are refused with 503 + Retry-After (poll until the refusal shows)
    let refused: Response | null = null;
    while (!refused) {
      const r = await fetch(`${url}/v1/chart`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json', Connection: 'close' }, body: lineBody(10).toString() });
      if (r.status === 503) refused = r;
      else {
        expect(r.status).to.equal(200);
        await sleep(250);
      }
      expect(Date.now() - signalled, 'refusing within the grace plus slack').to.be.below(GRACE_MS + 60_000);
    }
    expect(Date.now() - signalled).to.be.at.least(GRACE_MS);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(((await refused.json()) as { error: string }).error).to.equal('service_unavailable');

    // only now do the held bodies finish: each was sent before the signal and gets its image
    trickling = false;
    await trickle;
    for (const h of held) expect(await h.c.write(body.subarray(h.sent)), 'the rest of a held body is taken').to.equal(true);
    for (const [i, h] of held.entries()) {
      const a = await h.c.answer;
      expect(a.status, `held render ${i}: ${a.body.slice(0, 200)}`).to.equal(200);
      expect(a.headers['content-type']).to.equal('image/png');
      expect(a.headers.connection).to.equal('close');
      expect((await h.c.closed).error, `held render ${i}: the connection was not reset`).to.equal(null);
    }
    const { code } = await exited;
    expect(code).to.equal(0);
  });
});
