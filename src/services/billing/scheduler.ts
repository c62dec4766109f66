// The billing scheduler: the only place periods close by the clock. One pass closes ended
// periods (issuing invoices), walks dunning and ends read-only time; a timer runs passes.
import { advanceDunning } from './dunning.js';
import { terminate } from './lifecycle.js';
import { CANCELLED_READ_ONLY_DAYS, closeDuePeriods } from './periods.js';
import { storedRecord, type BillingContext } from './records.js';

export interface SchedulerPass {
  accounts: number;
  invoices: number;
}

/** One pass over every billed account. */
export async function runScheduler(b: BillingContext): Promise<SchedulerPass> {
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
  return { accounts: ids.length, invoices };
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
