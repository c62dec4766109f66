// The middleware around every route, seen from outside: X-Request-Id on every answer, one access
// log line and one metrics sample per request with its final status (errors mapped), and the
// per-account request analytics counting exactly the rate-limited requests.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { startServer, type Running } from '../../src/main.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import { FakeClock } from '../helpers/clock.js';
import { BAR, post, testConfig } from '../helpers/server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
type Line = Record<string, unknown>;

describe('request middleware: id, access log, metrics, analytics', function () {
  this.timeout(60000);
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  const config = testConfig({ poolSize: 1 });
  const clock = new FakeClock(); // rate-limit windows stand still: the 429 below does not depend on speed
  let s: Running;

  before(async () => {
    s = await startServer(config, { log: createLogger('info', sink), clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => {
    await s?.close();
    rmSync(config.dataDir, { recursive: true, force: true });
  });

  /** The access log line of the response (matched by its X-Request-Id). */
  function logLineOf(res: Response): Line {
    const id = res.headers.get('x-request-id');
    const found = lines.filter((l) => l.msg === 'request' && l.requestId === id);
    expect(found, `one access log line for ${id}`).to.have.length(1);
    return found[0]!;
  }

  async function metric(route: string, method: string, status: number): Promise<number> {
    const text = await (await fetch(`${s.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('chartshot_http_requests_total{') && l.includes(`route="${route}"`) && l.includes(`method="${method}"`) && l.includes(`status="${status}"`));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  /** POST /v1/chart/create for a fresh starter account while `fault` holds; the fault is undone even if the request fails. */
  async function createWhile(fault: { on(): void; off(): void }): Promise<{ res: Response; sessionToken: string }> {
    const acct = await s.deps.accounts.createAccount('starter', null);
    fault.on();
    try {
      return { res: await post(s.url, '/v1/chart/create', { chart: BAR, width: 60, height: 40 }, { 'x-api-key': acct.api_key }), sessionToken: acct.session_token };
    } finally {
      fault.off();
    }
  }

  async function analytics(sessionToken: string): Promise<{ totalRequests: number; successRate: number }> {
    const res = await fetch(`${s.url}/usage/analytics`, { headers: { authorization: `Bearer ${sessionToken}` } });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { quickStats: { totalRequests: number; successRate: number } }).quickStats;
  }

  it('every answer carries its own X-Request-Id, errors included (404 no route, 405, 401, 400), and one access log line with its final status', async () => {
    const acct = await s.deps.accounts.createAccount('starter', null);
    const answers = [
      { res: await fetch(`${s.url}/v1/status`), status: 200, error: null },
      { res: await fetch(`${s.url}/no/such/route`), status: 404, error: 'not_found' },
      { res: await fetch(`${s.url}/v1/status`, { method: 'DELETE' }), status: 405, error: 'invalid_input' },
      { res: await post(s.url, '/v1/chart', { chart: BAR }, { 'x-api-key': 'sk_live_nope' }), status: 401, error: 'unauthorized' },
      { res: await post(s.url, '/v1/chart', { chart: BAR, width: 0 }, { 'x-api-key': acct.api_key }), status: 400, error: 'invalid_dimensions' },
    ];
    const ids = new Set<string>();
    for (const { res, status, error } of answers) {
      expect(res.status).to.equal(status);
      const id = res.headers.get('x-request-id');
      expect(id, `${status}`).to.match(UUID);
      ids.add(id!);
      if (error) {
        expect(await res.json()).to.include({ error });
        expect(res.headers.get('cache-control'), `${status}`).to.equal('no-store');
      }
      const line = logLineOf(res);
      expect(line).to.include({ status });
      expect(line).to.have.all.keys('level', 'time', 'service', 'msg', 'requestId', 'method', 'url', 'status', 'ms', 'ip');
    }
    expect(ids.size).to.equal(answers.length);
    expect(answers[2]!.res.headers.get('allow')).to.be.a('string').that.includes('GET');
    expect(logLineOf(answers[1]!.res)).to.include({ method: 'GET', url: '/no/such/route' });
  });

  it('the metrics and the access log count a 429 and a 500 under their status', async () => {
    const trial = await s.deps.accounts.createAccount('trial', null);
    const before429 = await metric('/v1/metrics/:id', 'GET', 429);
    let limited: Response | null = null;
    for (let i = 0; i < 100 && !limited; i++) {
      const res = await fetch(`${s.url}/v1/metrics/no-such-chart`, { headers: { 'x-api-key': trial.api_key } });
      if (res.status === 429) limited = res;
      else expect(res.status).to.equal(404);
    }
    expect(limited, 'the trial plan rate limit answers 429 within 100 requests').to.not.equal(null);
    expect(await limited!.json()).to.include({ error: 'rate_limit_exceeded' });
    expect(limited!.headers.get('x-request-id')).to.match(UUID);
    expect(logLineOf(limited!)).to.include({ status: 429 });
    expect(await metric('/v1/metrics/:id', 'GET', 429)).to.equal(before429 + 1);

    const before500 = await metric('/v1/chart/create', 'POST', 500);
    const db = (s.deps.store as SqliteStore).db;
    const { res: failed } = await createWhile({ on: () => db.pragma('query_only = ON'), off: () => db.pragma('query_only = OFF') });
    expect(failed.status).to.equal(500);
    expect(await failed.json()).to.deep.equal({ error: 'internal_error', detail: 'internal error' });
    expect(failed.headers.get('x-request-id')).to.match(UUID);
    expect(logLineOf(failed)).to.include({ status: 500 });
    expect(await metric('/v1/chart/create', 'POST', 500)).to.equal(before500 + 1);
  });

  it('request analytics count the rate-limited requests of an account with their final outcome', async () => {
    const acct = await s.deps.accounts.createAccount('starter', null);
    const key = { 'x-api-key': acct.api_key };
    expect((await post(s.url, '/v1/chart', { chart: BAR, width: 60, height: 40, format: 'svg' }, key)).status).to.equal(200);
    expect((await post(s.url, '/v1/chart', { chart: BAR, width: 0 }, key)).status).to.equal(400);
    expect((await fetch(`${s.url}/v1/metrics/no-such-chart`, { headers: key })).status).to.equal(404);
    // not rate-limited, so not counted: refused before the limits, or no such route
    expect((await post(s.url, '/v1/chart', { chart: BAR }, { 'x-api-key': acct.api_key + 'x' })).status).to.equal(401);
    expect((await fetch(`${s.url}/v1/chart/nope/extra`, { headers: key })).status).to.equal(404);
    expect(await analytics(acct.session_token)).to.include({ totalRequests: 3, successRate: 33.3 });
  });

  it('a failure to write the analytics leaves the answer as it was; the counts are kept and written once when the store works again', async () => {
    const store = s.deps.store as SqliteStore;
    const db = store.db;
    // only the analytics columns fail to write; the render's own counts go on
    const trigger = () =>
      db.exec(`CREATE TRIGGER analytics_down_insert BEFORE INSERT ON usage_daily WHEN NEW.requests > 0 BEGIN SELECT RAISE(ABORT, 'analytics down'); END;
               CREATE TRIGGER analytics_down_update BEFORE UPDATE OF requests ON usage_daily BEGIN SELECT RAISE(ABORT, 'analytics down'); END;`);
    const acct = await s.deps.accounts.createAccount('starter', null);
    const day = Math.floor(clock.now() / 86_400_000);
    trigger();
    let res: Response;
    try {
      res = await post(s.url, '/v1/chart/create', { chart: BAR, width: 60, height: 40 }, { 'x-api-key': acct.api_key });
      // analytics are written behind the request (decision 0029): a reader's flush meets the failure
      let failure: unknown = null;
      await store.usage.totals(acct.account_id, day, day).catch((err: unknown) => (failure = err));
      expect(String(failure)).to.include('analytics down');
    } finally {
      db.exec('DROP TRIGGER analytics_down_insert; DROP TRIGGER analytics_down_update;');
    }
    expect(res.status).to.equal(201);
    expect(logLineOf(res)).to.include({ status: 201 });
    // kept for the next write, and counted once
    expect(await analytics(acct.session_token)).to.include({ totalRequests: 1, successRate: 100 });
    expect(await analytics(acct.session_token)).to.include({ totalRequests: 1 });
  });
});
