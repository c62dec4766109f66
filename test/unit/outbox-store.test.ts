// The outbox on every backend: due items are claimed with a lease, so instances sharing a store
// send each once and a claim left by a dead instance is retaken after its lease.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '../../src/store/types.js';
import type { OutboxItem } from '../../src/store/metering.js';
import { AccountService } from '../../src/services/accounts.js';
import { OutboxWorker } from '../../src/services/outbox.js';
import { createLogger } from '../../src/log.js';
import { eachStore } from '../helpers/stores.js';
import { anotherInstance } from '../helpers/instances.js';
import { FakeClock } from '../helpers/clock.js';

const T0 = Date.UTC(2025, 3, 1);
const item = (n: number, kind: OutboxItem['kind'] = 'webhook'): OutboxItem => ({
  kind, accountId: 'acct', target: 'https://hooks.example/h', subject: 'usage_threshold', body: `{"n":${n}}`,
});

/** A local webhook receiver counting deliveries by their X-Chartshot-Delivery id. */
async function receiver(): Promise<{ url: string; seen: Map<string, number>; close(): Promise<void> }> {
  const seen = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const id = String(req.headers['x-chartshot-delivery']);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

eachStore('outbox claims', (store, backend) => {
  it('a claim takes due items of the asked kinds, oldest first, and hides them from other claims until recorded', async () => {
    const o = store().outbox;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await o.enqueue(item(i), T0 + i));
    await o.enqueue(item(9, 'email'), T0);
    await o.enqueue(item(10), T0 + 10_000); // not due yet
    const first = await o.claim('a', T0 + 5, 30_000, 2, ['webhook']);
    expect(first.map((r) => r.id)).to.deep.equal(ids.slice(0, 2));
    const second = await o.claim('b', T0 + 5, 30_000, 10, ['webhook']);
    expect(second.map((r) => r.id)).to.deep.equal([ids[2]]);
    expect(await o.claim('b', T0 + 5, 30_000, 10, ['webhook'])).to.deep.equal([]);
    // a failed attempt ends the claim; the item is due again at its retry time
    await o.failed(ids[0]!, T0 + 100, 'webhook answered 500');
    expect(await o.claim('b', T0 + 50, 30_000, 10, ['webhook'])).to.deep.equal([]);
    const retried = await o.claim('b', T0 + 100, 30_000, 10, ['webhook']);
    expect(retried.map((r) => [r.id, r.attempts, r.lastError])).to.deep.equal([[ids[0], 1, 'webhook answered 500']]);
    await o.delivered(ids[1]!, T0 + 6);
    const [rec] = (await o.list('acct')).filter((r) => r.id === ids[1]);
    expect(rec).to.include({ status: 'delivered', attempts: 1, deliveredAt: T0 + 6 });
    await o.failed(ids[2]!, null, 'gone');
    expect((await o.list()).find((r) => r.id === ids[2])).to.include({ status: 'failed', attempts: 1 });
    expect((await o.claim('c', T0 + 5, 30_000, 10, ['email'])).map((r) => r.kind)).to.deep.equal(['email']);
  });

  it("counts an account's pending items of one subject; delivered and failed ones are not pending", async () => {
    const s = store();
    const test = (n: number, accountId = 'acct'): OutboxItem => ({ ...item(n), accountId, subject: 'test:usage_threshold' });
    const a = await s.outbox.enqueue(test(1), T0);
    const b = await s.outbox.enqueue(test(2), T0);
    await s.outbox.enqueue(item(3), T0);
    await s.outbox.enqueue(test(4, 'other'), T0);
    expect(await s.outbox.pendingCount('acct', 'test:usage_threshold')).to.equal(2);
    await s.outbox.delivered(a, T0);
    await s.outbox.failed(b, null, 'refused');
    expect(await s.outbox.pendingCount('acct', 'test:usage_threshold')).to.equal(0);
    expect(await s.outbox.pendingCount('acct', 'usage_threshold')).to.equal(1);
  });

  it('a claim whose lease passed is taken over by another claimer', async () => {
    const o = store().outbox;
    const id = await o.enqueue(item(1), T0);
    expect((await o.claim('dead', T0, 20_000, 10, ['webhook'])).map((r) => r.id)).to.deep.equal([id]);
    expect(await o.claim('live', T0 + 19_999, 20_000, 10, ['webhook'])).to.deep.equal([]);
    expect((await o.claim('live', T0 + 20_000, 20_000, 10, ['webhook'])).map((r) => r.id)).to.deep.equal([id]);
  });

  it("releasing claims: one owner's, or every owner's (a restart on a store one process uses alone)", async () => {
    const o = store().outbox;
    const a = await o.enqueue(item(1), T0);
    const b = await o.enqueue(item(2), T0);
    await o.claim('x', T0, 60_000, 1, ['webhook']);
    await o.claim('y', T0, 60_000, 1, ['webhook']);
    expect(await o.releaseClaims('x')).to.equal(1);
    expect((await o.claim('z', T0 + 1, 60_000, 10, ['webhook'])).map((r) => r.id)).to.deep.equal([a]);
    expect(await o.releaseClaims(null)).to.equal(2);
    expect((await o.claim('w', T0 + 2, 60_000, 10, ['webhook'])).map((r) => r.id)).to.deep.equal([a, b]);
    // delivered items are not brought back
    await o.delivered(a, T0 + 3);
    await o.releaseClaims(null);
    expect((await o.claim('v', T0 + 4, 60_000, 10, ['webhook'])).map((r) => r.id)).to.deep.equal([b]);
  });

  it('the store says whether one process uses it alone: SQLite yes, PostgreSQL no', () => {
    expect(store().exclusive).to.equal(backend.name === 'SQLite');
  });

  it('parallel claims never hand out the same item twice', async () => {
    const second = backend.name === 'PostgreSQL' ? await anotherInstance(store(), backend) : null;
    try {
      const stores: Store[] = second ? [store(), second] : [store()];
      for (let i = 0; i < 40; i++) await store().outbox.enqueue(item(i), T0);
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % stores.length]!.outbox.claim(`w${i}`, T0, 30_000, 5, ['webhook'])));
      const ids = claims.flat().map((r) => r.id);
      expect(ids).to.have.length(40);
      expect(new Set(ids).size).to.equal(40);
    } finally {
      await second?.close();
    }
  });

  it('two outbox workers on one store (two instances on PostgreSQL) deliver each item exactly once', async () => {
    const second = backend.name === 'PostgreSQL' ? await anotherInstance(store(), backend) : null;
    const hooks = await receiver();
    const clock = new FakeClock(T0);
    const stores: Store[] = [store(), second ?? store()];
    const workers = stores.map(
      (s, i) => new OutboxWorker(s, clock, createLogger('silent'), { masterKey: Buffer.alloc(32, 3), smtpUrl: null, allowPrivate: true, instanceId: `w${i}`, pollMs: 0 }),
    );
    try {
      const acct = await new AccountService(store(), Buffer.alloc(32, 3), clock).createAccount('starter', null);
      const ids: number[] = [];
      for (let i = 0; i < 30; i++) ids.push(await store().outbox.enqueue({ ...item(i), accountId: acct.account_id, target: hooks.url }, T0));
      // both workers poll together until nothing is due
      for (let round = 0; round < 10; round++) {
        const attempted = await Promise.all(workers.map((w) => w.tick()));
        if (attempted.every((n) => n === 0)) break;
      }
      expect([...hooks.seen.keys()].sort()).to.deep.equal(ids.map(String).sort());
      expect([...hooks.seen.values()].every((n) => n === 1)).to.equal(true);
      expect((await store().outbox.list(acct.account_id)).every((r) => r.status === 'delivered' && r.attempts === 1)).to.equal(true);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await hooks.close();
      await second?.close();
    }
  });
});
