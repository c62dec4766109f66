// The billing scheduler: the only place periods close by the clock. One pass closes ended
// periods (issuing invoices), walks dunning, ends read-only time, then purges what is past its
// retention; a timer runs passes. A pass holds the store's lock, so instances sharing a database
// never run two passes at once.
import { advanceDunning } from './dunning.js';
import { terminate } from './lifecycle.js';
import { CANCELLED_READ_ONLY_DAYS, closeDuePeriods } from './periods.js';
import { storedRecord, type BillingContext } from './records.js';
import { purgeRetention, type RetentionPass } from './retention.js';

export interface SchedulerPass {
  accounts: number;
  invoices: number;
  /** Rows deleted by the retention purge that ends the pass. */
  purged: RetentionPass;
  /** False when another instance (or run) held the lock: this pass did nothing. */
  ran: boolean;
}

/** Name of the store lock a pass holds. */
export const SCHEDULER_LOCK = 'billing-scheduler';

/** One pass over every billed account, unless another pass is running (here or on another instance). */
export async function runScheduler(b: BillingContext): Promise<SchedulerPass> {
  const r = await b.store.locks.tryRun(SCHEDULER_LOCK, () => pass(b));
  return r.ran ? r.value : { accounts: 0, invoices: 0, purged: { analytics: 0, billing: 0 }, ran: false };
}

async function pass(b: BillingContext): Promise<SchedulerPass> {
  let invoices = 0;
  const ids = await b.store.billing.accountIds();
  for (const id of ids) {
    const account = await b.store.accounts.find(id);
    if (!account || account.status === 'terminated' || account.plan === 'trial') continue;
    invoices += (await closeDuePeriods(b, id)).length;
    await advanceDunning(b, id);
    const after = (await b.store.accounts.find(id))!;
    const rec = await storedRecord(b, id);
    if (after.status === 'cancelled' && rec.readOnlyUntil !== null && b.clock.now() >= rec.readOnlyUntil) {
      await terminate(b, after, b.clock.now(), `cancelled, ${CANCELLED_READ_ONLY_DAYS}-day read-only period over`);
    }
  }
  // after the closes: a period's counters are only purged once it has been invoiced
  const purged = await purgeRetention(b);
  return { accounts: ids.length, invoices, purged, ran: true };
}

/** Runs a pass every intervalMs (and one at start), never two at once; errors are reported, never thrown. */
export class SchedulerTimer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly pass: () => Promise<unknown>) {}

  start(intervalMs: number, onError: (err: unknown) => void): void {
    const tick = () => {
      if (this.running) return;
      this.running = this.pass().catch(onError).finally(() => {
        this.running = null;
      });
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
