// The billing lifecycle walked on a fake clock against each store backend.
import { expect } from 'chai';
import type { Store } from '../../src/store/types.js';
import { eachStore } from '../helpers/stores.js';
import { AccountService } from '../../src/services/accounts.js';
import { BillingService } from '../../src/services/billing/index.js';
import { UsageService } from '../../src/services/usage.js';
import { invoiceHtml } from '../../src/services/invoiceHtml.js';
import { DAY, FakeClock } from '../helpers/clock.js';

eachStore('billing lifecycle on a fake clock', (emptyStore) => {
  let store: Store;
  let clock: FakeClock;
  let accounts: AccountService;
  let billing: BillingService;
  const T0 = Date.UTC(2025, 3, 1, 0, 0, 0); // 1 April: a 30-day month

  beforeEach(() => {
    store = emptyStore();
    clock = new FakeClock(T0);
    accounts = new AccountService(store, Buffer.alloc(32, 7), clock);
    billing = new BillingService(store, clock, 'https://charts.example');
  });

  const make = async (plan: 'starter' | 'growth' | 'enterprise' = 'starter') => (await accounts.createAccount(plan, 'owner@example.com')).account_id;
  const status = async (id: string) => (await store.accounts.find(id))!.status;
  const kinds = async (id: string) => (await store.billing.events(id)).map((e) => e.kind);
  const lastRetry = async (id: string) => (await store.billing.events(id)).filter((e) => e.kind === 'payment_retry').at(-1)!.detail;
  const emails = async (id: string) => (await store.outbox.list(id)).filter((o) => o.kind === 'email').map((o) => o.subject);

  it('a period closes into one invoice: plan fee + overage; usage resets on the billing date', async () => {
    const id = await make('starter');
    const acct = (await store.accounts.find(id))!;
    const p = await billing.currentPeriod(acct);
    expect(p).to.include({ start: T0, end: Date.UTC(2025, 4, 1), limit: 100_000 });
    await store.usage.setUsed(id, p.start, 101_500);
    clock.set(Date.UTC(2025, 4, 1) - 1);
    expect((await billing.runScheduler()).invoices).to.equal(0);
    clock.set(Date.UTC(2025, 4, 1));
    expect((await billing.runScheduler()).invoices).to.equal(1);
    const [inv] = await store.billing.invoices(id);
    expect(inv!.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 3000], ['overage', 600]]);
    expect(inv!).to.include({ totalPence: 3600, status: 'open', periodStart: T0, periodEnd: Date.UTC(2025, 4, 1) });
    // Running again issues nothing; the new period starts at zero.
    expect((await billing.runScheduler()).invoices).to.equal(0);
    const p2 = await billing.currentPeriod(acct);
    expect(p2.start).to.equal(Date.UTC(2025, 4, 1));
    expect((await store.usage.get(id, p2.start)).used).to.equal(0);
    const info = await billing.info(acct);
    expect(info).to.include({ plan: 'starter', billing_cycle: 'monthly', usage_limit: 100_000, current_usage: 0, amount_due: 36 + 30 });
    expect(await emails(id)).to.include('Invoice ' + inv!.id + ': £36.00');
  });

  it('a render after a period ended counts in the new period; the period closes and is invoiced only when the scheduler runs', async () => {
    const creds = await accounts.createAccount('starter', 'owner@example.com');
    const id = creds.account_id;
    const usage = new UsageService(store, billing, clock);
    const MAY = Date.UTC(2025, 4, 1);
    const auth = await accounts.authenticateKey(creds.api_key);
    await billing.record(auth.account);
    await store.usage.setUsed(id, T0, 101_500);
    clock.set(MAY + 1000); // April has ended; the scheduler has not run yet
    const ticket = await usage.admit(auth);
    await ticket.commit({ renderMs: 5 });
    expect(await store.billing.invoices(id)).to.deep.equal([]); // nothing issued during the request
    expect((await store.billing.get(id))!.periodStart).to.equal(T0); // April still open in the store
    expect((await store.usage.get(id, MAY)).used).to.equal(1);
    expect((await store.usage.get(id, T0)).used).to.equal(101_500);
    expect(await billing.currentPeriod(auth.account)).to.include({ start: MAY, end: Date.UTC(2025, 5, 1), limit: 100_000 });

    expect((await billing.runScheduler()).invoices).to.equal(1);
    const [inv] = await store.billing.invoices(id);
    expect(inv!.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 3000], ['overage', 600]]); // April's usage only
    expect((await store.billing.get(id))!.periodStart).to.equal(MAY);
    expect((await store.usage.get(id, MAY)).used).to.equal(1);
  });

  it('several missed periods are each closed once, even when closing concurrently', async () => {
    const id = await make('starter');
    clock.set(Date.UTC(2025, 6, 2)); // 3 periods over
    const results = await Promise.all([billing.runScheduler(), billing.runScheduler(), billing.closeDuePeriods(id)]);
    expect((await store.billing.invoices(id)).length).to.equal(3);
    expect(results).to.have.length(3);
  });

  it('upgrade: at once, prorated by remaining days; downgrade: limits at once, fee next period', async () => {
    const id = await make('starter');
    clock.set(T0 + 15 * DAY);
    const up = await billing.changePlan(id, 'growth');
    expect(up).to.deep.equal({ plan: 'growth', effective: 'now', proration_pence: 6000 }); // (150-30) x 15/30
    expect((await store.accounts.find(id))!.plan).to.equal('growth');
    clock.set(Date.UTC(2025, 4, 1));
    await billing.runScheduler();
    const [first] = await store.billing.invoices(id);
    expect(first!.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 3000], ['proration', 6000]]);
    expect(first!.totalPence).to.equal(9000);

    clock.advance(10 * DAY);
    const down = await billing.changePlan(id, 'starter');
    expect(down.effective).to.equal('next_period');
    const acct = (await store.accounts.find(id))!;
    expect(acct.plan).to.equal('starter'); // limits now
    expect((await billing.currentPeriod(acct)).limit).to.equal(100_000);
    clock.set(Date.UTC(2025, 5, 1));
    await billing.runScheduler();
    const second = (await store.billing.invoices(id))[0]!;
    expect(second.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 15000]]); // still Growth's fee this period
    clock.set(Date.UTC(2025, 6, 1));
    await billing.runScheduler();
    expect((await store.billing.invoices(id))[0]!.totalPence).to.equal(3000); // Starter from the next period
  });

  it('annual cycle from the next period: 10 monthly fees for 12 months', async () => {
    const id = await make('starter');
    await billing.changePlan(id, 'starter', 'annual');
    clock.set(Date.UTC(2025, 4, 1));
    await billing.runScheduler();
    const rec = (await store.billing.get(id))!;
    expect(rec).to.include({ cycle: 'annual', periodStart: Date.UTC(2025, 4, 1), periodEnd: Date.UTC(2026, 4, 1) });
    clock.set(Date.UTC(2026, 4, 1));
    await billing.runScheduler();
    expect((await store.billing.invoices(id))[0]!).to.include({ totalPence: 30000, cycle: 'annual' });
  });

  it('payment failure: day 1 e-mail + retry, day 3 retry + warning, day 7 final retry + suspension warning, day 10 suspended, day 30 terminated', async () => {
    const id = await make('starter');
    const keyId = (await store.keys.listByAccount(id))[0]!.id;
    await billing.paymentFailed(id);
    expect(await kinds(id)).to.deep.equal(['payment_failed', 'payment_retry']);
    expect(await emails(id)).to.deep.equal(['Your chartshot payment failed']);

    const step = async (day: number) => {
      clock.set(T0 + (day - 1) * DAY);
      await billing.runScheduler();
    };
    await step(2);
    expect(await kinds(id)).to.have.length(2);
    await step(3);
    expect(await lastRetry(id)).to.match(/attempt 2/);
    expect((await emails(id)).at(-1)).to.equal('Your chartshot payment is still failing');
    await step(7);
    expect(await lastRetry(id)).to.match(/attempt 3, final/);
    expect((await emails(id)).at(-1)).to.equal('Your chartshot account will be suspended');
    expect(await status(id)).to.equal('active');
    await step(9);
    expect(await status(id)).to.equal('active');
    await step(10);
    expect(await status(id)).to.equal('suspended');
    // Read-only: no new keys; the session (dashboard, analytics) still works.
    let refused: unknown = null;
    await accounts.createKey(id).catch((e) => (refused = e));
    expect(refused).to.have.property('code', 'forbidden');
    const session = await accounts.createSession(id);
    expect((await accounts.authenticateSession(session.session_token)).status).to.equal('suspended');
    await step(29);
    expect(await status(id)).to.equal('suspended');
    await step(30);
    expect(await status(id)).to.equal('terminated');
    expect(await store.keys.find(keyId)).to.equal(null);
    let gone: unknown = null;
    await accounts.authenticateSession(session.session_token).catch((e) => (gone = e));
    expect(gone).to.have.property('code', 'invalid_session');
    expect((await emails(id)).at(-1)).to.equal('Your chartshot account is closed');
  });

  it('payment succeeding ends dunning; a suspended account becomes active again with a fresh period', async () => {
    const id = await make('starter');
    await billing.paymentFailed(id);
    clock.set(T0 + 12 * DAY);
    await billing.runScheduler();
    expect(await status(id)).to.equal('suspended');
    const acct = await billing.paymentSucceeded(id);
    expect(acct.status).to.equal('active');
    const rec = (await store.billing.get(id))!;
    expect(rec).to.include({ paymentFailedAt: null, dunningStage: 0 });
    clock.set(T0 + 40 * DAY);
    await billing.runScheduler();
    expect(await status(id)).to.equal('active');
  });

  it('closing a period by hand after a cancel-at-period-end period ended (scheduler not run yet) invoices that period only', async () => {
    const id = await make('growth');
    clock.set(T0 + 5 * DAY);
    await billing.cancel(id);
    clock.set(Date.UTC(2025, 4, 10)); // the period ended on 1 May; the scheduler has not run
    expect(await billing.closePeriodNow(id)).to.equal(null);
    expect(await status(id)).to.equal('cancelled');
    expect((await store.billing.invoices(id)).map((i) => i.totalPence)).to.deep.equal([15000]);
  });

  it('closing a period by hand again and again in one millisecond: a period lasts at least a millisecond; a close before then is a 400, nothing written', async () => {
    const id = await make('growth');
    clock.set(T0 + 5 * DAY);
    let closed = 0;
    let refused = 0;
    for (let i = 0; i < 3; i++) {
      const outcome = await billing.closePeriodNow(id).then(
        () => null,
        (e: unknown) => e as { code?: string; message?: string },
      );
      if (outcome === null) closed++;
      else {
        expect(outcome.code, String(outcome.message)).to.equal('invalid_input');
        expect(outcome.message).to.match(/nothing to close yet/);
        refused++;
      }
    }
    expect([closed, refused]).to.deep.equal([2, 1]); // this moment's period, then the millisecond-long one, then nothing
    expect(await store.billing.invoices(id)).to.have.length(closed);
    clock.set(T0 + 5 * DAY + 2);
    expect(await billing.closePeriodNow(id)).to.not.equal(null);
  });

  it('cancellation: active to the period end, then read-only and restorable for 30 days, then terminated', async () => {
    const id = await make('growth');
    clock.set(T0 + 5 * DAY);
    await billing.cancel(id);
    expect(await status(id)).to.equal('active');
    clock.set(Date.UTC(2025, 4, 1));
    await billing.runScheduler();
    expect(await status(id)).to.equal('cancelled');
    expect((await store.billing.invoices(id)).map((i) => i.totalPence)).to.deep.equal([15000]);
    // No new charges while read-only.
    clock.set(Date.UTC(2025, 4, 20));
    await billing.runScheduler();
    expect((await store.billing.invoices(id)).length).to.equal(1);
    // Restore within the window: active again, a fresh period from now.
    const restored = await billing.restore(id);
    expect(restored.status).to.equal('active');
    expect((await store.billing.get(id))!.periodStart).to.equal(Date.UTC(2025, 4, 20));
    // Cancel again and let the window pass.
    await billing.cancel(id);
    clock.set(Date.UTC(2025, 5, 20));
    await billing.runScheduler();
    expect(await status(id)).to.equal('cancelled');
    clock.set(Date.UTC(2025, 5, 20) + 30 * DAY - 1);
    await billing.runScheduler();
    expect(await status(id)).to.equal('cancelled');
    clock.set(Date.UTC(2025, 5, 20) + 30 * DAY);
    let late: unknown = null;
    await billing.restore(id).catch((e) => (late = e));
    expect(late).to.have.property('code', 'invalid_input');
    await billing.runScheduler();
    expect(await status(id)).to.equal('terminated');
    expect((await store.billing.invoices(id)).length).to.equal(2); // billing records are kept
  });

  it('enterprise volume discount: its own negative line, by the tier of the period\'s charts, on the whole charge; in the invoice document too', async () => {
    const id = await make('enterprise');
    await billing.setCustomLimits(id, { pricePence: 1_000_000 }); // £10,000.00 a month
    const acct = (await store.accounts.find(id))!;
    await store.usage.setUsed(id, T0, 1_000_000);
    clock.set(Date.UTC(2025, 4, 1));
    await billing.runScheduler();
    const [inv] = await store.billing.invoices(id);
    expect(inv!.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 1_000_000], ['discount', -200_000]]);
    expect(inv!.lines[1]!.description).to.equal('Volume discount, 1M-5M tier (1,000,000 charts a month): 20% of £10000.00');
    expect(inv!.totalPence).to.equal(800_000);
    const html = invoiceHtml(inv!, acct);
    expect(html).to.contain('<td>Volume discount</td><td>Volume discount, 1M-5M tier (1,000,000 charts a month): 20% of £10000.00</td><td class="n">-£2000.00</td>');
    expect(html).to.contain('<td class="n">£8000.00</td>');

    // just below the first tier: no discount line; above 10M: the account's own rate
    await store.usage.setUsed(id, Date.UTC(2025, 4, 1), 499_999);
    clock.set(Date.UTC(2025, 5, 1));
    await billing.runScheduler();
    expect((await store.billing.invoices(id))[0]!.lines.map((l) => l.kind)).to.deep.equal(['plan']);
    await billing.setCustomLimits(id, { pricePence: 1_000_000, discountPercent: 45 });
    await store.usage.setUsed(id, Date.UTC(2025, 5, 1), 10_000_001);
    expect((await billing.info(acct)).amount_due).to.equal(8_000 + 10_000 + 5_500); // two unpaid invoices and the open period's discounted charge
    clock.set(Date.UTC(2025, 6, 1));
    await billing.runScheduler();
    const [third] = await store.billing.invoices(id);
    expect(third!.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 1_000_000], ['discount', -450_000]]);
    expect(third!.lines[1]!.description).to.match(/^Volume discount, above 10M tier \(10,000,001 charts a month\): 45% of /);
  });

  it('no volume discount below enterprise, whatever the volume', async () => {
    const id = await make('growth');
    await store.usage.setUsed(id, T0, 6_000_000);
    clock.set(Date.UTC(2025, 4, 1));
    await billing.runScheduler();
    expect((await store.billing.invoices(id))[0]!.lines.map((l) => l.kind)).to.deep.equal(['plan', 'overage']);
  });
});

describe('invoice document', () => {
  const T0 = Date.UTC(2025, 3, 1, 0, 0, 0);

  it('the invoice document lists plan, proration and overage lines and escapes text', async () => {
    const html = invoiceHtml(
      {
        id: 'inv_1', accountId: 'acct_<x>', issuedAt: T0, periodStart: T0, periodEnd: T0 + 30 * DAY, plan: 'growth', cycle: 'monthly',
        lines: [
          { kind: 'plan', description: 'Starter plan', amountPence: 3000 },
          { kind: 'proration', description: 'Upgrade', amountPence: 6000 },
          { kind: 'overage', description: 'Overage', amountPence: 300 },
        ],
        totalPence: 9300, status: 'open', paidAt: null,
      },
      { id: 'acct_<x>', email: null, plan: 'growth', status: 'active', createdAt: T0 },
    );
    expect(html).to.contain('£30.00').and.contain('£60.00').and.contain('£3.00').and.contain('£93.00');
    expect(html).to.contain('Proration').and.contain('Overage');
    expect(html).to.contain('acct_&lt;x&gt;').and.not.contain('acct_<x>');
    expect(html).not.to.match(/<script/i);
  });
});
