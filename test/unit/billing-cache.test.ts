// The billing record cached between requests: a render reads it once, then not again while no
// change can have reached it; a change made by this process applies to its next request at once,
// a change made by another process or instance (the second store) as soon as the store has seen it.
import { expect } from 'chai';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import { sqliteBilling } from '../../src/store/sqlite/billing.js';
import type { PgStore } from '../../src/store/pg/index.js';
import { pgBilling } from '../../src/store/pg/billing.js';
import type { BillingStore } from '../../src/store/metering.js';
import { firstRecord } from '../../src/services/billing/records.js';
import type { Store } from '../../src/store/types.js';
import type { RateDecision } from '../../src/rules/rateLimit.js';
import { PLANS } from '../../src/rules/plans.js';
import { AccountService } from '../../src/services/accounts.js';
import { BillingService } from '../../src/services/billing/index.js';
import { BILLING_CACHE_MS } from '../../src/services/billing/recordCache.js';
import { UsageService } from '../../src/services/usage.js';
import { AppError } from '../../src/errors.js';
import { DAY, FakeClock } from '../helpers/clock.js';
import { rejection } from '../helpers/rejection.js';
import { eachStore } from '../helpers/stores.js';
import { serverAndCli } from '../helpers/instances.js';

const T0 = Date.UTC(2025, 3, 1); // 1 April: the first period ends on 1 May
const MAY = Date.UTC(2025, 4, 1);
const BASE_URL = 'https://charts.example';

