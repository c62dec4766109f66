// The authentication cache: a recent key's rows are reused, but no change to a key or an
// account outlives it: in-process writes and other processes' commits drop it at once, and
// without that signal (a store lacking authVersion) a revocation elsewhere holds at most
// AUTH_CACHE_MS. Real SQLite files; the second store plays the CLI in another process.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { AccountService, AUTH_CACHE_MS } from '../../src/services/accounts.js';
import type { Store } from '../../src/store/types.js';
import { AppError } from '../../src/errors.js';
import { FakeClock, DAY } from '../helpers/clock.js';
import { rejection } from '../helpers/rejection.js';

const refused = (p: Promise<unknown>): Promise<AppError> => rejection(p, AppError);

describe('authentication cache', () => {
  const master = Buffer.alloc(32, 3);
  let dir: string;
  let store: SqliteStore;
  let cli: SqliteStore;
  let clock: FakeClock;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chartshot-authcache-'));
    store = createSqliteStore(dir);
    cli = createSqliteStore(dir);
    clock = new FakeClock();
  });
  afterEach(async () => {
    await store.close();
    await cli.close();
    rmSync(dir, { recursive: true, force: true });
  });

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
    await svc.authenticateKey(a.api_key);
    await svc.authenticateKey(a.api_key);
    await svc.authenticateKeyId(a.key_id);
    await svc.authenticateKeyId(a.key_id);
    expect(c.reads()).to.equal(2);
    clock.advance(AUTH_CACHE_MS);
    await svc.authenticateKey(a.api_key);
    expect(c.reads()).to.equal(3);
  });

  it('a key revoked by another process stops working at once (SQLite data_version)', async () => {
    const svc = new AccountService(store, master, clock);
    const a = await svc.createAccount('starter', null);
    expect((await svc.authenticateKey(a.api_key)).account.id).to.equal(a.account_id);
    expect(await new AccountService(cli, master, clock).revokeKey(a.key_id)).to.equal(true);
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
});
