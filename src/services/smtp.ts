// The outbox's e-mails through nodemailer: SMTP_URL smtp:// (STARTTLS when the server offers it)
// or smtps:// (TLS from the start), AUTH when the URL carries credentials, one message per
// connection. nodemailer does the header encoding (RFC 2047 subjects and names), line length
// (quoted-printable), dot-stuffing and timeouts; the envelope is set here from checked addresses.
import nodemailer from 'nodemailer';
import { emailProblem } from '../rules/email.js';
import { afterMs, settle } from '../settle.js';

export interface Mail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** ms since epoch, for the Date header */
  sentAt: number;
}

const addrOf = (s: string) => /<([^>]+)>/.exec(s)?.[1] ?? s.trim();

/** The bare address of "Name <a@b>" or "a@b"; refused unless a plain addr-spec, and with no
 *  control character anywhere (the display name goes into a header). */
export function smtpAddress(s: string, role: string): string {
  if (/[\x00-\x1f\x7f]/.test(s)) throw new Error(`SMTP: the ${role} address contains a control character`);
  const a = addrOf(s);
  const why = emailProblem(a);
  if (why) throw new Error(`SMTP: the ${role} address ${why}`);
  return a;
}

/** nodemailer's transport options for SMTP_URL, with today's defaults: port 25 (465 for smtps). */
export function smtpTransportOptions(url: string, timeoutMs: number) {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port) || (secure ? 465 : 25),
    secure,
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    name: 'chartshot',
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // nodemailer's own log stays off: the outbox logs the outcome
    logger: false,
    debug: false,
  };
}

export async function sendMail(url: string, mail: Mail, timeoutMs: number): Promise<void> {
  // checked before connecting: a CR/LF in an address would become a second SMTP command
  const from = smtpAddress(mail.from, 'sender');
  const to = smtpAddress(mail.to, 'recipient');
  const transport = nodemailer.createTransport(smtpTransportOptions(url, timeoutMs));
  try {
    // each step has its own timeout; the whole send has one too (a server that drips replies)
    await settle(
      transport.sendMail({
        // the envelope is exactly the checked addresses, whatever the headers' display names hold
        envelope: { from, to: [to] },
        from: mail.from,
        to: mail.to,
        subject: mail.subject.replace(/[\r\n]+/g, ' '),
        text: mail.text,
        date: new Date(mail.sentAt),
      }),
      afterMs(timeoutMs, () => new Error('SMTP timed out')),
    );
  } finally {
    transport.close();
  }
}
