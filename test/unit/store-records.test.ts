// The store contract for accounts, keys, sessions, cached images and short charts: the same
// assertions on SQLite and PostgreSQL, a chart, its image and its count committing together.
import { expect } from 'chai';
import { eachStore } from '../helpers/stores.js';
import { countRows, execSql, sqlOne } from '../helpers/instances.js';
import { renderRequest } from '../helpers/requests.js';
import type { Account, ApiKey, ChartRecord, Store, StoredImage } from '../../src/store/types.js';
import type { GenerationCount } from '../../src/store/metering.js';

const T = Date.UTC(2030, 0, 1);
const account = (id: string, over: Partial<Account> = {}): Account => ({ id, email: `${id}@example.com`, plan: 'starter', status: 'active', createdAt: T, ...over });
const key = (id: string, accountId: string, createdAt = T): ApiKey => ({
  id, accountId, kind: 'live', prefix: `live_${id}`, createdAt, expiresAt: null, revokedAt: null,
});
const image = (body: Buffer, expiresAt: number | null = null): StoredImage => ({ contentType: 'image/png', etag: '"e"', body, createdAt: T, expiresAt });
const chart = (id: string, accountId = 'acct_1'): ChartRecord => ({ id, accountId, keyId: 'key_1', request: renderRequest(), digest: 'd', createdAt: T });
const count = (over: Partial<GenerationCount> = {}): GenerationCount => ({
  accountId: 'acct_1', periodStart: T, reservation: null, day: 20000, stat: { renderMs: 12.5, cacheHit: false }, ...over,
});

eachStore('accounts, keys and sessions', (current) => {
  let store: Store;
  beforeEach(() => {
    store = current();
  });

  it('an account is created, found and updated field by field', async () => {
    await store.accounts.create(account('acct_1'));
    expect(await store.accounts.find('acct_1')).to.deep.equal(account('acct_1'));
    expect(await store.accounts.find('acct_none')).to.equal(null);
    await store.accounts.update('acct_1', { plan: 'growth' });
    expect(await store.accounts.find('acct_1')).to.deep.include({ plan: 'growth', status: 'active', email: 'acct_1@example.com' });
    await store.accounts.update('acct_1', { status: 'suspended', email: null });
    expect(await store.accounts.find('acct_1')).to.deep.include({ plan: 'growth', status: 'suspended', email: null });
    await store.accounts.update('acct_1', {});
    expect(await store.accounts.find('acct_1')).to.deep.include({ plan: 'growth', status: 'suspended' });
    let thrown: unknown = null;
    await store.accounts.create(account('acct_1')).catch((e: unknown) => (thrown = e));
    expect(thrown, 'an id is taken once').to.be.instanceOf(Error);
  });

  it('keys: found by hash and by id, listed oldest first, revoked once', async () => {
    await store.accounts.create(account('acct_1'));
    await store.accounts.create(account('acct_2'));
    await store.keys.create(key('key_b', 'acct_1', T + 1), 'hash-b');
    await store.keys.create(key('key_a', 'acct_1', T + 1), 'hash-a');
    await store.keys.create(key('key_c', 'acct_1', T), 'hash-c');
    await store.keys.create(key('key_x', 'acct_2'), 'hash-x');
    expect(await store.keys.findByHash('hash-a')).to.deep.equal(key('key_a', 'acct_1', T + 1));
    expect(await store.keys.findByHash('hash-none')).to.equal(null);
    expect(await store.keys.find('key_x')).to.deep.equal(key('key_x', 'acct_2'));
    expect(await store.keys.find('key_none')).to.equal(null);
    expect((await store.keys.listByAccount('acct_1')).map((k) => k.id)).to.deep.equal(['key_c', 'key_a', 'key_b']);
    expect(await store.keys.listByAccount('acct_none')).to.deep.equal([]);
    expect(await store.keys.revoke('key_a', T + 5)).to.equal(true);
    expect(await store.keys.revoke('key_a', T + 9), 'already revoked').to.equal(false);
    expect(await store.keys.revoke('key_none', T + 9)).to.equal(false);
    expect(await store.keys.find('key_a')).to.include({ revokedAt: T + 5 });
    let thrown: unknown = null;
    await store.keys.create(key('key_y', 'acct_2'), 'hash-x').catch((e: unknown) => (thrown = e));
    expect(thrown, 'a hash belongs to one key').to.be.instanceOf(Error);
  });

  it('sessions: created and found by their token hash', async () => {
    await store.accounts.create(account('acct_1'));
    await store.sessions.create('tok-hash', { accountId: 'acct_1', createdAt: T, expiresAt: T + 3_600_000 });
    expect(await store.sessions.findByHash('tok-hash')).to.deep.equal({ accountId: 'acct_1', expiresAt: T + 3_600_000 });
    expect(await store.sessions.findByHash('other')).to.equal(null);
  });
});

