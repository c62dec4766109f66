// usage_threshold webhooks delivered to a real local HTTP receiver (signed, retried with
// backoff after failures, once per threshold per period, surviving a restart) and the warning
// e-mails through a real (local, minimal) SMTP listener.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock } from '../helpers/clock.js';
import { hmacHex } from '../../src/services/credentials.js';

interface Received {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A webhook endpoint that answers 500 to the first `failFirst` deliveries. */
async function receiver(failFirst = 0): Promise<{ url: string; got: Received[]; attempts: () => number; close(): Promise<void>; server: Server }> {
  const got: Received[] = [];
  let attempts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      attempts++;
      if (attempts <= failFirst) {
        res.writeHead(500).end('not now');
        return;
      }
      got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    attempts: () => attempts,
    server,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Just enough SMTP to accept messages: records each DATA section. */
async function smtpSink(): Promise<{ url: string; messages: string[]; close(): Promise<void> }> {
  const messages: string[] = [];
  const server: TcpServer = createTcpServer((sock) => {
    let buf = '';
    let inData = false;
    sock.write('220 sink ready\r\n');
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buf.slice(0, end));
          buf = buf.slice(end + 5);
          inData = false;
          sock.write('250 queued\r\n');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO') sock.write('250-sink\r\n250 8BITMIME\r\n');
        else if (cmd === 'DATA') {
          inData = true;
          sock.write('354 go on\r\n');
        } else if (cmd === 'QUIT') sock.end('221 bye\r\n');
        else sock.write('250 ok\r\n');
      }
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('usage_threshold webhooks and usage e-mails', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;
  let smtp: Awaited<ReturnType<typeof smtpSink>>;
  const retry = { pollMs: 0, retryBaseMs: 1000, retryMaxMs: 60_000, maxAttempts: 4, timeoutMs: 3000 };

  before(async () => {
    smtp = await smtpSink();
    clock = new FakeClock(Date.UTC(2025, 3, 1));
    s = await startTestServer({ poolSize: 1, smtpUrl: smtp.url }, { clock, schedulerIntervalMs: 0, outbox: retry });
  });
  after(async () => {
    await s?.stop();
    await smtp?.close();
  });

  const render = (key: string) => post(s.url, '/v1/chart', { chart: BAR, width: 90, height: 60 }, { 'x-api-key': key });
  const seed = (accountId: string, n: number) => s.deps.store.usage.setUsed(accountId, Date.UTC(2025, 3, 1), n);
  const webhooks = async (accountId: string) => (await s.deps.store.outbox.list(accountId)).filter((o) => o.kind === 'webhook');

  it('80%, 95% and 100% each POST once per period, signed with the account signing secret', async () => {
    clock.set(Date.UTC(2025, 3, 1));
    const hook = await receiver();
    try {
      const a = await s.deps.accounts.createAccount('starter', null);
      await s.deps.billing.setWebhook(a.account_id, hook.url);
      await seed(a.account_id, 79_998);
      expect((await render(a.api_key)).status).to.equal(200); // 79,999: nothing yet
      expect(await webhooks(a.account_id)).to.have.length(0);
      expect((await render(a.api_key)).status).to.equal(200); // 80,000
      expect((await render(a.api_key)).status).to.equal(200); // 80,001: already sent
      await s.deps.outbox.tick();
      expect(hook.got).to.have.length(1);
      const first = hook.got[0]!;
      expect(JSON.parse(first.body)).to.deep.equal({ event: 'usage_threshold', threshold: 80, current_usage: 80_000, limit: 100_000, account_id: a.account_id });
      expect(first.headers['content-type']).to.equal('application/json');
      expect(first.headers['x-chartshot-signature']).to.equal(hmacHex(a.signing_secret, first.body));

      await seed(a.account_id, 94_999);
      await render(a.api_key);
      await seed(a.account_id, 99_999);
      await render(a.api_key);
      await render(a.api_key); // 100,001: overage, no further webhook
      await s.deps.outbox.tick();
      expect(hook.got.map((g) => (JSON.parse(g.body) as { threshold: number }).threshold)).to.deep.equal([80, 95, 100]);
      expect(await webhooks(a.account_id)).to.have.length(3);
      expect((await webhooks(a.account_id)).every((w) => w.status === 'delivered')).to.equal(true);
    } finally {
      await hook.close();
    }
  });

  it('a failing receiver is retried with exponential backoff until it accepts', async () => {
    clock.set(Date.UTC(2025, 3, 1));
    const hook = await receiver(2);
    try {
      const a = await s.deps.accounts.createAccount('starter', null);
      await s.deps.billing.setWebhook(a.account_id, hook.url);
      await seed(a.account_id, 79_999);
      await render(a.api_key);
      await s.deps.outbox.tick(); // attempt 1: 500
      let [item] = await webhooks(a.account_id);
      expect(item).to.include({ status: 'pending', attempts: 1 });
      expect(item!.nextAttemptAt - clock.now()).to.equal(1000);
      await s.deps.outbox.tick(); // not due yet
      expect(hook.attempts()).to.equal(1);
      clock.advance(1000);
      await s.deps.outbox.tick(); // attempt 2: 500, next in 2 s
      [item] = await webhooks(a.account_id);
      expect(item).to.include({ status: 'pending', attempts: 2 });
      expect(item!.nextAttemptAt - clock.now()).to.equal(2000);
      clock.advance(2000);
      await s.deps.outbox.tick(); // attempt 3: accepted
      [item] = await webhooks(a.account_id);
      expect(item).to.include({ status: 'delivered', attempts: 3 });
      expect(hook.got).to.have.length(1);
      expect(hook.attempts()).to.equal(3);
    } finally {
      await hook.close();
    }
  });

  it('gives up after the last attempt (status failed)', async () => {
    clock.set(Date.UTC(2025, 3, 1));
    const hook = await receiver(100);
    try {
      const a = await s.deps.accounts.createAccount('starter', null);
      await s.deps.billing.setWebhook(a.account_id, hook.url);
      await seed(a.account_id, 79_999);
      await render(a.api_key);
      for (let i = 0; i < 6; i++) {
        await s.deps.outbox.tick();
        clock.advance(60_000);
      }
      const [item] = await webhooks(a.account_id);
      expect(item).to.include({ status: 'failed', attempts: 4 });
      expect(hook.attempts()).to.equal(4);
    } finally {
      await hook.close();
    }
  });

  it('a pending webhook survives a restart and is delivered by the new process', async () => {
    clock.set(Date.UTC(2025, 3, 1));
    const hook = await receiver();
    const url = hook.url;
    await hook.close(); // the receiver is down at first
    const a = await s.deps.accounts.createAccount('starter', null);
    await s.deps.billing.setWebhook(a.account_id, url);
    await seed(a.account_id, 79_999);
    await render(a.api_key);
    await s.deps.outbox.tick();
    expect((await webhooks(a.account_id))[0]).to.include({ status: 'pending', attempts: 1 });

    await s.stop({ keepData: true });
    const port = Number(new URL(url).port);
    // Bring the receiver back on the same port.
    const back = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString());
        res.writeHead(200).end();
      });
    });
    const bodies: string[] = [];
    await new Promise<void>((r) => back.listen(port, '127.0.0.1', () => r()));
    try {
      s = await startTestServer({ poolSize: 1, smtpUrl: smtp.url, dataDir: s.config.dataDir }, { clock, schedulerIntervalMs: 0, outbox: retry });
      clock.advance(1000);
      await s.deps.outbox.tick();
      expect(bodies).to.have.length(1);
      expect(JSON.parse(bodies[0]!)).to.include({ threshold: 80, account_id: a.account_id });
      expect((await webhooks(a.account_id))[0]).to.include({ status: 'delivered', attempts: 2 });
    } finally {
      await new Promise<void>((r) => back.close(() => r()));
    }
  });

  it('warning e-mails at 80%, 95% and when overage starts go to the outbox and out through SMTP', async () => {
    clock.set(Date.UTC(2025, 3, 1));
    const a = await s.deps.accounts.createAccount('starter', 'owner@example.com');
    for (const n of [79_999, 94_999, 100_000]) {
      await seed(a.account_id, n);
      expect((await render(a.api_key)).status).to.equal(200);
    }
    const mails = (await s.deps.store.outbox.list(a.account_id)).filter((o) => o.kind === 'email');
    expect(mails.map((m) => m.subject)).to.deep.equal([
      'You have used 80% of your chartshot charts',
      'You have used 95% of your chartshot charts',
      'chartshot overage started',
    ]);
    const before = smtp.messages.length;
    await s.deps.outbox.tick();
    const sent = smtp.messages.slice(before);
    expect(sent).to.have.length(3);
    expect(sent.join('\n')).to.contain('To: owner@example.com').and.contain('Subject: chartshot overage started');
    expect((await s.deps.store.outbox.list(a.account_id)).every((o) => o.status === 'delivered')).to.equal(true);
  });
});
