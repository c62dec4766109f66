// Data retention on every backend, on a fake clock: each plan's analytics window to the day,
// enterprise windows, plan changes, seven years of billing records, bounded batches, idempotence,
// several instances, and how far back GET /usage/analytics may ask.
import { expect } from 'chai';
import type { PlanName } from '../../src/rules/plans.js';
import { analyticsCutoff, billingCutoff } from '../../src/rules/retention.js';
import { addMonthsUtc } from '../../src/rules/pricing.js';
import type { Account, Store } from '../../src/store/types.js';
import type { Invoice } from '../../src/store/metering.js';
import { BillingService } from '../../src/services/billing/index.js';
import { firstRecord } from '../../src/services/billing/records.js';
import { UsageService } from '../../src/services/usage.js';
import { AppError } from '../../src/errors.js';
import { eachStore } from '../helpers/stores.js';
import { anotherInstance, sqlOne } from '../helpers/instances.js';
import { renderRequest } from '../helpers/requests.js';
import { DAY, FakeClock } from '../helpers/clock.js';

const NOW = Date.UTC(2031, 5, 15, 12, 0, 0);
const TODAY = Math.floor(NOW / DAY);
const WINDOW: Record<Exclude<PlanName, 'enterprise'>, number> = { trial: 30, starter: 365, growth: 3 * 365 };
const REQ = renderRequest({});