eachStore('cached images', (current) => {
  let store: Store;
  beforeEach(() => {
    store = current();
  });

  it('put, get, overwrite and delete keep every byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    await store.images.put('open:a', image(bytes, T + 1000));
    const got = await store.images.get('open:a');
    expect(got).to.deep.equal(image(bytes, T + 1000));
    expect(Buffer.isBuffer(got!.body)).to.equal(true);
    await store.images.put('open:a', { ...image(Buffer.from('svg'), null), contentType: 'image/svg+xml', etag: '"f"' });
    expect(await store.images.get('open:a')).to.deep.include({ contentType: 'image/svg+xml', etag: '"f"', expiresAt: null });
    expect(await store.images.openCacheBytes()).to.equal(3);
    await store.images.delete('open:a');
    await store.images.delete('open:a');
    expect(await store.images.get('open:a')).to.equal(null);
    expect(await store.images.openCacheBytes()).to.equal(0);
  });

  it('an image of many megabytes is stored whole', async () => {
    const big = Buffer.alloc(24 * 1024 * 1024, 7);
    big[big.length - 1] = 9;
    await store.images.put('chart:big', image(big));
    const got = await store.images.get('chart:big');
    expect(got!.body.length).to.equal(big.length);
    expect(got!.body.equals(big)).to.equal(true);
  });

  it('purgeExpired removes only what expired before now, and says how many', async () => {
    await store.images.put('open:old', image(Buffer.from('a'), T - 1));
    await store.images.put('open:now', image(Buffer.from('b'), T));
    await store.images.put('open:never', image(Buffer.from('c'), null));
    expect(await store.images.purgeExpired(T)).to.equal(1);
    expect(await store.images.get('open:old')).to.equal(null);
    expect(await store.images.get('open:now')).to.not.equal(null);
    expect(await store.images.get('open:never')).to.not.equal(null);
    expect(await store.images.openCacheBytes()).to.equal(2);
  });
});

