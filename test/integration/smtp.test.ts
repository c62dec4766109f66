// The outbox's e-mails through nodemailer against a real SMTP server started here (smtp-server,
// from nodemailer's authors): encoded non-ASCII subjects and names, long lines, lines starting
// with a dot, AUTH from SMTP_URL, and a server that drops the connection mid-message (the outbox
// retries later, and the mail arrives once, whole).
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/types.js';
import { OutboxWorker } from '../../src/services/outbox.js';
import { sendMail, smtpTransportOptions } from '../../src/services/smtp.js';
import { createLogger } from '../../src/log.js';
import { FakeClock } from '../helpers/clock.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

interface Sink {
  url: string;
  got: Received[];
  server: SMTPServer;
  /** drop the connection of the next `n` messages after their first bytes */
  dropNext(n: number): void;
  close(): Promise<void>;
}

async function sink(extra: Partial<SMTPServerOptions> = {}, credentials = ''): Promise<Sink> {
  const got: Received[] = [];
  let drops = 0;
  const server: SMTPServer = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      if (drops > 0) {
        drops--;
        // the connection ends while the message is still coming: no reply to DATA ever comes
        stream.once('data', () => {
          for (const c of server.connections) c.close();
        });
        stream.resume();
        return;
      }
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        got.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
    ...extra,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    got,
    server,
    dropNext: (n) => (drops = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Header value, unfolded, with RFC 2047 encoded words decoded. */
function header(raw: string, name: string): string {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  if (!line) return '';
  return line
    .slice(name.length + 1)
    .trim()
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
      enc.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'),
    );
}

/** The text body, its transfer encoding undone. */
function bodyText(raw: string): string {
  // the CR LF before the terminating dot belongs to the protocol, not to the text
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/\r\n$/, '');
  const encoding = header(raw, 'content-transfer-encoding').toLowerCase();
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

const T0 = Date.UTC(2025, 3, 1);
const mail = (over: Partial<Parameters<typeof sendMail>[1]> = {}) => ({
  from: 'chartshot <noreply@chartshot.local>',
  to: 'owner@example.com',
  subject: 'Usage',
  text: 'Hello',
  sentAt: T0,
  ...over,
});

describe('e-mail through nodemailer to a real SMTP server', function () {
  this.timeout(60_000);
  let s: Sink;

  before(async () => (s = await sink()));
  after(() => s?.close());

  it('a non-ASCII subject and sender name arrive encoded (RFC 2047) and decode to what was sent', async () => {
    await sendMail(s.url, mail({ from: 'Zoë Čapek — 图表 <noreply@chartshot.local>', subject: 'Vous avez utilisé 80 % — 图表 ✓' }), 5000);
    const m = s.got.at(-1)!;
    expect(m.from).to.equal('noreply@chartshot.local');
    expect(m.to).to.deep.equal(['owner@example.com']);
    // the raw header is 7-bit ASCII; decoded it is the subject sent
    expect(m.raw.slice(0, m.raw.indexOf('\r\n\r\n'))).to.match(/^[\x00-\x7f]*$/);
    expect(header(m.raw, 'subject')).to.equal('Vous avez utilisé 80 % — 图表 ✓');
    expect(header(m.raw, 'from')).to.equal('Zoë Čapek — 图表 <noreply@chartshot.local>');
    expect(header(m.raw, 'date')).to.equal(new Date(T0).toUTCString().replace('GMT', '+0000'));
  });

  it('a 5,000-character line arrives within SMTP line limits and whole once decoded', async () => {
    const text = `start ${'0123456789'.repeat(500)} end\nsecond line é`;
    await sendMail(s.url, mail({ text }), 5000);
    const m = s.got.at(-1)!;
    for (const line of m.raw.split('\r\n')) expect(line.length).to.be.at.most(998);
    expect(bodyText(m.raw).replace(/\r\n/g, '\n')).to.equal(text);
  });

  it('lines that start with a dot, or are a lone dot, arrive intact and do not end the message early', async () => {
    const text = '.hidden first line\nmiddle\n.\n..two dots\nlast line';
    await sendMail(s.url, mail({ text }), 5000);
    expect(bodyText(s.got.at(-1)!.raw).replace(/\r\n/g, '\n')).to.equal(text);
  });

  it('a subject with CR/LF is one header line; an address with CR/LF (also after a display name) never reaches the server', async () => {
    await sendMail(s.url, mail({ subject: 'one\r\nBcc: attacker@evil.example' }), 5000);
    const m = s.got.at(-1)!;
    expect(m.to).to.deep.equal(['owner@example.com']);
    expect(header(m.raw, 'bcc')).to.equal('');
    const before = s.got.length;
    const err = await sendMail(s.url, mail({ to: 'owner@example.com\r\nRCPT TO:<attacker@evil.example>' }), 5000).then(() => null, (e: unknown) => e as Error);
    expect(err?.message).to.match(/control character/);
    // the angle brackets after the CR/LF are not taken for the address of "Name <a@b>"
    const named = await sendMail(s.url, mail({ to: 'Owner\r\nRCPT TO: x <attacker@evil.example>' }), 5000).then(() => null, (e: unknown) => e as Error);
    expect(named?.message).to.match(/control character/);
    expect(s.got.length).to.equal(before);
  });

  it('SMTP_URL credentials log in with AUTH (a wrong password fails the send)', async () => {
    const logins: string[] = [];
    const authed = await sink(
      {
        authOptional: false,
        allowInsecureAuth: true,
        onAuth(auth, _session, callback) {
          logins.push(`${auth.username}:${auth.password}`);
          if (auth.username === 'mailer@example.com' && auth.password === 'p@ss:w/rd') callback(null, { user: auth.username });
          else callback(new Error('bad credentials'));
        },
      },
      `${encodeURIComponent('mailer@example.com')}:${encodeURIComponent('p@ss:w/rd')}@`,
    );
    try {
      await sendMail(authed.url, mail(), 5000);
      expect(authed.got).to.have.length(1);
      expect(logins).to.deep.equal(['mailer@example.com:p@ss:w/rd']);
      const wrong = authed.url.replace(encodeURIComponent('p@ss:w/rd'), 'nope');
      const err = await sendMail(wrong, mail(), 5000).then(() => null, (e: unknown) => e as Error);
      expect(err).to.be.instanceOf(Error);
      expect(authed.got).to.have.length(1);
    } finally {
      await authed.close();
    }
  });

  it('SMTP_URL keeps its meaning: port 25 by default (465 for smtps://), TLS from the start only for smtps://', () => {
    expect(smtpTransportOptions('smtp://mail.example.com', 1000)).to.include({ host: 'mail.example.com', port: 25, secure: false });
    expect(smtpTransportOptions('smtps://mail.example.com', 1000)).to.include({ port: 465, secure: true });
    expect(smtpTransportOptions('smtp://u%40x:p%3Aw@mail.example.com:587', 1000)).to.deep.include({ port: 587, secure: false, auth: { user: 'u@x', pass: 'p:w' } });
    expect(smtpTransportOptions('smtp://[::1]:2525', 1000)).to.include({ host: '::1', port: 2525 });
  });

  describe('a server that drops the connection mid-message', () => {
    let store: Store;
    before(async () => (store = await createSqliteStore(':memory:')));
    after(() => store?.close());

    it('fails the attempt; the outbox retries it later and the mail arrives once, whole', async () => {
      const clock = new FakeClock(T0);
      const worker = new OutboxWorker(store, clock, createLogger('silent'), {
        masterKey: Buffer.alloc(32, 7), smtpUrl: s.url, pollMs: 0, retryBaseMs: 1000, retryMaxMs: 60_000, maxAttempts: 4, timeoutMs: 5000,
      });
      try {
        const text = `${'A long report line. '.repeat(2000)}\nthe end`;
        await store.outbox.enqueue({ kind: 'email', accountId: 'acct', target: 'owner@example.com', subject: 'Report ✓', body: text }, clock.now());
        const before = s.got.length;
        s.dropNext(1);
        expect(await worker.tick()).to.equal(1);
        let [item] = await store.outbox.list('acct');
        expect(item).to.include({ status: 'pending', attempts: 1 });
        expect(item!.lastError).to.be.a('string').and.not.equal('');
        expect(s.got.length, 'nothing was received from the dropped attempt').to.equal(before);
        // not due before its backoff
        expect(await worker.tick()).to.equal(0);
        clock.advance(1000);
        expect(await worker.tick()).to.equal(1);
        [item] = await store.outbox.list('acct');
        expect(item).to.include({ status: 'delivered', attempts: 2 });
        const got = s.got.slice(before);
        expect(got).to.have.length(1);
        expect(header(got[0]!.raw, 'subject')).to.equal('Report ✓');
        expect(bodyText(got[0]!.raw).replace(/\r\n/g, '\n')).to.equal(text);
      } finally {
        await worker.stop();
      }
    });
  });
});
