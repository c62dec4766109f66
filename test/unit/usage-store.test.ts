// Usage counters on every backend: reservations with an owner and a lease, commits, totals and
// thresholds; a trial's cap holds exactly across two instances sharing one database.
import { expect } from 'chai';
import type { Account, ApiKey, Store } from '../../src/store/types.js';
import type { AuthContext } from '../../src/services/accounts.js';
import { BillingService } from '../../src/services/billing/index.js';
import { UsageService } from '../../src/services/usage.js';
import { PLANS } from '../../src/rules/plans.js';
import { eachStore } from '../helpers/stores.js';
import { anotherInstance } from '../helpers/instances.js';
import { FakeClock } from '../helpers/clock.js';

const T0 = Date.UTC(2025, 3, 1);
const stat = { renderMs: 40, cacheHit: false };
const lease = (owner: string, now = T0, leaseMs = 60_000) => ({ owner, now, leaseMs });

/** A trial caller as authentication would build it (the usage family needs no account row). */
function trialCaller(id: string): AuthContext {
  const account: Account = { id, email: null, plan: 'trial', status: 'active', createdAt: T0 };
  const key: ApiKey = { id: `key_${id}`, accountId: id, kind: 'trial', prefix: 'trial_x', createdAt: T0, expiresAt: null, revokedAt: null };
  return { account, key, plan: PLANS.trial };
}

