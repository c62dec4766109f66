// The dashboard's store family on every backend: sign-in sessions kept by hash, expiry purge,
// keys' last use, daily usage rows, top charts by hits, accounts by e-mail, the purge of a
// terminated account.
import { expect } from 'chai';
import type { Store } from '../../src/store/types.js';
import { eachStore } from '../helpers/stores.js';

const T0 = Date.UTC(2025, 3, 1);
const DAY0 = Math.floor(T0 / 86_400_000);

async function account(store: Store, id: string, email: string | null = null, status: 'active' | 'terminated' = 'active') {
  await store.accounts.create({ id, email, plan: 'starter', status, createdAt: T0 });
}

eachStore('dashboard store', (store) => {
  it('keeps a session by its hash, with its CSRF token; deletes it on sign-out', async () => {
    const s = store();
    await account(s, 'acct_a');
    await s.dashboard.createSession('hash1', { accountId: 'acct_a', csrf: 'csrf1', createdAt: T0, expiresAt: T0 + 1000 });
    expect(await s.dashboard.findSession('hash1')).to.deep.equal({ accountId: 'acct_a', csrf: 'csrf1', createdAt: T0, expiresAt: T0 + 1000 });
    expect(await s.dashboard.findSession('hash2')).to.equal(null);
    await s.dashboard.deleteSession('hash1');
    expect(await s.dashboard.findSession('hash1')).to.equal(null);
  });

  it('purges expired sessions only', async () => {
    const s = store();
    await account(s, 'acct_a');
    await s.dashboard.createSession('old', { accountId: 'acct_a', csrf: 'c', createdAt: T0, expiresAt: T0 + 10 });
    await s.dashboard.createSession('new', { accountId: 'acct_a', csrf: 'c', createdAt: T0, expiresAt: T0 + 1000 });
    expect(await s.dashboard.purgeExpiredSessions(T0 + 10)).to.equal(1);
    expect(await s.dashboard.findSession('old')).to.equal(null);
    expect(await s.dashboard.findSession('new')).to.not.equal(null);
  });

  it("records keys' last use (a later time wins) per account", async () => {
    const s = store();
    await s.dashboard.touchKey('key_1', 'acct_a', T0 + 50);
    await s.dashboard.touchKey('key_1', 'acct_a', T0 + 10);
    await s.dashboard.touchKey('key_2', 'acct_a', T0 + 20);
    await s.dashboard.touchKey('key_3', 'acct_b', T0 + 30);
    expect([...(await s.dashboard.keysLastUsed('acct_a'))].sort()).to.deep.equal([['key_1', T0 + 50], ['key_2', T0 + 20]]);
  });

  it('reads the daily usage rows of a window, oldest first', async () => {
    const s = store();
    for (const d of [DAY0 - 2, DAY0, DAY0 - 400]) await s.usage.recordRequest('acct_a', d, true);
    await s.usage.recordRequest('acct_a', DAY0, false);
    await s.usage.recordRequest('acct_b', DAY0, true);
    const rows = await s.dashboard.dailyUsage('acct_a', DAY0 - 30, DAY0);
    expect(rows.map((r) => [r.day, r.requests, r.succeeded])).to.deep.equal([[DAY0 - 2, 1, 1], [DAY0, 2, 1]]);
  });

  it("lists the account's charts by hits, most first, bounded", async () => {
    const s = store();
    await account(s, 'acct_a');
    await account(s, 'acct_b');
    const req = { config: { type: 'bar' }, width: 10, height: 10, format: 'png' as const, backgroundColor: null, allowFunctions: false, watermark: null };
    const img = { contentType: 'image/png', etag: 'e', body: Buffer.from('x'), createdAt: T0, expiresAt: null };
    for (const [id, acct] of [['c1', 'acct_a'], ['c2', 'acct_a'], ['c3', 'acct_a'], ['c4', 'acct_b']] as const) {
      await s.charts.createWithImage({ id, accountId: acct, keyId: 'k', request: req, digest: id, createdAt: T0 }, { key: `chart:${id}`, image: img }, null);
    }
    await s.chartMetrics.addBatch([
      { chartId: 'c1', hitCount: 5, errorCount: 0, renderCount: 1, renderMsTotal: 10, lastAccessed: T0 },
      { chartId: 'c2', hitCount: 9, errorCount: 1, renderCount: 2, renderMsTotal: 30, lastAccessed: T0 + 1 },
      { chartId: 'c4', hitCount: 99, errorCount: 0, renderCount: 1, renderMsTotal: 10, lastAccessed: T0 },
    ]);
    const top = await s.dashboard.topCharts('acct_a', 10);
    expect(top.map((t) => [t.chartId, t.hitCount])).to.deep.equal([['c2', 9], ['c1', 5]]);
    expect(top[0]).to.include({ errorCount: 1, renderCount: 2, renderMsTotal: 30, lastAccessed: T0 + 1, createdAt: T0 });
    expect(await s.dashboard.topCharts('acct_a', 1)).to.have.length(1);
  });

  it('finds live accounts by e-mail, case-insensitively', async () => {
    const s = store();
    await account(s, 'acct_a', 'Ops@Example.com');
    await account(s, 'acct_b', 'other@example.com');
    await account(s, 'acct_c', 'gone@example.com', 'terminated');
    expect(await s.dashboard.accountsByEmail('ops@example.COM')).to.deep.equal(['acct_a']);
    expect(await s.dashboard.accountsByEmail('gone@example.com')).to.deep.equal([]);
    expect(await s.dashboard.accountsByEmail('%')).to.deep.equal([]);
  });

  it('matches sign-in by the address given at creation, not a later edit of the warning address', async () => {
    const s = store();
    await account(s, 'acct_a', 'owner@example.com');
    await account(s, 'acct_b');
    await s.accounts.update('acct_b', { email: 'owner@example.com' });
    await s.accounts.update('acct_a', { email: 'warnings@example.com' });
    expect(await s.dashboard.accountsByEmail('owner@example.com')).to.deep.equal(['acct_a']);
    expect(await s.dashboard.accountsByEmail('warnings@example.com')).to.deep.equal([]);
  });

  it("deletes every session of one account, and trims an account's sessions to the newest", async () => {
    const s = store();
    await account(s, 'acct_a');
    await account(s, 'acct_b');
    for (let i = 0; i < 4; i++) await s.dashboard.createSession(`a${i}`, { accountId: 'acct_a', csrf: 'c', createdAt: T0 + i, expiresAt: T0 + 1000 });
    await s.dashboard.createSession('b0', { accountId: 'acct_b', csrf: 'c', createdAt: T0, expiresAt: T0 + 1000 });
    expect(await s.dashboard.trimSessions('acct_a', 2)).to.equal(2);
    expect(await s.dashboard.findSession('a0')).to.equal(null);
    expect(await s.dashboard.findSession('a1')).to.equal(null);
    expect(await s.dashboard.findSession('a3')).to.not.equal(null);
    expect(await s.dashboard.trimSessions('acct_a', 2)).to.equal(0);
    expect(await s.dashboard.deleteAccountSessions('acct_a')).to.equal(2);
    expect(await s.dashboard.findSession('a2')).to.equal(null);
    expect(await s.dashboard.findSession('b0')).to.not.equal(null);
  });

  it("a terminated account's purge signs it out and forgets its keys' use", async () => {
    const s = store();
    await account(s, 'acct_a');
    await account(s, 'acct_b');
    await s.dashboard.createSession('ha', { accountId: 'acct_a', csrf: 'c', createdAt: T0, expiresAt: T0 + 1000 });
    await s.dashboard.createSession('hb', { accountId: 'acct_b', csrf: 'c', createdAt: T0, expiresAt: T0 + 1000 });
    await s.dashboard.touchKey('key_a', 'acct_a', T0);
    await s.purgeAccountData('acct_a');
    expect(await s.dashboard.findSession('ha')).to.equal(null);
    expect(await s.dashboard.findSession('hb')).to.not.equal(null);
    expect((await s.dashboard.keysLastUsed('acct_a')).size).to.equal(0);
  });
});
