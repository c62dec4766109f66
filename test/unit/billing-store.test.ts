// Billing tables, locks and the account purge on every backend: closing a period is a
// compare-and-set, the scheduler runs on one instance at a time, each family purges its own rows.
import { expect } from 'chai';
import type { Account, Store } from '../../src/store/types.js';
import type { BillingRecord, Invoice } from '../../src/store/metering.js';
import { AccountService } from '../../src/services/accounts.js';
import { BillingService } from '../../src/services/billing/index.js';
import { eachStore } from '../helpers/stores.js';
import { anotherInstance } from '../helpers/instances.js';
import { DAY, FakeClock } from '../helpers/clock.js';

const T0 = Date.UTC(2025, 3, 1);
const MAY = Date.UTC(2025, 4, 1);

function record(accountId: string): BillingRecord {
  return {
    accountId, cycle: 'monthly', periodStart: T0, periodEnd: MAY, periodPlan: 'starter', billedPlan: 'starter', pendingCycle: null,
    cancelAtPeriodEnd: false, readOnlyUntil: null, paymentFailedAt: null, dunningStage: 0, webhookUrl: null, customCharts: null,
    customPerMinute: null, customPerHour: null, customBurst: null, customPricePence: null,
    customRetentionDays: null, customDiscountPercent: null,
  };
}

function invoice(accountId: string, id: string): Invoice {
  return {
    id, accountId, issuedAt: MAY, periodStart: T0, periodEnd: MAY, plan: 'starter', cycle: 'monthly',
    lines: [{ kind: 'plan', description: 'Starter plan', amountPence: 3000 }], totalPence: 3000, status: 'open', paidAt: null,
  };
}

async function account(store: Store, id: string, email: string | null = 'owner@example.com'): Promise<Account> {
  const a: Account = { id, email, plan: 'starter', status: 'active', createdAt: T0 };
  await store.accounts.create(a);
  return a;
}

/** The store, and a second instance on the same database when the backend has one. */
async function twoInstances(store: Store, backend: Parameters<typeof anotherInstance>[1]): Promise<{ stores: [Store, Store]; close(): Promise<void> }> {
  const second = backend.name === 'PostgreSQL' ? await anotherInstance(store, backend) : null;
  return { stores: [store, second ?? store], close: async () => second?.close() };
}

