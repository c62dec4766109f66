// Delivers the persistent outbox (signed usage_threshold webhooks; e-mails when SMTP_URL is set),
// with exponential backoff; everything is in the store, so a restart loses nothing. Items are
// claimed with a lease: instances sharing a store send each once, and a dead one's are retaken.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { logStoreFailure } from '../store/reachability.js';
import type { Store } from '../store/types.js';
import type { OutboxItem, OutboxRecord } from '../store/metering.js';
import type { Clock } from '../clock.js';
import { hmacHex, signingSecretFor } from './credentials.js';
import { sendMail } from './smtp.js';
import { postGuarded, RefusedTarget } from './outboundHttp.js';
import { emailProblem } from '../rules/email.js';

/** The subject of a dashboard's test webhook (sent as a usage_threshold event): tried once, never retried. */
export const TEST_EVENT_SUBJECT = 'test:usage_threshold';

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
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may reach loopback, private and link-local addresses. */
  allowPrivate?: boolean;
  /** This instance's id (one per process): the owner of its claims. */
  instanceId?: string;
  /** A claimed item is retaken by another instance after this (default: three delivery timeouts, at least a minute). */
  claimMs?: number;
}

// An item leaves "pending" only when delivered, or failed after the last retry.
// Signature: X-Chartshot-Signature = lowercase hex HMAC-SHA256 of the raw body, keyed with the
// account's signing secret: the secret of its oldest active live/trial key (the one printed by
// `accounts create`), falling back to its oldest key of any kind.
export class OutboxWorker {
  /** recover() was asked for and has not succeeded yet (e.g. the disk was full): each tick tries again. */
  private recovering = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;
  /** Items whose outcome could not be written: not retried before `until`; `delivered` = do not send again. */
  private readonly held = new Map<number, { until: number; delivered: boolean; item: OutboxRecord }>();
  private readonly o: Required<Omit<OutboxOptions, 'smtpUrl'>> & { smtpUrl: string | null };

