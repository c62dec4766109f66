// The authentication cache: a recent key's rows are reused, but no change to a key or an
// account outlives it: in-process writes drop it at once, and other processes' commits (SQLite
// data_version) or other instances' (PostgreSQL LISTEN/NOTIFY) as soon as the store sees them;
// without that signal (a store lacking authVersion) a revocation elsewhere holds at most
// AUTH_CACHE_MS. The second store plays the CLI in another process, or another instance.
import { expect } from 'chai';
import type { PgStore } from '../../src/store/pg/index.js';
import { AUTH_LISTENER_NAME } from '../../src/store/pg/authVersion.js';
import { AccountService, AUTH_CACHE_MS } from '../../src/services/accounts.js';
import type { Store } from '../../src/store/types.js';
import { AppError } from '../../src/errors.js';
import { FakeClock, DAY } from '../helpers/clock.js';
import { rejection } from '../helpers/rejection.js';
import { eachStore } from '../helpers/stores.js';
import { execSql, serverAndCli } from '../helpers/instances.js';
import { waitFor } from '../helpers/poll.js';

const refused = (p: Promise<unknown>): Promise<AppError> => rejection(p, AppError);

eachStore('authentication cache', (current, backend) => {
  const master = Buffer.alloc(32, 3);
  const pg = backend.name === 'PostgreSQL';
  let beside: Awaited<ReturnType<typeof serverAndCli>>;
  let store: Store;
  let cli: Store;
  let clock: FakeClock;

  beforeEach(async () => {
    beside = await serverAndCli(current, backend);
    ({ store, cli } = beside);
    clock = new FakeClock();
  });
  afterEach(async () => {
    await beside.close();
  });

  /** Until `store` has seen every change committed so far (notifications arrive a moment after a commit). */
  const settled = async (s: Store = store) => {
    if (pg) await (s as PgStore).authSettled();
  };

  /** Counts the key reads of a store (the reads the cache saves). */
  function counting(s: Store, withVersion = true): { store: Store; reads: () => number } {
    let n = 0;
    const keys = { ...s.keys, findByHash: (h: string) => (n++, s.keys.findByHash(h)), find: (id: string) => (n++, s.keys.find(id)) };
    const wrapped = Object.assign(Object.create(null), s, { keys }) as Store & { authVersion?: () => number };
    if (!withVersion) delete wrapped.authVersion;
    else wrapped.authVersion = () => s.authVersion!();
    return { store: wrapped, reads: () => n };
  }

  it('reuses a recent authentication instead of reading the key again', async () => {
    const c = counting(store);
    const svc = new AccountService(c.store, master, clock);
    const a = await svc.createAccount('starter', null);
    await settled();
    await svc.authenticateKey(a.api_key);
    await svc.authenticateKey(a.api_key);
    await svc.authenticateKeyId(a.key_id);
    await svc.authenticateKeyId(a.key_id);
    expect(c.reads()).to.equal(2);
    clock.advance(AUTH_CACHE_MS);
    await svc.authenticateKey(a.api_key);
    expect(c.reads()).to.equal(3);
  });

  it('a key revoked by another process or instance stops working as soon as the store sees the commit', async () => {
    const svc = new AccountService(store, master, clock);
    const a = await svc.createAccount('starter', null);
    await settled();
    expect((await svc.authenticateKey(a.api_key)).account.id).to.equal(a.account_id);
    expect(await new AccountService(cli, master, clock).revokeKey(a.key_id)).to.equal(true);
    await settled(); // SQLite: at once (data_version); PostgreSQL: its notification has arrived
    expect((await refused(svc.authenticateKey(a.api_key))).status).to.equal(401);
    expect((await refused(svc.authenticateKeyId(a.key_id))).status).to.equal(401);
  });

  it('without that signal, a revocation elsewhere holds at most AUTH_CACHE_MS', async () => {
    const c = counting(store, false);
    const svc = new AccountService(c.store, master, clock);
    const a = await svc.createAccount('starter', null);
    await svc.authenticateKey(a.api_key);
    await new AccountService(cli, master, clock).revokeKey(a.key_id);
    clock.advance(AUTH_CACHE_MS);
    expect((await refused(svc.authenticateKey(a.api_key))).status).to.equal(401);
  });

  it('a key revoked, or an account terminated, in this process stops working at once', async () => {
    const svc = new AccountService(store, master, clock);
    const a = await svc.createAccount('starter', null);
    const b = await svc.createAccount('starter', null);
    await svc.authenticateKey(a.api_key);
    await svc.authenticateKey(b.api_key);
    await svc.revokeKey(a.key_id);
    expect((await refused(svc.authenticateKey(a.api_key))).status).to.equal(401);
    await store.accounts.update(b.account_id, { status: 'terminated' });
    expect((await refused(svc.authenticateKey(b.api_key))).status).to.equal(401);
  });

  it('a plan change applies to the next request', async () => {
    const svc = new AccountService(store, master, clock);
    const a = await svc.createAccount('starter', null);
    expect((await svc.authenticateKey(a.api_key)).plan.name).to.equal('starter');
    await store.accounts.update(a.account_id, { plan: 'growth' });
    expect((await svc.authenticateKey(a.api_key)).plan.name).to.equal('growth');
  });

  it('a cached trial key still expires on time', async () => {
    const svc = new AccountService(store, master, clock);
    const a = await svc.createAccount('trial', null);
    await svc.authenticateKey(a.api_key);
    clock.advance(30 * DAY);
    const err = await refused(svc.authenticateKey(a.api_key));
    expect(err.status).to.equal(401);
    expect(err.detail).to.match(/expired/);
  });

  if (pg) {
    it('another instance changing an account, a key or a billing record changes the version', async () => {
      const svc = new AccountService(store, master, clock);
      const a = await svc.createAccount('starter', null);
      for (const change of [
        () => cli.accounts.update(a.account_id, { plan: 'growth' }),
        () => new AccountService(cli, master, clock).revokeKey(a.key_id),
        () => execSql(cli, 'UPDATE billing SET dunning_stage = dunning_stage WHERE false'),
      ]) {
        await settled();
        const before = store.authVersion!();
        expect(store.authVersion!(), 'steady while nothing changes').to.equal(before);
        await change();
        await settled();
        expect(store.authVersion!()).to.not.equal(before);
      }
    });

    it('while the listening connection is lost the version changes on every call; it comes back by itself', async () => {
      const db = (store as PgStore).db;
      const before = store.authVersion!();
      const killed = await db.exec(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [AUTH_LISTENER_NAME],
      );
      expect(killed).to.be.at.least(1);
      // lost: no two reads agree, so nothing is cached on a signal that may miss changes
      await waitFor('the loss is noticed', () => store.authVersion!() !== store.authVersion!(), { ms: 20_000, stepMs: 10 });
      const svc = new AccountService(store, master, clock);
      const a = await svc.createAccount('starter', null);
      // back: steady again, and different from every value read before or during the loss
      await waitFor('listening again', () => store.authVersion!() === store.authVersion!(), { ms: 20_000, stepMs: 10 });
      const after = store.authVersion!();
      expect(after).to.be.greaterThan(before);
      await settled();
      await svc.authenticateKey(a.api_key);
      await new AccountService(cli, master, clock).revokeKey(a.key_id);
      await settled();
      expect((await refused(svc.authenticateKey(a.api_key))).status, 'notifications flow again').to.equal(401);
    });
  }
});