eachStore('usage store', (store, backend) => {
  it('reserve counts against the cap until committed or released; commit counts once', async () => {
    const u = store().usage;
    const a = await u.reserve('acct', 0, 2, lease('i1'));
    const b = await u.reserve('acct', 0, 2, lease('i1'));
    expect(a).to.be.a('number');
    expect(b).to.be.a('number').and.not.equal(a);
    expect(await u.reserve('acct', 0, 2, lease('i1'))).to.equal(null);
    expect(await u.get('acct', 0)).to.deep.equal({ used: 0, reserved: 2 });
    expect(await u.commit('acct', 0, a, 20000, stat)).to.equal(1);
    await u.release(b!);
    expect(await u.get('acct', 0)).to.deep.equal({ used: 1, reserved: 0 });
    expect(await u.reserve('acct', 0, 2, lease('i1'))).to.be.a('number');
    expect(await u.reserve('acct', 0, null, lease('i1'))).to.be.a('number'); // no cap
  });

  it("a reservation whose lease passed no longer counts; an instance's start clears only its own and expired ones", async () => {
    const u = store().usage;
    await u.setUsed('acct', 0, 8);
    expect(await u.reserve('acct', 0, 10, lease('dead', T0, 1000))).to.be.a('number');
    expect(await u.reserve('acct', 0, 10, lease('live', T0, 60_000))).to.be.a('number');
    expect(await u.reserve('acct', 0, 10, lease('live', T0 + 500))).to.equal(null); // both still held
    // the dead instance's lease is over: its slot is free again, the live one's is not
    expect(await u.reserve('acct', 0, 10, lease('live', T0 + 1000))).to.be.a('number');
    expect(await u.reserve('acct', 0, 10, lease('live', T0 + 1000))).to.equal(null);
    expect((await u.get('acct', 0)).reserved).to.equal(2);

    await u.reserve('other', 0, null, lease('restarting', T0, 60_000));
    await u.reserve('other', 0, null, lease('live', T0, 60_000));
    await u.clearReservations('restarting', T0 + 2000);
    expect((await u.get('other', 0)).reserved).to.equal(1);
    expect((await u.get('acct', 0)).reserved).to.equal(2);
    // a store one process uses alone: a restart drops every reservation, whoever made it
    // (UsageService.start asks for that when store.exclusive)
    await u.clearReservations(null, T0 + 2000);
    expect((await u.get('other', 0)).reserved).to.equal(0);
    expect((await u.get('acct', 0)).reserved).to.equal(0);
  });

  it('commit without a reservation, daily totals and request counts', async () => {
    const u = store().usage;
    expect(await u.commit('acct', T0, null, 100, stat)).to.equal(1);
    expect(await u.commit('acct', T0, null, 100, { renderMs: 0, cacheHit: true })).to.equal(2);
    expect(await u.commit('acct', T0, null, 101, { renderMs: 60, cacheHit: false })).to.equal(3);
    await u.recordRequest('acct', 100, true);
    await u.recordRequest('acct', 100, false);
    await u.recordRequest('acct', 102, true);
    expect(await u.totals('acct', 100, 101)).to.deep.equal({ requests: 2, succeeded: 1, renders: 2, renderMs: 100, cacheHits: 1 });
    expect(await u.totals('acct', 100, 102)).to.include({ requests: 3, succeeded: 2 });
    expect(await u.totals('nobody', 0, 1000)).to.deep.equal({ requests: 0, succeeded: 0, renders: 0, renderMs: 0, cacheHits: 0 });
    await u.setUsed('acct', T0, 50);
    expect((await u.get('acct', T0)).used).to.equal(50);
  });

  it('a generation counted before its render: its render time added later, or its count taken back', async () => {
    const u = store().usage;
    expect(await u.commit('acct', T0, null, 200, { renderMs: 0, cacheHit: false })).to.equal(1);
    expect(await u.commit('acct', T0, null, 200, { renderMs: 0, cacheHit: false })).to.equal(2);
    await u.addRenderMs('acct', 200, 12.5);
    await u.uncount('acct', T0, 200);
    expect((await u.get('acct', T0)).used).to.equal(1);
    expect(await u.totals('acct', 200, 200)).to.deep.equal({ requests: 0, succeeded: 0, renders: 1, renderMs: 12.5, cacheHits: 0 });
    // render time of a day with nothing else yet; a take-back never goes below zero
    await u.addRenderMs('acct', 201, 3);
    await u.uncount('other', T0, 200);
    expect((await u.get('other', T0)).used).to.equal(0);
    expect(await u.totals('acct', 201, 201)).to.include({ renders: 0, renderMs: 3 });
  });

  it('a threshold is marked once and its notifications enqueued once, even when marked concurrently', async () => {
    const u = store().usage;
    const note = { kind: 'webhook' as const, accountId: 'acct', target: 'https://hooks.example/x', subject: 'usage_threshold', body: '{}' };
    const firsts = await Promise.all([1, 2, 3, 4].map(() => u.markThreshold('acct', T0, 80, T0, [note])));
    expect(firsts.filter(Boolean)).to.have.length(1);
    expect(await u.markThreshold('acct', T0, 95, T0, [note])).to.equal(true);
    expect(await store().outbox.list('acct')).to.have.length(2);
  });

  it('50 parallel admits on a trial with 10 generations left give exactly 10 (two instances on PostgreSQL)', async function () {
    const second = backend.name === 'PostgreSQL' ? await anotherInstance(store(), backend) : null;
    try {
      const stores: Store[] = [store(), second ?? store()];
      const clock = new FakeClock(T0);
      const services = stores.map((s, i) => new UsageService(s, new BillingService(s, clock, 'https://charts.example'), clock, { instanceId: `i${i}` }));
      await store().usage.setUsed('acct_trial', 0, PLANS.trial.chartsPerPeriod! - 10);
      const caller = trialCaller('acct_trial');
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          services[i % 2]!.admit(caller).then(
            async (ticket) => {
              await ticket.commit({ renderMs: 5 });
              return 'admitted';
            },
            (err: { code?: string }) => err.code,
          ),
        ),
      );
      expect(outcomes.filter((o) => o === 'admitted')).to.have.length(10);
      expect(outcomes.filter((o) => o === 'trial_limit_reached')).to.have.length(40);
      expect(await store().usage.get('acct_trial', 0)).to.deep.equal({ used: PLANS.trial.chartsPerPeriod, reserved: 0 });
    } finally {
      await second?.close();
    }
  });

  it("on a shared store a restarting instance keeps another instance's reservations; a released ticket frees its slot", async () => {
    const clock = new FakeClock(T0);
    // as several instances share it (SQLite is only ever used by one process: there start clears all)
    const s = { ...store(), exclusive: false };
    const [a, b] = ['a', 'b'].map((id) => new UsageService(s, new BillingService(s, clock, 'https://charts.example'), clock, { instanceId: id }));
    await s.usage.setUsed('acct_trial', 0, PLANS.trial.chartsPerPeriod! - 2);
    const caller = trialCaller('acct_trial');
    const held = await a!.admit(caller);
    const mine = await b!.admit(caller);
    await b!.start(); // b restarts: its own reservation is gone, a's stays
    expect((await s.usage.get('acct_trial', 0)).reserved).to.equal(1);
    await mine.release(); // settling a ticket whose reservation was cleared is harmless
    const again = await b!.admit(caller);
    let refused: { code?: string } | null = null;
    await a!.admit(caller).catch((e: { code?: string }) => (refused = e));
    expect(refused).to.have.property('code', 'trial_limit_reached');
    await held.release();
    await again.commit({ renderMs: 5 });
    expect(await s.usage.get('acct_trial', 0)).to.deep.equal({ used: PLANS.trial.chartsPerPeriod! - 1, reserved: 0 });
  });
});