eachStore('data retention', (current, backend) => {
  let store: Store;
  let clock: FakeClock;
  let billing: BillingService;

  beforeEach(() => {
    store = current();
    clock = new FakeClock(NOW);
    billing = new BillingService(store, clock, 'https://charts.example');
  });

  const count = async (sql: string) => Number((await sqlOne<{ n: number }>(store, sql))!.n);
  /** An account whose billing period is open until 20 days from NOW (so a pass closes nothing). */
  async function account(id: string, plan: PlanName): Promise<Account> {
    const a: Account = { id, email: null, plan, status: 'active', createdAt: NOW - 4000 * DAY };
    await store.accounts.create(a);
    if (plan !== 'trial') await store.billing.ensure({ ...firstRecord(a), periodStart: NOW - 10 * DAY, periodEnd: NOW + 20 * DAY });
    return a;
  }
  const addDay = (id: string, day: number) => store.usage.recordRequest(id, day, true);
  const hasDay = async (id: string, day: number) => (await store.usage.totals(id, day, day)).requests > 0;
  async function chart(id: string, accountId: string, lastAccessed: number | null, createdAt = NOW - 4000 * DAY): Promise<void> {
    const image = { contentType: 'image/png', etag: '"e"', body: Buffer.from('png'), createdAt, expiresAt: null };
    await store.charts.createWithImage({ id, accountId, keyId: 'k', request: REQ, digest: 'd', createdAt }, { key: `chart:${id}`, image }, null);
    await store.chartMetrics.addBatch([{ chartId: id, hitCount: 1, errorCount: 0, renderCount: 1, renderMsTotal: 5, lastAccessed }]);
  }
  const hasMetrics = async (chartId: string) => (await store.chartMetrics.find(chartId)) !== null;

  for (const [plan, days] of Object.entries(WINDOW) as Array<[keyof typeof WINDOW, number]>) {
    it(`${plan}: the last ${days} days (today included) are kept, the day before is deleted; per-chart metrics likewise`, async () => {
      await account('a', plan);
      const cut = analyticsCutoff(NOW, days);
      expect(cut.day).to.equal(TODAY - days + 1);
      for (const d of [TODAY, cut.day, cut.day - 1, cut.day - 400]) await addDay('a', d);
      await chart('inside', 'a', cut.at); // last accessed at the first kept moment
      await chart('outside', 'a', cut.at - 1);
      await chart('never', 'a', null, cut.at - 1); // never accessed: its creation counts

      const pass = await billing.runScheduler();
      expect(pass.purged.analytics).to.equal(4);
      expect(await hasDay('a', TODAY)).to.equal(true);
      expect(await hasDay('a', cut.day), 'first day inside the window').to.equal(true);
      expect(await hasDay('a', cut.day - 1), 'last day outside').to.equal(false);
      expect(await hasDay('a', cut.day - 400)).to.equal(false);
      expect(await hasMetrics('inside')).to.equal(true);
      expect(await hasMetrics('outside')).to.equal(false);
      expect(await hasMetrics('never')).to.equal(false);
      // the charts themselves and their images are not analytics
      expect(await count('SELECT count(*) AS n FROM charts')).to.equal(3);
      // what GET /usage/analytics?days=<window> reads is exactly what is kept
      const usage = new UsageService(store, billing, clock);
      expect((await usage.analytics((await store.accounts.find('a'))!, days)).quickStats.totalRequests).to.equal(2);
    });
  }

  it('enterprise keeps analytics for good by default, or its own --retention-days', async () => {
    await account('kept', 'enterprise');
    await account('set', 'enterprise');
    await billing.setCustomLimits('set', { retentionDays: 90 });
    for (const id of ['kept', 'set']) for (const d of [TODAY - 89, TODAY - 90, TODAY - 5000]) await addDay(id, d);
    expect((await billing.runScheduler()).purged.analytics).to.equal(2);
    expect([await hasDay('kept', TODAY - 90), await hasDay('kept', TODAY - 5000)]).to.deep.equal([true, true]);
    expect([await hasDay('set', TODAY - 89), await hasDay('set', TODAY - 90), await hasDay('set', TODAY - 5000)]).to.deep.equal([true, false, false]);
    // back to the default: kept for good again
    await billing.setCustomLimits('set', { retentionDays: null });
    expect(await store.retention.customRetention()).to.deep.equal([]);
  });

  it("usage counters and thresholds of closed periods past the window go; the open period's and a trial's lifetime count stay", async () => {
    await account('p', 'starter');
    await account('t', 'trial');
    const cut = analyticsCutoff(NOW, 365).at;
    const open = NOW - 10 * DAY;
    for (const start of [cut - 1, cut, open]) {
      await store.usage.setUsed('p', start, 7);
      await store.usage.markThreshold('p', start, 80, start, []);
    }
    await store.usage.setUsed('t', 0, 100); // a trial's whole life
    expect((await billing.purgeRetention()).analytics).to.equal(2);
    expect((await store.usage.get('p', cut - 1)).used).to.equal(0);
    expect((await store.usage.get('p', cut)).used).to.equal(7);
    expect((await store.usage.get('p', open)).used).to.equal(7);
    expect((await store.usage.get('t', 0)).used).to.equal(100);
    // a threshold marks again only once deleted
    expect(await store.usage.markThreshold('p', cut - 1, 80, NOW, [])).to.equal(true);
    expect(await store.usage.markThreshold('p', cut, 80, NOW, [])).to.equal(false);
  });

  it("a plan change moves the window from the change: a downgrade deletes what the new plan does not keep at the next pass, an upgrade keeps what is still inside the new one", async () => {
    await account('down', 'growth');
    await account('up', 'starter');
    await account('stay', 'starter');
    for (const id of ['down', 'up', 'stay']) for (const d of [TODAY - 364, TODAY - 400]) await addDay(id, d);
    await billing.runScheduler(); // growth keeps both; starter loses day -400
    expect([await hasDay('down', TODAY - 364), await hasDay('down', TODAY - 400)]).to.deep.equal([true, true]);
    expect([await hasDay('up', TODAY - 364), await hasDay('up', TODAY - 400)]).to.deep.equal([true, false]);

    await billing.changePlan('down', 'starter');
    await billing.changePlan('up', 'growth');
    await billing.runScheduler();
    expect([await hasDay('down', TODAY - 364), await hasDay('down', TODAY - 400)], 'downgraded: starter window from now').to.deep.equal([true, false]);

    clock.advance(30 * DAY); // day -364 is now 394 days old
    await store.billing.update('up', { periodEnd: NOW + 60 * DAY });
    await store.billing.update('stay', { periodEnd: NOW + 60 * DAY });
    await store.billing.update('down', { periodEnd: NOW + 60 * DAY });
    await billing.runScheduler();
    expect(await hasDay('up', TODAY - 364), 'upgraded: growth window').to.equal(true);
    expect(await hasDay('stay', TODAY - 364), 'still starter').to.equal(false);
    expect(await hasDay('down', TODAY - 364)).to.equal(false);
  });

  describe('billing records: seven calendar years', () => {
    const ISSUED = Date.UTC(2024, 2, 15, 9, 0, 0);
    const invoice = (id: string, accountId: string, issuedAt: number): Invoice => ({
      id, accountId, issuedAt, periodStart: issuedAt - 30 * DAY, periodEnd: issuedAt, plan: 'starter', cycle: 'monthly',
      lines: [{ kind: 'plan', description: 'Starter', amountPence: 3000 }], totalPence: 3000, status: 'paid', paidAt: issuedAt,
    });

    async function seed(): Promise<void> {
      const a = await account('b', 'starter');
      // the open period starts after the old invoice: its lines stay while the period is open
      await store.billing.update(a.id, { periodStart: ISSUED, periodEnd: ISSUED + 30 * DAY });
      await store.billing.addLine(a.id, ISSUED - 30 * DAY, { kind: 'proration', description: 'old', amountPence: 1 }, ISSUED);
      await store.billing.addLine(a.id, ISSUED, { kind: 'proration', description: 'open', amountPence: 1 }, ISSUED);
      expect(await store.billing.closePeriod(a.id, ISSUED, invoice('inv_old', a.id, ISSUED), { periodStart: ISSUED + 30 * DAY, periodEnd: ISSUED + 60 * DAY })).to.equal(true);
      await store.billing.update(a.id, { periodStart: ISSUED });
      await store.billing.closePeriod(a.id, ISSUED, invoice('inv_new', a.id, ISSUED + 2 * DAY), { periodStart: ISSUED });
      await store.billing.addEvent(a.id, ISSUED, 'payment_failed', 'day 1');
      await store.billing.addEvent(a.id, ISSUED + 2 * DAY, 'payment_succeeded', 'paid');
      for (const status of ['open', 'paid']) {
        await store.images.put(`invoice-pdf:inv_old:${status}`, { contentType: 'application/pdf', etag: '"p"', body: Buffer.from('%PDF-'), createdAt: ISSUED, expiresAt: null });
      }
      await store.images.put('invoice-pdf:inv_new:paid', { contentType: 'application/pdf', etag: '"p"', body: Buffer.from('%PDF-'), createdAt: ISSUED, expiresAt: null });
    }

    it('a day before seven years everything is kept; a day after, the invoice (with its PDF), events and closed lines go, newer ones stay', async () => {
      await seed();
      const seven = addMonthsUtc(ISSUED, 84);
      expect(new Date(seven).toISOString()).to.equal('2031-03-15T09:00:00.000Z');
      expect(billingCutoff(seven)).to.equal(ISSUED); // at exactly seven years: still kept (deleted strictly after)

      clock.set(seven - DAY);
      expect((await billing.purgeRetention()).billing).to.equal(0);
      clock.set(seven);
      expect((await billing.purgeRetention()).billing).to.equal(0);
      clock.set(seven + DAY);
      expect((await billing.purgeRetention()).billing).to.equal(3); // inv_old, its event, the closed period's line
      expect(await store.billing.invoice('inv_old')).to.equal(null);
      expect(await store.images.get('invoice-pdf:inv_old:open')).to.equal(null);
      expect(await store.images.get('invoice-pdf:inv_old:paid')).to.equal(null);
      expect(await store.billing.invoice('inv_new')).to.not.equal(null);
      expect(await store.images.get('invoice-pdf:inv_new:paid')).to.not.equal(null);
      expect((await store.billing.events('b')).map((e) => e.kind)).to.deep.equal(['payment_succeeded']);
      expect(await store.billing.lines('b', ISSUED - 30 * DAY)).to.deep.equal([]);
      expect((await store.billing.lines('b', ISSUED)).map((l) => l.description), 'the open period keeps its lines').to.deep.equal(['open']);
      // idempotent
      expect(await billing.purgeRetention()).to.deep.equal({ analytics: 0, billing: 0 });
    });
  });

  it('more rows than a batch are all purged, a batch at a time; nothing inside a window or of another plan is touched; a second run deletes nothing', async () => {
    await account('t', 'trial');
    await account('g', 'growth');
    for (let i = 0; i < 23; i++) {
      await addDay('t', TODAY - 30 - i); // all outside the trial window
      await addDay('g', TODAY - 30 - i); // all inside growth's
    }
    for (let i = 0; i < 5; i++) await chart(`old${i}`, 't', NOW - 40 * DAY);
    await addDay('t', TODAY);

    const cut = analyticsCutoff(NOW, 30);
    const sizes = [];
    for (;;) {
      const n = await store.retention.purgeAnalytics({ plan: 'trial' }, cut, 4);
      sizes.push(n);
      if (n < 4) break;
    }
    expect(sizes).to.deep.equal([4, 4, 4, 4, 4, 4, 4, 0]); // 23 daily rows then 5 metrics rows: 28 in batches of 4
    expect(await count("SELECT count(*) AS n FROM usage_daily WHERE account_id = 't'")).to.equal(1);
    expect(await count("SELECT count(*) AS n FROM usage_daily WHERE account_id = 'g'")).to.equal(23);
    expect(await count('SELECT count(*) AS n FROM chart_metrics')).to.equal(0);

    // the service drains the same way in small batches, and is idempotent
    for (let i = 0; i < 9; i++) await addDay('t', TODAY - 31 - i);
    expect(await billing.purgeRetention(2)).to.deep.equal({ analytics: 9, billing: 0 });
    expect(await billing.purgeRetention(2)).to.deep.equal({ analytics: 0, billing: 0 });
    expect(await count("SELECT count(*) AS n FROM usage_daily WHERE account_id = 'g'")).to.equal(23);
  });

  it('several instances purging at once share the work: every old row goes once, the scheduler pass runs on one', async () => {
    const second = backend.name === 'PostgreSQL' ? await anotherInstance(store, backend) : null;
    try {
      await account('t', 'trial');
      for (let i = 0; i < 40; i++) await addDay('t', TODAY - 31 - i);
      expect(await hasDay('t', TODAY - 31)).to.equal(true);
      const other = new BillingService(second ?? store, clock, 'https://charts.example');
      const runs = await Promise.all([billing.purgeRetention(3), other.purgeRetention(3), billing.purgeRetention(3)]);
      expect(runs.reduce((s, r) => s + r.analytics, 0)).to.equal(40);
      expect(await count('SELECT count(*) AS n FROM usage_daily')).to.equal(0);
      for (let i = 0; i < 5; i++) await addDay('t', TODAY - 31 - i);
      // request analytics are written behind the answer on PostgreSQL; a read of the totals waits
      // for this instance's, so the other instance's pass sees the rows too
      expect(await hasDay('t', TODAY - 31)).to.equal(true);
      const passes = await Promise.all([billing.runScheduler(), other.runScheduler()]);
      expect(passes.filter((p) => p.ran).length).to.be.at.least(1);
      expect(passes.reduce((s, p) => s + p.purged.analytics, 0)).to.equal(5);
    } finally {
      await second?.close();
    }
  });

  describe('GET /usage/analytics?days=N reaches back at most as far as the plan keeps', () => {
    const refused = async (p: Promise<unknown>) => {
      const err = await p.then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(AppError);
      return err as AppError;
    };

    for (const [plan, days] of Object.entries(WINDOW) as Array<[keyof typeof WINDOW, number]>) {
      it(`${plan}: ${days} days answered, ${days + 1} refused naming the limit`, async () => {
        const a = await account('a', plan);
        const usage = new UsageService(store, billing, clock);
        await usage.analytics(a, days);
        const err = await refused(usage.analytics(a, days + 1));
        expect(err.status).to.equal(400);
        expect(err.code).to.equal('invalid_input');
        expect(err.detail).to.equal(`days must be at most ${days} on the ${plan} plan`);
      });
    }

    it('enterprise: any number of days by default; its own window when set (and the default days shrink to fit it)', async () => {
      const a = await account('e', 'enterprise');
      const usage = new UsageService(store, billing, clock);
      await usage.analytics(a, 36_500);
      await billing.setCustomLimits('e', { retentionDays: 7 });
      expect((await refused(usage.analytics(a, 8))).detail).to.equal('days must be at most 7 on the enterprise plan');
      await usage.analytics(a, 7);
      await usage.analytics(a); // the default of 30 days would ask for more than is kept
    });
  });
});