eachStore('billing store', (store, backend) => {
  it('ensure creates once; update, lines, invoices, payment and events read back', async () => {
    const b = store().billing;
    await account(store(), 'a1');
    expect(await b.get('a1')).to.equal(null);
    expect(await b.ensure(record('a1'))).to.deep.equal(record('a1'));
    expect(await b.ensure({ ...record('a1'), cycle: 'annual' })).to.include({ cycle: 'monthly' });
    await b.update('a1', { cancelAtPeriodEnd: true, dunningStage: 2, webhookUrl: 'https://hooks.example/x', customCharts: 5 });
    expect(await b.get('a1')).to.include({ cancelAtPeriodEnd: true, dunningStage: 2, webhookUrl: 'https://hooks.example/x', customCharts: 5 });
    expect(await b.accountIds()).to.deep.equal(['a1']);
    await b.addLine('a1', T0, { kind: 'proration', description: 'Upgrade', amountPence: 600 }, T0 + DAY);
    expect(await b.lines('a1', T0)).to.deep.equal([{ kind: 'proration', description: 'Upgrade', amountPence: 600 }]);
    expect(await b.closePeriod('a1', T0, invoice('a1', 'inv_1'), { periodStart: MAY, periodEnd: MAY + 30 * DAY })).to.equal(true);
    expect(await b.invoice('inv_1')).to.deep.equal(invoice('a1', 'inv_1'));
    expect(await b.failInvoices('a1')).to.equal(1);
    expect(await b.payInvoices('a1', MAY + DAY)).to.equal(1);
    expect((await b.invoices('a1'))[0]).to.include({ status: 'paid', paidAt: MAY + DAY });
    await b.addEvent('a1', T0, 'plan_changed');
    await b.addEventWithNotices('a1', T0 + 1, 'payment_failed', 'card declined', [
      { kind: 'email', accountId: 'a1', target: 'owner@example.com', subject: 'Payment failed', body: 'x' },
    ]);
    expect((await b.events('a1')).map((e) => [e.kind, e.detail])).to.deep.equal([['plan_changed', null], ['payment_failed', 'card declined']]);
    expect((await store().outbox.list('a1')).map((o) => o.subject)).to.deep.equal(['Payment failed']);
  });

  it('closing a period is a compare-and-set: of parallel closes (two instances on PostgreSQL), one wins', async () => {
    const { stores, close } = await twoInstances(store(), backend);
    try {
      await account(store(), 'a1');
      await store().billing.ensure(record('a1'));
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => stores[i % 2].billing.closePeriod('a1', T0, invoice('a1', `inv_${i}`), { periodStart: MAY, periodEnd: MAY + 30 * DAY })),
      );
      expect(results.filter(Boolean)).to.have.length(1);
      expect(await store().billing.invoices('a1')).to.have.length(1);
      expect((await store().billing.get('a1'))!.periodStart).to.equal(MAY);
    } finally {
      await close();
    }
  });

  it('a named lock runs one holder at a time, across instances', async () => {
    const { stores, close } = await twoInstances(store(), backend);
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const holding = new Promise<void>((r) => (entered = r));
      const first = stores[0].locks.tryRun('job', async () => {
        entered();
        await gate;
        return 'first';
      });
      await holding; // the first runs inside the lock now
      expect(await stores[1].locks.tryRun('job', async () => 'second')).to.deep.equal({ ran: false });
      expect(await stores[1].locks.tryRun('other', async () => 'other')).to.deep.equal({ ran: true, value: 'other' });
      release();
      expect(await first).to.deep.equal({ ran: true, value: 'first' });
      expect(await stores[1].locks.tryRun('job', async () => 'second')).to.deep.equal({ ran: true, value: 'second' });
    } finally {
      await close();
    }
  });

  it('two schedulers ticking together close each period, send each dunning step and e-mail once', async () => {
    const { stores, close } = await twoInstances(store(), backend);
    try {
      const clock = new FakeClock(T0);
      const services = stores.map((s) => new BillingService(s, clock, 'https://charts.example'));
      const accounts = new AccountService(store(), Buffer.alloc(32, 5), clock);
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push((await accounts.createAccount('starter', `owner${i}@example.com`)).account_id);
      for (const id of ids.slice(0, 2)) await services[0]!.paymentFailed(id);
      const before = await Promise.all(ids.map(async (id) => (await store().outbox.list(id)).length));
      // day 3: a dunning step for the failing accounts; then 1 May: every period closes
      for (const at of [T0 + 2 * DAY, MAY]) {
        clock.set(at);
        await Promise.all([services[0]!.runScheduler(), services[1]!.runScheduler(), services[0]!.runScheduler(), services[1]!.runScheduler()]);
      }
      for (const [i, id] of ids.entries()) {
        expect(await store().billing.invoices(id), id).to.have.length(1);
        const mails = (await store().outbox.list(id)).slice(before[i]).map((o) => o.subject);
        expect(new Set(mails).size, `${id}: ${mails.join(' | ')}`).to.equal(mails.length);
        const retries = (await store().billing.events(id)).filter((e) => e.kind === 'payment_retry');
        // each step of dunning once: day 1, day 3, then the final retry the 1 May pass catches up on
        expect(retries.map((e) => e.detail), id).to.have.length(i < 2 ? 3 : 0);
        expect(new Set(retries.map((e) => e.detail)).size, id).to.equal(retries.length);
      }
    } finally {
      await close();
    }
  });

  it("purging an account deletes each family's rows of it, keeps billing records, and leaves other accounts alone", async () => {
    const s = store();
    const clock = new FakeClock(T0);
    const accounts = new AccountService(s, Buffer.alloc(32, 5), clock);
    const [gone, kept] = [await accounts.createAccount('starter', 'gone@example.com'), await accounts.createAccount('starter', 'kept@example.com')];
    for (const { account_id: id } of [gone, kept]) {
      await s.billing.ensure({ ...record(id), webhookUrl: 'https://hooks.example/x' });
      await s.billing.closePeriod(id, T0, invoice(id, `inv_${id}`), { periodStart: MAY });
      await s.billing.addEvent(id, T0, 'plan_changed');
      await s.usage.commit(id, T0, null, 100, { renderMs: 5, cacheHit: false });
      await s.usage.reserve(id, T0, null, { owner: 'i', now: T0, leaseMs: 1000 });
      await s.usage.markThreshold(id, T0, 80, T0, [{ kind: 'email', accountId: id, target: 'x@example.com', subject: 's', body: 'b' }]);
      await s.rateLimits.hit(id, { perMinute: 60, perHour: 100, burst: 5 }, T0);
      const claim = await s.trials.claim(`ip_${id}`, T0, DAY);
      if (claim.ok) await s.trials.attach(claim.claimId, id);
    }
    await s.purgeAccountData(gone.account_id);

    const g = gone.account_id;
    expect(await s.keys.listByAccount(g)).to.deep.equal([]);
    expect((await s.accounts.find(g))!.email).to.equal(null);
    expect(await s.usage.get(g, T0)).to.deep.equal({ used: 0, reserved: 0 });
    expect(await s.usage.totals(g, 0, 1000)).to.include({ renders: 0 });
    expect(await s.usage.markThreshold(g, T0, 80, T0, [])).to.equal(true); // its threshold mark is gone
    expect((await s.rateLimits.peek(g, { perMinute: 60, perHour: 100, burst: 5 }, T0)).remaining).to.equal(5);
    expect((await s.trials.claim(`ip_${g}`, T0 + 1, DAY)).ok).to.equal(true);
    // billing records, invoices, events and the outbox stay; the webhook URL does not
    expect(await s.billing.get(g)).to.include({ webhookUrl: null, periodStart: MAY });
    expect(await s.billing.invoices(g)).to.have.length(1);
    expect(await s.billing.events(g)).to.have.length(1);
    expect(await s.outbox.list(g)).to.have.length(1);

    const k = kept.account_id;
    expect(await s.keys.listByAccount(k)).to.have.length(1);
    expect((await s.accounts.find(k))!.email).to.equal('kept@example.com');
    expect(await s.usage.get(k, T0)).to.deep.equal({ used: 1, reserved: 1 });
    expect(await s.billing.get(k)).to.include({ webhookUrl: 'https://hooks.example/x' });
  });
});
