// A store failure made for real: the PostgreSQL server under a running chartshot is stopped, then
// started again. While it is away, requests that need it get 500 internal_error naming nothing and
// the process serves on (health, images already in memory); once it is back, renders and counts
// resume with nothing half-written: every 200 was counted once, nothing else was.
import { expect } from 'chai';
import { OwnPostgres } from '../helpers/services.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { generationsCounted } from '../helpers/renders.js';
import { apiKey, errorOf } from '../helpers/client.js';

describe('the database stopped under a running server', function () {
  this.timeout(120000);
  let pgsrv: OwnPostgres;
  let s: TestServer;

  before(async () => {
    pgsrv = await OwnPostgres.create();
    s = await startTestServer({ databaseUrl: pgsrv.url, masterKey: Buffer.alloc(32, 9) }, { schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => {
    await s?.stop();
    await pgsrv?.remove();
  });

  const chart = (n: number) => ({ chart: { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [n, 2] }] } }, width: 120, height: 80 });
  const render = (key: string, n: number) =>
    fetch(`${s.url}/v1/chart`, { method: 'POST', headers: { 'content-type': 'application/json', ...apiKey(key) }, body: JSON.stringify(chart(n)) });

  it('while PostgreSQL is away: 500 internal_error, no crash, no hang; back again: renders resume and every 200 is counted once', async () => {
    const acct = await s.account('starter');
    let ok = 0;
    const first = await render(acct.api_key, 1);
    expect(first.status).to.equal(200);
    await first.arrayBuffer();
    ok++;
    expect(await generationsCounted(s, acct.account_id)).to.include({ used: ok });

    await pgsrv.stop();
    // a render needs the store (the key's account, its count): refused cleanly, with the
    // interface's JSON error, and the process goes on answering
    for (let i = 0; i < 3; i++) {
      const res = await render(acct.api_key, 10 + i);
      if (res.status === 200) {
        // served from what the process already held (an authenticated key stays cached a moment)
        await res.arrayBuffer();
        ok++;
        continue;
      }
      const body = await errorOf(res);
      // SPEC: a server error is 500 internal_error (as a full disk is, durability.test.ts);
      // nothing of the connection (address, driver message) reaches the client
      expect(body, JSON.stringify(body)).to.deep.equal({ status: 500, error: 'internal_error', detail: 'internal error' });
    }
    const status = await fetch(`${s.url}/v1/status`);
    expect(status.status, 'the process still answers its health check').to.equal(200);

    await pgsrv.start();
    // the pool's broken connections are replaced on use: a few requests at most fail before
    // one succeeds (bounded by count, not by time)
    let back = false;
    for (let i = 0; i < 20 && !back; i++) {
      const res = await render(acct.api_key, 100 + i);
      await res.arrayBuffer();
      if (res.status === 200) {
        ok++;
        back = true;
      } else expect(res.status).to.equal(500);
    }
    expect(back, 'a render succeeds once PostgreSQL is back').to.equal(true);
    const again = await render(acct.api_key, 200);
    expect(again.status).to.equal(200);
    await again.arrayBuffer();
    ok++;
    // nothing half-written: the store counted exactly the renders that were answered with an image
    expect(await generationsCounted(s, acct.account_id)).to.include({ used: ok, reserved: 0 });
  });
});
