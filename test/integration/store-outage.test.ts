// A store failure made for real: the PostgreSQL server under a running chartshot is stopped, then
// started again. While it is away, requests that need it get 503 service_unavailable with
// Retry-After (a transient outage clients retry, not a 500 "the server is broken"), naming
// nothing of the connection; the process serves on (status, pressure) and logs one line when the
// store goes and one when it is back. The open endpoint, whose windows are in Redis and whose
// database rows are only a cache, goes on drawing. Once it is back, renders and short charts
// resume at once with nothing half-written: every 200 was counted once, nothing else was.
import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { rmSync } from 'node:fs';
import { OwnPostgres } from '../helpers/services.js';
import { OwnRedis } from '../helpers/redis.js';
import { testConfig } from '../helpers/server.js';
import { generationsCounted } from '../helpers/renders.js';
import { apiKey } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';
import { createLogger } from '../../src/log.js';
import { startServer, type Running } from '../../src/main.js';

describe('the database stopped under a running server', function () {
  this.timeout(120000);
  let pgsrv: OwnPostgres;
  let redis: OwnRedis;
  let s: Running;
  let dataDir: string;
  const logLines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const rawLog: string[] = [];
  // a password in the connection string (the throwaway server trusts loopback and ignores it):
  // it must appear in no log line
  const PASSWORD = 'pw-never-logged-9f3';

  before(async () => {
    pgsrv = await OwnPostgres.create();
    redis = await OwnRedis.create();
    const out = new PassThrough();
    out.on('data', (c: Buffer) => {
      for (const line of c.toString().split('\n').filter(Boolean)) {
        rawLog.push(line);
        logLines.push(JSON.parse(line) as (typeof logLines)[number]);
      }
    });
    const url = new URL(pgsrv.url);
    url.password = PASSWORD;
    const config = testConfig({ databaseUrl: url.toString(), redisUrl: redis.url, masterKey: Buffer.alloc(32, 9) });
    dataDir = config.dataDir;
    s = await startServer(config, { log: createLogger('warn', out), schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => {
    // a test that failed while PostgreSQL was stopped: closing may fail (the last counts cannot be
    // written), the servers and folders are removed all the same
    try {
      await s?.close();
    } finally {
      await pgsrv?.remove();
      await redis?.remove();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });

  const chart = (n: number) => ({ chart: { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [n, 2] }] } }, width: 120, height: 80 });
  const post = (path: string, key: string, n: number) =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...apiKey(key) }, body: JSON.stringify(chart(n)) });
  const render = (key: string, n: number) => post('/v1/chart', key, n);
  const create = (key: string, n: number) => post('/v1/chart/create', key, n);
  const linesSaying = (re: RegExp) => logLines.filter((l) => re.test(l.msg));

  /** A refusal because the store is away: 503, Retry-After, the error object naming nothing of the connection. */
  async function expectStoreRefusal(res: Response, what: string): Promise<void> {
    const text = await res.text();
    expect(res.status, `${what}: ${text} ${JSON.stringify(logLines).slice(0, 3000)}`).to.equal(503);
    expect(res.headers.get('retry-after'), `${what}: Retry-After`).to.match(/^[1-9]\d*$/);
    const body = JSON.parse(text) as { error: string; detail: string };
    expect(Object.keys(body).sort(), what).to.deep.equal(['detail', 'error']);
    expect(body.error, what).to.equal('service_unavailable');
    expect(body.detail, what).to.match(/database/);
    expect(text, `${what}: nothing of the connection reaches the client`).not.to.match(/127\.0\.0\.1|ECONN|postgres|\d{4,5}/i);
  }

  it('while PostgreSQL is away: 503 + Retry-After, one log line; back again: renders and creations resume at once, every 200 counted once', async () => {
    const acct = await s.deps.accounts.createAccount('starter', null);
    let ok = 0;
    const first = await render(acct.api_key, 1);
    expect(first.status).to.equal(200);
    await first.arrayBuffer();
    ok++;
    const made = await create(acct.api_key, 2);
    expect(made.status, await made.clone().text()).to.equal(201);
    await made.arrayBuffer();
    ok++;
    expect(await generationsCounted(s, acct.account_id)).to.include({ used: ok });
    expect((await (await fetch(`${s.url}/v1/pressure`)).json()) as object).to.include({ storeReachable: true });

    await pgsrv.stop();
    // an authenticated render and a short chart's creation both need the store (the key's
    // account, its rate windows and its count): refused as a transient outage, with Retry-After
    for (let i = 0; i < 3; i++) {
      await expectStoreRefusal(await render(acct.api_key, 10 + i), `render ${i} while PostgreSQL is away`);
      await expectStoreRefusal(await create(acct.api_key, 20 + i), `create ${i} while PostgreSQL is away`);
    }
    // the process goes on answering what needs no store, and says what is wrong
    const status = await fetch(`${s.url}/v1/status`);
    expect(status.status, 'the process still answers its health check').to.equal(200);
    const report = (await status.json()) as { status: string; reason?: string; kvLatency: number };
    expect(report).to.include({ status: 'degraded', kvLatency: -1 });
    expect(report.reason).to.match(/^store unreachable/);
    expect(report.reason, 'the public status names no address').not.to.match(/127\.0\.0\.1/);
    const pressure = await fetch(`${s.url}/v1/pressure`);
    // every instance shares the store: taking this one out of rotation would help nobody
    expect(pressure.status, 'still ready').to.equal(200);
    expect((await pressure.json()) as object).to.include({ accepting: true, storeReachable: false });
    // an open render needs no database here (its windows are in Redis): drawn, answered, not kept
    const open = await fetch(`${s.url}/v1/open/chart?c=${encodeURIComponent(JSON.stringify({ type: 'bar', data: { labels: ['away'], datasets: [{ data: [7] }] } }))}&w=120&h=80`);
    expect(open.status, await open.clone().text()).to.equal(200);
    expect(open.headers.get('content-type')).to.equal('image/png');
    expect(open.headers.get('cache-control'), 'not kept: not cached downstream either').to.equal('no-store');
    expect((await open.arrayBuffer()).byteLength).to.be.greaterThan(100);
    // one warning for the outage, not one per request; no error line per refused request
    expect(linesSaying(/is unreachable/), JSON.stringify(logLines)).to.have.length(1);
    expect(linesSaying(/is unreachable/)[0]).to.include({ level: 40 });
    expect(linesSaying(/request failed/), 'no error line per refused request').to.have.length(0);

    await pgsrv.start();
    const back = performance.now();
    // the pool opens new connections on demand: renders succeed as soon as PostgreSQL answers;
    // meanwhile every answer is either the image or the same clean refusal
    let n = 100;
    await waitFor('a render to succeed once PostgreSQL is back', async () => {
      const res = await render(acct.api_key, n++);
      if (res.status === 200) {
        await res.arrayBuffer();
        ok++;
        return true;
      }
      await expectStoreRefusal(res, 'a render while PostgreSQL starts');
      return false;
    }, { stepMs: 100 });
    const recoveredMs = performance.now() - back;
    const again = await create(acct.api_key, 200);
    expect(again.status, await again.clone().text()).to.equal(201);
    await again.arrayBuffer();
    ok++;
    expect((await (await fetch(`${s.url}/v1/pressure`)).json()) as object).to.include({ storeReachable: true });
    expect(linesSaying(/is reachable again after/), `one line when it is back (recovered in ${Math.round(recoveredMs)} ms)`).to.have.length(1);
    expect(linesSaying(/is unreachable/), 'still one outage line').to.have.length(1);
    // nothing half-written: the store counted exactly the renders that were answered with an image
    expect(await generationsCounted(s, acct.account_id)).to.include({ used: ok, reserved: 0 });
    // no secret in any line
    expect(rawLog.filter((l) => l.includes(PASSWORD))).to.deep.equal([]);
  });
});
