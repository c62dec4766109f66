// Delivers the persistent outbox: usage_threshold webhooks (signed) and, when SMTP_URL is set,
// e-mails. An item leaves "pending" only when delivered, or failed after the last retry;
// retries back off exponentially. Everything is in SQLite, so a restart loses nothing.
//
// Signature: X-Chartshot-Signature = lowercase hex HMAC-SHA256 of the raw body, keyed with the
// account's signing secret: the secret of its oldest active live/trial key (the one printed by
// `accounts create`), falling back to its oldest key of any kind.
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { OutboxItem, OutboxRecord } from '../store/metering.js';
import type { Clock } from './accounts.js';
import { hmacHex, signingSecretFor } from './credentials.js';
import { sendMail } from './smtp.js';

export interface OutboxOptions {
  masterKey: Buffer;
  smtpUrl: string | null;
  /** Sender address of e-mails. */
  mailFrom?: string;
  /** First retry after this; doubles each attempt. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Attempts before an item is given up (status failed). */
  maxAttempts?: number;
  pollMs?: number;
  timeoutMs?: number;
}

export class OutboxWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;
  private readonly o: Required<Omit<OutboxOptions, 'smtpUrl'>> & { smtpUrl: string | null };

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger,
    opts: OutboxOptions,
  ) {
    this.o = {
      mailFrom: 'chartshot <noreply@chartshot.local>',
      retryBaseMs: 30_000,
      retryMaxMs: 6 * 3_600_000,
      maxAttempts: 10,
      pollMs: 1000,
      timeoutMs: 10_000,
      ...opts,
    };
  }

  /** Backoff after the n-th failed attempt (n >= 1). */
  static backoffMs(n: number, baseMs: number, maxMs: number): number {
    return Math.min(maxMs, baseMs * 2 ** (n - 1));
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.o.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
  }

  /** Delivers what is due now; returns how many items were attempted. Never runs twice at once. */
  tick(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.deliverDue().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async deliverDue(): Promise<number> {
    const kinds: OutboxItem['kind'][] = this.o.smtpUrl ? ['webhook', 'email'] : ['webhook'];
    const due = await this.store.outbox.due(this.clock.now(), 20, kinds);
    await Promise.all(due.map((item) => this.deliverOne(item)));
    return due.length;
  }

  private async deliverOne(item: OutboxRecord): Promise<void> {
    try {
      if (item.kind === 'webhook') await this.postWebhook(item);
      else await sendMail(this.o.smtpUrl!, { from: this.o.mailFrom, to: item.target, subject: item.subject ?? '', text: item.body }, this.o.timeoutMs);
      await this.store.outbox.delivered(item.id, this.clock.now());
    } catch (err) {
      const attempts = item.attempts + 1;
      const msg = (err as Error).message ?? String(err);
      const giveUp = attempts >= this.o.maxAttempts || err instanceof PermanentFailure;
      const next = giveUp ? null : this.clock.now() + OutboxWorker.backoffMs(attempts, this.o.retryBaseMs, this.o.retryMaxMs);
      await this.store.outbox.failed(item.id, next, msg);
      if (!this.stopped) this.log.warn({ outboxId: item.id, kind: item.kind, attempts, giveUp, error: msg }, 'outbox delivery failed');
    }
  }

  private async secretFor(accountId: string): Promise<string> {
    const keys = await this.store.keys.listByAccount(accountId);
    const key = keys.find((k) => k.revokedAt === null && k.kind !== 'test') ?? keys[0];
    if (!key) throw new PermanentFailure('the account has no key to sign with');
    return signingSecretFor(this.o.masterKey, key.id);
  }

  private async postWebhook(item: OutboxRecord): Promise<void> {
    const secret = await this.secretFor(item.accountId);
    const res = await fetch(item.target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'chartshot-webhooks/1',
        'x-chartshot-event': item.subject ?? 'usage_threshold',
        'x-chartshot-delivery': String(item.id),
        'x-chartshot-signature': hmacHex(secret, item.body),
      },
      body: item.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.o.timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) throw new Error(`webhook answered ${res.status}`);
  }
}

class PermanentFailure extends Error {}