  constructor(
    private readonly store: Pick<Store, 'outbox' | 'keys' | 'exclusive'>,
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
      allowPrivate: false,
      instanceId: randomUUID(),
      ...opts,
      // a delivery takes at most timeoutMs: twice that covers it and the write of its outcome
      claimMs: opts.claimMs ?? 2 * (opts.timeoutMs ?? 10_000),
    };
  }

  /** Backoff after the n-th failed attempt (n >= 1). */
  static backoffMs(n: number, baseMs: number, maxMs: number): number {
    return Math.min(maxMs, baseMs * 2 ** (n - 1));
  }

  /**
   * Before the first tick: claims an earlier process left are due again at once when this
   * process uses the store alone (a restart on SQLite); on a shared store they wait out their lease.
   */
  async recover(): Promise<void> {
    if (!this.store.exclusive) return;
    this.recovering = true;
    await this.store.outbox.releaseClaims(null);
    this.recovering = false;
  }

  start(): void {
    this.stopped = false;
    // a tick that fails (the store unreadable) is logged and the next one tries again
    this.timer = setInterval(() => {
      this.tick().catch((err: unknown) => logStoreFailure(this.log, err, {}, 'outbox tick failed; will retry'));
    }, this.o.pollMs);
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
    // a recovery that failed at start (a full disk) is tried again before each tick until it works
    if (this.recovering) await this.recover();
    const kinds: OutboxItem['kind'][] = this.o.smtpUrl ? ['webhook', 'email'] : ['webhook'];
    const now = this.clock.now();
    // sent, but recording it failed: record it again without a claim (sending again would repeat it)
    const sent = [...this.held.values()].filter((h) => h.delivered && h.until <= now).map((h) => h.item);
    await Promise.all(sent.map((item) => this.deliverOne(item)));
    const claimed = await this.store.outbox.claim(this.o.instanceId, now, this.o.claimMs, 20, kinds);
    // a held item stays claimed until its lease passes, then is retried here or elsewhere
    const due = claimed.filter((item) => !this.held.has(item.id) || (!this.held.get(item.id)!.delivered && this.held.get(item.id)!.until <= now));
    await Promise.all(due.map((item) => this.deliverOne(item)));
    return sent.length + due.length;
  }

  /** Sends one item and records the outcome; never rejects (a failed record is retried later). */
  private async deliverOne(item: OutboxRecord): Promise<void> {
    const held = this.held.get(item.id);
    let failure: { msg: string; giveUp: boolean; next: number | null } | null = null;
    // sent before, but the record of it failed: record it now, do not send again
    if (!held?.delivered) {
      try {
        if (item.kind === 'webhook') await this.postWebhook(item);
        else await this.sendEmail(item);
      } catch (err) {
        const attempts = item.attempts + 1;
        const msg = (err as Error).message ?? String(err);
        const giveUp = attempts >= this.o.maxAttempts || err instanceof PermanentFailure || item.subject === TEST_EVENT_SUBJECT;
        const next = giveUp ? null : this.clock.now() + OutboxWorker.backoffMs(attempts, this.o.retryBaseMs, this.o.retryMaxMs);
        failure = { msg, giveUp, next };
        if (!this.stopped) this.log.warn({ outboxId: item.id, kind: item.kind, attempts, giveUp, error: msg }, 'outbox delivery failed');
      }
    }
    try {
      if (failure) await this.store.outbox.failed(item.id, failure.next, failure.msg);
      else await this.store.outbox.delivered(item.id, this.clock.now());
      this.held.delete(item.id);
    } catch (err) {
      // The disk refused the record (full, read-only): the item stays pending in the store;
      // hold it back in memory with the backoff so it is neither lost nor hammered.
      // A delivered item only needs its record written: try again at the next poll, without sending.
      const wait = failure ? OutboxWorker.backoffMs(item.attempts + 1, this.o.retryBaseMs, this.o.retryMaxMs) : this.o.pollMs;
      const until = this.clock.now() + wait;
      this.held.set(item.id, { until, delivered: failure === null, item });
      logStoreFailure(this.log, err, { outboxId: item.id, kind: item.kind }, 'recording an outbox delivery failed; will retry');
    }
  }

  private async sendEmail(item: OutboxRecord): Promise<void> {
    const why = emailProblem(item.target);
    if (why) throw new PermanentFailure(`e-mail address refused: it ${why}`);
    await sendMail(this.o.smtpUrl!, { from: this.o.mailFrom, to: item.target, subject: item.subject ?? '', text: item.body, sentAt: this.clock.now() }, this.o.timeoutMs);
  }

  private async secretFor(accountId: string): Promise<string> {
    const keys = await this.store.keys.listByAccount(accountId);
    const key = keys.find((k) => k.revokedAt === null && k.kind !== 'test') ?? keys[0];
    if (!key) throw new PermanentFailure('the account has no key to sign with');
    return signingSecretFor(this.o.masterKey, key.id);
  }

  private async postWebhook(item: OutboxRecord): Promise<void> {
    const secret = await this.secretFor(item.accountId);
    let status: number;
    try {
      status = await postGuarded(item.target, {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'chartshot-webhooks/1',
          'x-chartshot-event': item.subject === TEST_EVENT_SUBJECT || item.subject === null ? 'usage_threshold' : item.subject,
          'x-chartshot-delivery': String(item.id),
          'x-chartshot-signature': hmacHex(secret, item.body),
        },
        body: item.body,
        timeoutMs: this.o.timeoutMs,
        allowPrivate: this.o.allowPrivate,
      });
    } catch (err) {
      if (err instanceof RefusedTarget) throw new PermanentFailure(`webhook target refused: ${err.message}`);
      throw err;
    }
    // redirects are not followed: a 3xx is a failed delivery like any other non-2xx
    if (status < 200 || status >= 300) throw new Error(`webhook answered ${status}`);
  }
}

class PermanentFailure extends Error {}