eachStore('short charts', (current) => {
  let store: Store;
  beforeEach(async () => {
    store = current();
    await store.accounts.create(account('acct_1'));
  });

  it('a chart is stored with its image; find and exists see it', async () => {
    expect(await store.charts.createWithImage(chart('c1'), { key: 'chart:c1', image: image(Buffer.from('png')) }, null)).to.equal(null);
    expect(await store.charts.find('c1')).to.deep.equal(chart('c1'));
    expect(await store.charts.exists('c1')).to.equal(true);
    expect(await store.charts.exists('c2')).to.equal(false);
    expect(await store.charts.find('c2')).to.equal(null);
    expect(await store.images.get('chart:c1')).to.deep.include({ etag: '"e"' });
    expect(await countRows(store, 'usage_counters')).to.equal(0);
  });

  it('an image keeps what drew it (X-Chartshot-Renderer), through a put and a counted chart create; none recorded reads as none', async () => {
    const drawn = 'chartjs=2.9.4; chromium=1.2.3.4; fonts=0123abcd';
    await store.images.put('open:r', { ...image(Buffer.from('r')), renderer: drawn });
    expect((await store.images.get('open:r'))?.renderer).to.equal(drawn);
    expect(await store.charts.createWithImage(chart('c1'), { key: 'chart:c1', image: { ...image(Buffer.from('1')), renderer: drawn } }, count())).to.equal(1);
    expect((await store.images.get('chart:c1'))?.renderer).to.equal(drawn);
    await store.images.put('open:none', image(Buffer.from('n')));
    expect(await store.images.get('open:none')).to.not.have.property('renderer');
  });

  it('a chart keeps the time zone and locale it was drawn in: its re-renders draw in them for good', async () => {
    const zoned = { ...chart('cz'), request: { ...chart('cz').request, timezone: 'Australia/Lord_Howe', locale: 'ar-EG' } };
    await store.charts.createWithImage(zoned, { key: 'chart:cz', image: image(Buffer.from('z')) }, null);
    const found = await store.charts.find('cz');
    expect(found).to.deep.equal(zoned);
    expect([found!.request.timezone, found!.request.locale]).to.deep.equal(['Australia/Lord_Howe', 'ar-EG']);
  });

  it('its generation is counted with it: used goes up, a reservation is turned into a count', async () => {
    expect(await store.charts.createWithImage(chart('c1'), { key: 'chart:c1', image: image(Buffer.from('1')) }, count())).to.equal(1);
    expect(await store.charts.createWithImage(chart('c2'), { key: 'chart:c2', image: image(Buffer.from('2')) }, count({ stat: { renderMs: 0, cacheHit: true } }))).to.equal(2);
    expect(await sqlOne(store, 'SELECT renders, render_ms, cache_hits FROM usage_daily')).to.deep.equal({ renders: 1, render_ms: 12.5, cache_hits: 1 });
    // a trial's generation was reserved at admission: the count takes the reservation's place
    await store.usage.setUsed('acct_1', 0, 4);
    const lease = { owner: 'instance-a', now: T, leaseMs: 60_000 };
    const reservation = await store.usage.reserve('acct_1', 0, 100, lease);
    expect(await store.usage.reserve('acct_1', 0, 100, lease)).to.be.a('number');
    expect(await store.charts.createWithImage(chart('c3'), { key: 'chart:c3', image: image(Buffer.from('3')) }, count({ periodStart: 0, reservation }))).to.equal(5);
    expect(await store.usage.get('acct_1', 0)).to.deep.include({ used: 5, reserved: 1 });
  });

  it('a failing count write leaves no chart, no image and no count', async () => {
    await execSql(store, 'ALTER TABLE usage_daily RENAME TO usage_daily_away');
    try {
      let thrown: unknown = null;
      await store.charts.createWithImage(chart('c1'), { key: 'chart:c1', image: image(Buffer.from('png')) }, count()).catch((e: unknown) => (thrown = e));
      expect(thrown).to.be.instanceOf(Error);
    } finally {
      await execSql(store, 'ALTER TABLE usage_daily_away RENAME TO usage_daily');
    }
    expect(await store.charts.exists('c1')).to.equal(false);
    expect(await store.images.get('chart:c1')).to.equal(null);
    expect(await countRows(store, 'usage_counters')).to.equal(0);
    // and the store works on
    expect(await store.charts.createWithImage(chart('c1'), { key: 'chart:c1', image: image(Buffer.from('png')) }, count())).to.equal(1);
  });

  it('a chart id is taken once: the second create writes neither its image nor its count', async () => {
    await store.charts.createWithImage(chart('c1'), { key: 'chart:c1', image: image(Buffer.from('png')) }, null);
    let thrown: unknown = null;
    await store.charts.createWithImage(chart('c1'), { key: 'chart:other', image: image(Buffer.from('png')) }, count()).catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
    expect(await store.images.get('chart:other')).to.equal(null);
    expect(await countRows(store, 'usage_counters')).to.equal(0);
  });

  it('parallel creates each count once', async () => {
    const used = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.charts.createWithImage(chart(`p${i}`), { key: `chart:p${i}`, image: image(Buffer.from('x')) }, count())),
    );
    expect([...used].sort((a, b) => a! - b!)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