eachStore('billing record cache', (current, backend) => {
  const pg = backend.name === 'PostgreSQL';
  let beside: Awaited<ReturnType<typeof serverAndCli>>;
  let store: Store;
  let cli: Store;
  let clock: FakeClock;
  let reads: number;
  let accounts: AccountService;
  let usage: UsageService;
  let billing: BillingService;

  /** `store` with its billing reads counted; without authVersion when `withVersion` is false. */
  function counting(s: Store, withVersion: boolean): Store {
    const billingStore = { ...s.billing, get: (id: string) => (reads++, s.billing.get(id)) };
    const wrapped = Object.assign(Object.create(null), s, { billing: billingStore }) as Store & { authVersion?: () => number };
    if (!withVersion) delete wrapped.authVersion;
    else wrapped.authVersion = () => s.authVersion!();
    return wrapped;
  }

  const serve = (withVersion = true) => {
    usage = new UsageService(counting(store, withVersion), billing, clock);
  };

  beforeEach(async () => {
    beside = await serverAndCli(current, backend);
    ({ store, cli } = beside);
    clock = new FakeClock(T0);
    reads = 0;
    accounts = new AccountService(store, Buffer.alloc(32, 5), clock);
    billing = new BillingService(store, clock, BASE_URL);
    serve();
  });
  afterEach(async () => {
    await beside.close();
  });

  /** Until `store` has seen every change committed so far (SQLite: at once; PostgreSQL: the notifications are in). */
  const settled = async () => {
    if (pg) await (store as PgStore).authSettled();
  };

  /** An enterprise account with its billing record and custom limits, everything about it seen. */
  async function enterprise(limits: { perMinute: number; burst: number; charts?: number }) {
    const a = await accounts.createAccount('enterprise', null);
    await billing.setCustomLimits(a.account_id, { perMinute: limits.perMinute, perHour: 100_000, burst: limits.burst, charts: limits.charts ?? null });
    await settled();
    return a;
  }

  /** One request as the server makes it: authentication, the rate limits, admission and the count. */
  async function render(key: string): Promise<RateDecision> {
    const auth = await accounts.authenticateKey(key);
    let decision: RateDecision | undefined;
    await usage.gate(auth, (d) => (decision = d), true);
    const ticket = await usage.admit(auth);
    await ticket.commit({ renderMs: 1 });
    return decision!;
  }
  const peek = async (key: string) => usage.rateCheck(await accounts.authenticateKey(key), false);
  const limited = async (key: string) => (await rejection(render(key), AppError)).status;

  it('a render reads the record once (rate limits and period share it), then not again until BILLING_CACHE_MS or a clock set back', async () => {
    const a = await enterprise({ perMinute: 1000, burst: 1000 });
    await render(a.api_key);
    expect(reads).to.equal(1);
    await render(a.api_key);
    await render(a.api_key);
    expect(reads).to.equal(1);
    clock.advance(BILLING_CACHE_MS);
    await render(a.api_key);
    expect(reads).to.equal(2);
    clock.advance(-1);
    await render(a.api_key);
    expect(reads).to.equal(3);
    expect((await store.usage.get(a.account_id, T0)).used).to.equal(5);
  });

  it('a store that cannot signal changes (no authVersion) is read on every request', async () => {
    serve(false);
    const a = await enterprise({ perMinute: 1000, burst: 1000 });
    await render(a.api_key);
    await render(a.api_key);
    expect(reads).to.equal(2);
  });

  it('a cached record still gives the next period once its period has ended by the clock', async () => {
    const a = await accounts.createAccount('starter', null);
    await billing.record((await store.accounts.find(a.account_id))!);
    await settled();
    clock.set(MAY - 1000);
    await render(a.api_key);
    clock.set(MAY + 1000);
    await render(a.api_key);
    expect(reads, 'the second render used the cached record').to.equal(1);
    expect((await store.usage.get(a.account_id, T0)).used).to.equal(1);
    expect((await store.usage.get(a.account_id, MAY)).used).to.equal(1);
  });

  it('every write to a billing record is counted by the store at once, before any notification could be', async () => {
    let told = 0;
    const wrote = () => void told++;
    const b: BillingStore = pg ? pgBilling((store as PgStore).db, wrote) : sqliteBilling((store as SqliteStore).db, wrote);
    const a = await accounts.createAccount('starter', null);
    const rec = firstRecord((await store.accounts.find(a.account_id))!);
    await b.ensure(rec);
    expect(told, 'ensure').to.equal(1);
    await b.update(a.account_id, { customCharts: 5 });
    expect(told, 'update').to.equal(2);
    const inv = { id: 'inv_1', accountId: a.account_id, issuedAt: T0 + DAY, periodStart: T0, periodEnd: T0 + DAY, plan: 'starter' as const,
      cycle: 'monthly' as const, lines: [], totalPence: 0, status: 'paid' as const, paidAt: T0 + DAY };
    expect(await b.closePeriod(a.account_id, rec.periodStart, inv, { periodStart: T0 + DAY })).to.equal(true);
    expect(told, 'closePeriod').to.equal(3);
    // the store itself is wired the same way: its version moves with a billing write, no wait
    const v = store.authVersion!();
    await store.billing.update(a.account_id, { customCharts: 6 });
    expect(store.authVersion!()).to.not.equal(v);
  });

  for (const who of ['this process', 'another process or instance'] as const) {
    const own = who === 'this process';
    /** The billing service of the writer; its change is awaited as a request would see it. */
    const writer = () => (own ? billing : new BillingService(cli, clock, BASE_URL));
    // own writes must apply at once: no waiting for the store's change signal
    const seen = async () => {
      if (!own) await settled();
    };

    it(`${who}: set-limits lowering the per-minute limit applies to the next request`, async () => {
      const a = await enterprise({ perMinute: 1000, burst: 1000 });
      expect((await render(a.api_key)).limit).to.equal(1000);
      await writer().setCustomLimits(a.account_id, { perMinute: 1, perHour: 100_000, burst: 2 });
      await seen();
      // the clock stands still: the bucket, capped at its new size, refills nothing
      expect((await render(a.api_key)).limit).to.equal(2);
      await render(a.api_key);
      expect(await limited(a.api_key)).to.equal(429);
      expect((await peek(a.api_key)).remaining).to.equal(0);
    });

    it(`${who}: a period closed by hand: the next generation counts in the new period`, async () => {
      const a = await enterprise({ perMinute: 1000, burst: 1000, charts: 1000 });
      const closeAt = T0 + 10 * DAY;
      clock.set(closeAt);
      await render(a.api_key);
      await render(a.api_key);
      expect(reads).to.equal(1);
      const inv = await writer().closePeriodNow(a.account_id);
      expect(inv).to.include({ periodStart: T0, periodEnd: closeAt });
      await seen();
      await render(a.api_key);
      expect((await store.usage.get(a.account_id, T0)).used, 'the closed period').to.equal(2);
      expect((await store.usage.get(a.account_id, closeAt)).used, 'the new period').to.equal(1);
    });

    it(`${who}: a plan change applies its limits to the next request`, async () => {
      const a = await enterprise({ perMinute: 5, burst: 5 });
      expect((await render(a.api_key)).limit).to.equal(5);
      await writer().changePlan(a.account_id, 'growth');
      await seen();
      expect((await render(a.api_key)).limit).to.equal(PLANS.growth.rate.burst);
      await writer().changePlan(a.account_id, 'enterprise');
      await seen();
      expect((await render(a.api_key)).limit, 'the custom limits again').to.equal(5);
    });
  }
});
