// A running server on SQLite keeps billing records between requests; a billing change made by
// the `billing` CLI (another process on the same file) applies to the server's next request.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock } from '../helpers/clock.js';
import { apiKey } from '../helpers/client.js';

const run = promisify(execFile);
const T0 = Date.UTC(2025, 3, 1);

describe('billing changes by the CLI reach a running server on SQLite', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;

  before(async () => {
    // a clock moved by hand only: no token refills, and no cached record ages out by itself
    clock = new FakeClock(T0);
    s = await startTestServer({ poolSize: 1 }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => s?.stop());

  const billing = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'billing', ...args, '--json'], {
      env: { ...process.env, DATA_DIR: s.config.dataDir, LOG_LEVEL: 'silent' },
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  const render = async (key: string) => {
    const res = await post(s.url, '/v1/chart', { chart: BAR, width: 120, height: 60 }, apiKey(key));
    await res.arrayBuffer();
    return res;
  };

  it('close-period and set-limits: the next request counts in the new period and obeys the new limit', async () => {
    const a = await s.deps.accounts.createAccount('enterprise', null);
    await billing('set-limits', '--account', a.account_id, '--charts', '1000', '--per-minute', '1000', '--burst', '1000');
    for (let i = 0; i < 2; i++) {
      const res = await render(a.api_key);
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-ratelimit-limit')).to.equal('1000');
    }
    // two seconds into the account's first period, which the CLI closes by hand
    const closedAt = T0 + 2000;
    clock.set(closedAt);
    const inv = await billing('close-period', '--account', a.account_id, '--now', new Date(closedAt).toISOString());
    expect((await s.deps.store.billing.invoice(inv.id as string))!).to.include({ periodStart: T0, periodEnd: closedAt });
    expect((await render(a.api_key)).status).to.equal(200);
    expect((await s.deps.store.usage.get(a.account_id, T0)).used, 'the closed period').to.equal(2);
    expect((await s.deps.store.usage.get(a.account_id, closedAt)).used, 'the new period').to.equal(1);

    await billing('set-limits', '--account', a.account_id, '--per-minute', '1', '--burst', '2');
    const first = await render(a.api_key);
    expect(first.status).to.equal(200);
    expect(first.headers.get('x-ratelimit-limit')).to.equal('2');
    expect((await render(a.api_key)).status).to.equal(200);
    expect((await render(a.api_key)).status).to.equal(429);
  });
});
