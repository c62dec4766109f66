// Attacks on a running dashboard: a read-only account changing its billing, a flood of test
// webhooks, sessions that cannot all be ended or pile up, an oversized chunked form.
import { expect } from 'chai';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock, DAY } from '../helpers/clock.js';
import { PageClient, csrfOf, freshIp } from '../helpers/dashboard.js';
import { hashSecret } from '../../src/services/credentials.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';

describe('web dashboard under attack', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;
  const browser = () => new PageClient(s.url, freshIp());
  const signedIn = async (plan: 'starter' | 'growth' = 'starter') => {
    const a = await s.account(plan);
    const b = browser();
    await b.signIn(a.session_token);
    return { a, b };
  };
  const status = async (id: string) => (await s.deps.store.accounts.find(id))!.status;
  const plan = async (id: string) => (await s.deps.store.accounts.find(id))!.plan;

  before(async () => {
    clock = new FakeClock(Date.UTC(2025, 3, 1, 9));
    s = await startTestServer({ poolSize: 1, trustProxy: true, webhookAllowPrivate: true }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0, timeoutMs: 3000 } });
  });
  after(async () => {
    await s?.stop();
  });

  describe('a read-only account', () => {
    it('a suspended account can neither reactivate itself nor change plan nor its webhook (403, nothing changes)', async () => {
      const { a } = await signedIn();
      await s.deps.billing.paymentFailed(a.account_id);
      clock.advance(10 * DAY);
      await s.deps.billing.runScheduler();
      expect(await status(a.account_id)).to.equal('suspended');
      const b = browser();
      await b.signIn(a.session_token);
      const restore = await b.submit('/dashboard/billing', '/dashboard/billing/restore');
      expect(restore.status).to.equal(403);
      expect(restore.text).to.include('suspended (read-only)');
      const up = await b.submit('/dashboard/billing', '/dashboard/billing/plan', { plan: 'growth', cycle: 'monthly' });
      expect(up.status).to.equal(403);
      const hook = await b.submit('/dashboard/settings', '/dashboard/settings/webhook', { url: 'http://127.0.0.1:9/x' });
      expect(hook.status).to.equal(403);
      expect(await status(a.account_id)).to.equal('suspended');
      expect(await plan(a.account_id)).to.equal('starter');
      expect((await s.deps.store.billing.get(a.account_id))?.webhookUrl ?? null).to.equal(null);
    });

    it('a past-due account cannot "restore" its way out of the failed payment', async () => {
      const { a, b } = await signedIn();
      await s.deps.billing.paymentFailed(a.account_id);
      const r = await b.submit('/dashboard/billing', '/dashboard/billing/restore');
      expect(r.status).to.equal(403);
      expect(r.text).to.include('no cancellation to withdraw');
      const rec = (await s.deps.store.billing.get(a.account_id))!;
      expect(rec.paymentFailedAt).to.not.equal(null);
      expect(rec.dunningStage).to.be.greaterThan(0);
    });

    it('a cancelled account is restored within its read-only window only; a pending cancellation can be withdrawn', async () => {
      const { a, b } = await signedIn();
      await b.submit('/dashboard/billing', '/dashboard/billing/cancel');
      const undo = await b.submit('/dashboard/billing', '/dashboard/billing/restore');
      expect(undo.location).to.equal('/dashboard/billing?done=restored');
      expect((await s.deps.store.billing.get(a.account_id))!.cancelAtPeriodEnd).to.equal(false);
      // cancelled, its window over: refused
      await s.deps.store.accounts.update(a.account_id, { status: 'cancelled' });
      await s.deps.store.billing.update(a.account_id, { readOnlyUntil: clock.now() - 1 });
      const late = await b.submit('/dashboard/billing', '/dashboard/billing/restore');
      expect(late.status).to.equal(403);
      expect(late.text).to.include('restoration window has passed');
      expect(await status(a.account_id)).to.equal('cancelled');
      expect((await b.submit('/dashboard/billing', '/dashboard/billing/plan', { plan: 'growth', cycle: 'monthly' })).status).to.equal(403);
      // within it: restored
      await s.deps.store.billing.update(a.account_id, { readOnlyUntil: clock.now() + 5 * DAY });
      expect((await b.submit('/dashboard/billing', '/dashboard/billing/restore')).location).to.equal('/dashboard/billing?done=restored');
      expect(await status(a.account_id)).to.equal('active');
    });
  });

  describe('test events', () => {
    let hook: Server;
    let hits: number;
    let hookUrl: string;
    before(async () => {
      hits = 0;
      // a host that always fails: the attacker wants every event retried at it
      hook = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          hits++;
          res.writeHead(500).end();
        });
      });
      await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
      hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/flood`;
    });
    after(() => new Promise<void>((r) => hook.close(() => r())));

    it('one pending test event per account, five an hour, one delivery attempt each, none once suspended', async () => {
      const { a, b } = await signedIn();
      await b.submit('/dashboard/settings', '/dashboard/settings/webhook', { url: hookUrl });
      const send = () => b.submit('/dashboard/settings', '/dashboard/settings/webhook/test');
      const mine = async () => (await s.deps.store.outbox.list(a.account_id)).filter((o) => o.target === hookUrl);
      expect((await send()).location).to.equal('/dashboard/settings?done=test');
      const again = await send();
      expect(again.status).to.equal(429);
      expect(again.text).to.include('already on its way');
      expect(await mine()).to.have.length(1);
      await s.deps.outbox.tick();
      for (let i = 2; i <= 5; i++) {
        expect((await send()).status, `event ${i}`).to.equal(303);
        await s.deps.outbox.tick();
      }
      const sixth = await send();
      expect(sixth.status).to.equal(429);
      expect(sixth.text).to.include('at most 5 test events an hour');
      const rows = await mine();
      expect(rows).to.have.length(5);
      for (const r of rows) expect(r).to.include({ status: 'failed', attempts: 1 });
      // never retried (an ordinary webhook would be due again after 30 s)
      clock.advance(6 * 3_600_000);
      await s.deps.outbox.tick();
      expect(hits).to.equal(5);
      await s.deps.store.accounts.update(a.account_id, { status: 'suspended' });
      expect((await send()).status).to.equal(403);
      expect(await mine()).to.have.length(5);
    });
  });

  describe('sessions', () => {
    const sessionsOf = (accountId: string) =>
      ((s.deps.store as SqliteStore).db.prepare('SELECT count(*) AS n FROM dashboard_sessions WHERE account_id = ?').get(accountId) as { n: number }).n;

    it('"Sign out all sessions" ends every session of the account, and only of that account', async () => {
      const { a, b } = await signedIn();
      const others = [browser(), browser()];
      for (const o of others) await o.signIn(a.session_token);
      const bystander = await signedIn();
      expect((await b.get('/dashboard/settings')).text).to.include('Sign out all sessions');
      const out = await b.submit('/dashboard/settings', '/logout', { everywhere: '1' });
      expect(out.location).to.equal('/login');
      for (const o of [b, ...others]) expect((await o.get('/dashboard')).location).to.equal('/login');
      expect(sessionsOf(a.account_id)).to.equal(0);
      expect((await bystander.b.get('/dashboard')).status).to.equal(200);
    });

    it('an account keeps at most 20 live sessions (the oldest go) and expired ones are purged', async () => {
      const a = await s.account();
      const first = browser();
      await first.signIn(a.session_token);
      const firstToken = first.jar.get('chartshot_dashboard')!;
      let last = first;
      for (let i = 0; i < 20; i++) {
        clock.advance(1);
        last = browser();
        await last.signIn(a.session_token);
      }
      expect(sessionsOf(a.account_id)).to.equal(20);
      expect((await first.get('/dashboard')).location).to.equal('/login');
      expect((await last.get('/dashboard')).status).to.equal(200);
      // a day later those sessions are expired: the next sign-in (any account's) sweeps them
      clock.advance(DAY);
      await signedIn();
      expect(sessionsOf(a.account_id)).to.equal(0);
      expect(await s.deps.store.dashboard.findSession(hashSecret(firstToken))).to.equal(null);
    });
  });

  it('an oversized chunked form is a 400, not a 500; its rest is read and thrown away and the connection kept (src/http/linger.ts)', async () => {
    const u = new URL(s.url);
    const answer = await new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path: '/login', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      // the server may stop reading once it has refused: a write after that is not the test's concern
      req.on('error', () => {});
      for (let i = 0; i < 40; i++) req.write('a'.repeat(1000));
      req.end();
    });
    expect(answer.status).to.equal(400);
    // the whole body (40 KB) arrived within the drain's bounds: the connection goes on
    expect(answer.connection).to.equal('keep-alive');
    expect(answer.body).to.include('larger than');
    // the form still works for the next client
    const b = browser();
    expect((await b.get('/login')).status).to.equal(200);
    expect(csrfOf((await b.get('/login')).text).length).to.be.greaterThan(20);
  });
});
