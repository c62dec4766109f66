// A minimal SMTP client for the outbox's e-mails: smtp:// (STARTTLS when offered) or smtps://,
// AUTH PLAIN when credentials are given, one plain-text message per connection.
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { emailProblem } from '../chart/email.js';

export interface Mail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** ms since epoch, for the Date header */
  sentAt: number;
}

class Reader {
  private buf = '';
  private waiters: Array<() => void> = [];
  private error: Error | null = null;

  constructor(sock: Socket | TLSSocket) {
    this.attach(sock);
  }

  attach(sock: Socket | TLSSocket): void {
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => {
      this.buf += d;
      this.wake();
    });
    sock.on('error', (e) => {
      this.error = e;
      this.wake();
    });
    sock.on('close', () => {
      this.error ??= new Error('SMTP connection closed');
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** One reply (all its lines): code and text. */
  async reply(): Promise<{ code: number; text: string }> {
    for (;;) {
      const m = /^(?:\d{3}-[^\n]*\n)*(\d{3})(?: [^\n]*)?\n/.exec(this.buf.replace(/\r/g, ''));
      if (m) {
        const raw = m[0];
        // Consume exactly the characters of this reply (with their \r) from the buffer.
        let n = 0;
        let seen = 0;
        while (seen < raw.length && n < this.buf.length) {
          if (this.buf[n] !== '\r') seen++;
          n++;
        }
        this.buf = this.buf.slice(n);
        return { code: Number(m[1]), text: raw };
      }
      if (this.error) throw this.error;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
}

const addrOf = (s: string) => /<([^>]+)>/.exec(s)?.[1] ?? s.trim();

/** The bare address of "Name <a@b>" or "a@b"; refused unless a plain addr-spec (no CR/LF). */
export function smtpAddress(s: string, role: string): string {
  const a = addrOf(s);
  const why = emailProblem(a);
  if (why) throw new Error(`SMTP: the ${role} address ${why}`);
  return a;
}

export async function sendMail(url: string, mail: Mail, timeoutMs: number): Promise<void> {
  // checked before connecting: a CR/LF in an address would become a second SMTP command
  const from = smtpAddress(mail.from, 'sender');
  const to = smtpAddress(mail.to, 'recipient');
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  const port = Number(u.port) || (secure ? 465 : 25);
  const host = u.hostname;
  let sock: Socket | TLSSocket = secure ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port });
  const timer = setTimeout(() => sock.destroy(new Error('SMTP timed out')), timeoutMs);
  const reader = new Reader(sock);
  const expect = async (ok: number[]) => {
    const r = await reader.reply();
    if (!ok.includes(r.code)) throw new Error(`SMTP: unexpected reply ${r.text.trim().slice(0, 200)}`);
    return r;
  };
  const send = async (line: string, ok: number[]) => {
    sock.write(line + '\r\n');
    return expect(ok);
  };
  try {
    await expect([220]);
    let ehlo = await send('EHLO chartshot', [250]);
    if (!secure && /STARTTLS/i.test(ehlo.text)) {
      await send('STARTTLS', [220]);
      sock.removeAllListeners('data');
      sock = tlsConnect({ socket: sock as Socket, servername: host });
      reader.attach(sock);
      ehlo = await send('EHLO chartshot', [250]);
    }
    if (u.username) {
      const auth = Buffer.from(`\0${decodeURIComponent(u.username)}\0${decodeURIComponent(u.password)}`).toString('base64');
      await send(`AUTH PLAIN ${auth}`, [235]);
    }
    await send(`MAIL FROM:<${from}>`, [250]);
    await send(`RCPT TO:<${to}>`, [250, 251]);
    await send('DATA', [354]);
    const clean = (s: string) => s.replace(/[\r\n]+/g, ' ');
    const body = mail.text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
    const msg = [
      `From: ${clean(mail.from)}`,
      `To: ${clean(mail.to)}`,
      `Subject: ${clean(mail.subject)}`,
      `Date: ${new Date(mail.sentAt).toUTCString()}`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      body,
      '.',
    ].join('\r\n');
    await send(msg, [250]);
    sock.write('QUIT\r\n');
  } finally {
    clearTimeout(timer);
    sock.end();
  }
}
