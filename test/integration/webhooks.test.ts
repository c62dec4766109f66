// usage_threshold webhooks delivered to a real local HTTP receiver (signed, retried with
// backoff after failures, once per threshold per period, surviving a restart) and the warning
// e-mails through a real (local, minimal) SMTP listener. These receivers are on 127.0.0.1, so the
// server runs with WEBHOOK_ALLOW_PRIVATE=true; the default (refused) is tested at the end.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import type { Config } from '../../src/config.js';
import { FakeClock } from '../helpers/clock.js';
import { hmacHex } from '../../src/services/credentials.js';
import { apiKey } from '../helpers/client.js';

interface Received {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

interface Receiver {
  url: string;
  got: Received[];
  attempts: () => number;
  close(): Promise<void>;
  server: Server;
}

/** A webhook endpoint that answers 500 to the first `failFirst` deliveries. */
async function receiver(failFirst = 0): Promise<Receiver> {
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
interface SmtpSink {
  url: string;
  messages: string[];
  commands: string[];
  close(): Promise<void>;
}

async function smtpSink(): Promise<SmtpSink> {
  const messages: string[] = [];
  const commands: string[] = [];
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
        commands.push(line);
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
  return { url: `smtp://127.0.0.1:${port}`, messages, commands, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Outbox retries fast enough for a test: 1 s, 2 s, 4 s, ... up to 4 attempts. */
const retry = { pollMs: 0, retryBaseMs: 1000, retryMaxMs: 60_000, maxAttempts: 4, timeoutMs: 3000 };

/** A one-page server on a fake clock, its e-mail going to a local SMTP sink, its outbox on `retry`. */
async function outboxServer(overrides: Partial<Config> = {}): Promise<{ s: TestServer; clock: FakeClock; smtp: SmtpSink }> {
  const smtp = await smtpSink();
  const clock = new FakeClock(Date.UTC(2025, 3, 1));
  const s = await startTestServer({ poolSize: 1, smtpUrl: smtp.url, ...overrides }, { clock, schedulerIntervalMs: 0, outbox: retry });
  return { s, clock, smtp };
}

describe('usage_threshold webhooks and usage e-mails', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;
  let smtp: SmtpSink;

  before(async () => ({ s, clock, smtp } = await outboxServer({ webhookAllowPrivate: true })));
  after(async () => {
    await s?.stop();
    await smtp?.close();
  });

  const render = (key: string) => post(s.url, '/v1/chart', { chart: BAR, width: 90, height: 60 }, apiKey(key));
  const seed = (accountId: string, n: number) => s.deps.store.usage.setUsed(accountId, Date.UTC(2025, 3, 1), n);
  const webhooks = async (accountId: string) => (await s.deps.store.outbox.list(accountId)).filter((o) => o.kind === 'webhook');
  /** Runs `fn` with a receiver (failing its first `failFirst` deliveries) at the start of a period. */
  async function withReceiver(failFirst: number, fn: (hook: Receiver) => Promise<void>): Promise<void> {
    clock.set(Date.UTC(2025, 3, 1));
    const hook = await receiver(failFirst);
    try {
      await fn(hook);
    } finally {
      await hook.close();
    }
  }

  /** A starter account whose webhook goes to `url`, with `used` charts already counted this period. */
  async function hookedAccount(url: string, used: number) {
    const a = await s.deps.accounts.createAccount('starter', null);
    await s.deps.billing.setWebhook(a.account_id, url, { allowPrivate: true });
    await seed(a.account_id, used);
    return a;
  }

  it('80%, 95% and 100% each POST once per period, signed with the account signing secret', () =>
    withReceiver(0, async (hook) => {
      const a = await hookedAccount(hook.url, 79_998);
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
    }));

  it('a failing receiver is retried with exponential backoff until it accepts', () =>
    withReceiver(2, async (hook) => {
      const a = await hookedAccount(hook.url, 79_999);
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
    }));

  it('gives up after the last attempt (status failed)', () =>
    withReceiver(100, async (hook) => {
      const a = await hookedAccount(hook.url, 79_999);
      await render(a.api_key);
      for (let i = 0; i < 6; i++) {
        await s.deps.outbox.tick();
        clock.advance(60_000);
      }
      const [item] = await webhooks(a.account_id);
      expect(item).to.include({ status: 'failed', attempts: 4 });
      expect(hook.attempts()).to.equal(4);
    }));

  it('a pending webhook survives a restart and is delivered by the new process', async () => {
    clock.set(Date.UTC(2025, 3, 1));
    const hook = await receiver();
    const url = hook.url;
    await hook.close(); // the receiver is down at first
    const a = await hookedAccount(url, 79_999);
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
      s = await startTestServer({ poolSize: 1, smtpUrl: smtp.url, webhookAllowPrivate: true, dataDir: s.config.dataDir }, { clock, schedulerIntervalMs: 0, outbox: retry });
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
    // the server clock, not the wall clock (RFC 5322's numeric zone, as nodemailer writes it)
    expect(sent[0]).to.contain(`Date: ${new Date(clock.now()).toUTCString().replace('GMT', '+0000')}`);
    expect((await s.deps.store.outbox.list(a.account_id)).every((o) => o.status === 'delivered')).to.equal(true);
  });
});

describe('outbound requests only where meant (WEBHOOK_ALLOW_PRIVATE unset)', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;
  let smtp: SmtpSink;

  before(async () => {
    ({ s, clock, smtp } = await outboxServer());
    expect(s.config.webhookAllowPrivate).to.equal(false);
  });
  after(async () => {
    await s?.stop();
    await smtp?.close();
  });

  it('setting a webhook refuses other schemes and literal loopback, private, link-local and metadata addresses (any spelling)', async () => {
    const a = await s.deps.accounts.createAccount('starter', null);
    for (const url of [
      'ftp://example.com/hook',
      'file:///etc/passwd',
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:a9fe:a9fe]/hook',
      'http://0x7f000001/hook',
      'http://2130706433/hook',
      'http://0177.0.0.1/hook',
      'http://100.64.0.1/hook',
      'http://[fd00::1]/hook',
    ]) {
      const err = await s.deps.billing.setWebhook(a.account_id, url).then(() => null, (e: unknown) => e as { code?: string; detail?: string });
      expect(err, url).to.not.equal(null);
      expect(err!.code, url).to.equal('invalid_input');
    }
    await s.deps.billing.setWebhook(a.account_id, 'https://hooks.example.com/chartshot');
    expect((await s.deps.store.billing.get(a.account_id))!.webhookUrl).to.equal('https://hooks.example.com/chartshot');
  });

  it('at send time a private target fails the item permanently with the reason, and the local listener is never reached', async () => {
    const hook = await receiver();
    try {
      const port = new URL(hook.url).port;
      const targets = [hook.url, `http://localhost:${port}/hook`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.7/hook', `http://[::ffff:127.0.0.1]:${port}/hook`];
      const accounts: string[] = [];
      for (const target of targets) {
        const a = await s.deps.accounts.createAccount('starter', null);
        accounts.push(a.account_id);
        // as if stored before this check existed: the send-time check must stop it alone
        await s.deps.store.outbox.enqueue({ kind: 'webhook', accountId: a.account_id, target, subject: 'usage_threshold', body: '{"event":"usage_threshold"}' }, clock.now());
      }
      await s.deps.outbox.tick();
      expect(hook.attempts(), 'the local listener was reached').to.equal(0);
      for (const [i, id] of accounts.entries()) {
        const [item] = await s.deps.store.outbox.list(id);
        // failed at once (no retry): a connection attempt to 10.0.0.7 would have timed out instead
        expect(item, targets[i]).to.include({ status: 'failed', attempts: 1 });
        expect(item!.lastError, targets[i]).to.match(/^webhook target refused: .*(loopback|link-local|private).*WEBHOOK_ALLOW_PRIVATE=true/);
      }
    } finally {
      await hook.close();
    }
  });

  it('a name is resolved once and every address it resolves to is vetted (localhost -> 127.0.0.1 refused)', async () => {
    const { guardedLookup, RefusedTarget } = await import('../../src/services/outboundHttp.js');
    const err = await new Promise<unknown>((resolve) => guardedLookup(false)('localhost', { all: true }, (e) => resolve(e)));
    expect(err).to.be.instanceOf(RefusedTarget);
    expect((err as Error).message).to.match(/localhost resolves to (127\.0\.0\.1|::1), loopback/);
    const allowed = await new Promise<unknown>((resolve) => guardedLookup(true)('localhost', { all: true }, (e, a) => resolve(e ?? a)));
    expect(allowed).to.be.an('array').that.is.not.empty;
  });

  it('a 3xx is a failed delivery: the redirect is not followed', async () => {
    const target = await receiver();
    const redirector = createServer((_req, res) => res.writeHead(302, { location: target.url }).end());
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', () => r()));
    const { OutboxWorker } = await import('../../src/services/outbox.js');
    const { createLogger } = await import('../../src/log.js');
    const worker = new OutboxWorker(s.deps.store, clock, createLogger('silent'), { masterKey: Buffer.alloc(32, 1), smtpUrl: null, ...retry, allowPrivate: true });
    try {
      const a = await s.deps.accounts.createAccount('starter', null);
      const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hook`;
      await s.deps.store.outbox.enqueue({ kind: 'webhook', accountId: a.account_id, target: url, subject: 'usage_threshold', body: '{}' }, clock.now());
      await worker.tick();
      expect(target.attempts()).to.equal(0);
      const [item] = await s.deps.store.outbox.list(a.account_id);
      expect(item).to.include({ status: 'pending', attempts: 1, lastError: 'webhook answered 302' });
    } finally {
      await worker.stop();
      await new Promise<void>((r) => redirector.close(() => r()));
      await target.close();
    }
  });

  it('an e-mail address with CR/LF is refused where it enters, and never reaches SMTP as a second RCPT TO', async () => {
    const evil = 'owner@example.com\r\nRCPT TO:<attacker@evil.example>';
    const err = await s.deps.accounts.createAccount('starter', evil).then(() => null, (e: unknown) => e as { code?: string });
    expect(err?.code).to.equal('invalid_input');
    // already in the outbox (defence in depth): refused before SMTP, failed for good
    const a = await s.deps.accounts.createAccount('starter', 'owner@example.com');
    await s.deps.store.outbox.enqueue({ kind: 'email', accountId: a.account_id, target: evil, subject: 'x', body: 'y' }, clock.now());
    const before = smtp.commands.length;
    await s.deps.outbox.tick();
    expect(smtp.commands.slice(before).filter((c) => /^RCPT/i.test(c))).to.deep.equal([]);
    const [item] = (await s.deps.store.outbox.list(a.account_id)).filter((o) => o.kind === 'email');
    expect(item).to.include({ status: 'failed', attempts: 1 });
    expect(item!.lastError).to.match(/control character/);
  });
});
