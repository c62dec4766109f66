// Round trips to PostgreSQL and Redis per request on the shared store, counted (not timed): a
// render, a trial render, a short chart's creation and a cache hit from the Redis tier.
import { expect } from 'chai';
import type pg from 'pg';
import { Redis } from 'ioredis';
import type { PgStore } from '../../src/store/pg/index.js';
import { testDatabase, type TestDatabase } from '../helpers/services.js';
import { OwnRedis } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock } from '../helpers/clock.js';

type Seen = { pg: string[]; redis: string[] };

/** Lets every statement of the store's pool and every Redis command be seen while `on`. */
function counter(store: PgStore): { seen: Seen; on: boolean; restore(): void } {
  const c = { seen: { pg: [] as string[], redis: [] as string[] }, on: false, restore: () => {} };
  const pool = store.db.pool;
  const connect = pool.connect.bind(pool) as (...a: unknown[]) => unknown;
  const wrapped = new WeakSet<object>();
  const wrap = (client: pg.PoolClient) => {
    if (client && !wrapped.has(client)) {
      wrapped.add(client);
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as { query: unknown }).query = (q: string | { text: string }, ...rest: unknown[]) => {
        if (c.on) c.seen.pg.push((typeof q === 'string' ? q : q.text).replace(/\s+/g, ' ').trim());
        return query(q, ...rest);
      };
    }
    return client;
  };
  (pool as { connect: unknown }).connect = (cb?: (err: Error | undefined, client: pg.PoolClient, done: unknown) => void) =>
    typeof cb === 'function'
      ? connect((err: Error | undefined, client: pg.PoolClient, done: unknown) => cb(err, wrap(client), done))
      : (connect() as Promise<pg.PoolClient>).then(wrap);
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, cmd: { name: string }, ...rest: unknown[]) {
    if (c.on) c.seen.redis.push(cmd.name);
    return (send as (...a: unknown[]) => unknown).call(this, cmd, ...rest);
  } as typeof send;
  c.restore = () => {
    (pool as { connect: unknown }).connect = connect;
    Redis.prototype.sendCommand = send;
  };
  return c;
}

describe('round trips per request on PostgreSQL + Redis', function () {
  this.timeout(120000);
  let db: TestDatabase;
  let own: OwnRedis;
  let s: TestServer;
  let count: ReturnType<typeof counter>;

  before(async () => {
    db = await testDatabase();
    own = await OwnRedis.create();
    // memory tier off: cache hits come from Redis; no scheduler or outbox polling in the counts;
    // a clock that stands still: a cached authentication stays fresh however slow the machine
    s = await startTestServer(
      { databaseUrl: db.url, redisUrl: own.url, masterKey: Buffer.alloc(32, 7), memoryCacheBytes: 0 },
      { clock: new FakeClock(Date.now()), schedulerIntervalMs: 0, outbox: { pollMs: 0 } },
    );
    count = counter(s.deps.store as PgStore);
  });
  after(async () => {
    count?.restore();
    await s?.stop();
    await own?.remove();
    await db?.drop();
  });

  // not the request's: the read below, chart metrics and the hot tier's LRU uses (batched, written on timers)
  const background = /SUM\(requests\)|chart_metrics/;
  const backgroundRedis = new Set(['zadd']);

  /** A first request of the key, then every change it caused is seen: its authentication and billing record stay cached. */
  async function warm(key: string, n: number): Promise<void> {
    for (let i = 0; i < 2; i++) {
      const res = await post('/v1/chart', key, chart(n + i));
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
      await (s.deps.store as PgStore).authSettled();
    }
  }

  /** The statements and commands `fn` causes, request analytics written behind it included. */
  async function during(accountId: string, fn: () => Promise<void>): Promise<Seen> {
    // the analytics of earlier requests are written before counting starts
    await s.deps.store.usage.totals(accountId, 0, 1e9);
    count.seen = { pg: [], redis: [] };
    count.on = true;
    try {
      await fn();
      // waits for the analytics write behind the request
      await s.deps.store.usage.totals(accountId, 0, 1e9);
      return { pg: count.seen.pg.filter((q) => !background.test(q)), redis: count.seen.redis.filter((c) => !backgroundRedis.has(c)) };
    } finally {
      count.on = false;
    }
  }

  const chart = (n: number) => ({ chart: { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [n, 2] }] } }, width: 120, height: 80 });
  const post = (path: string, key: string, body: unknown) =>
    fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });

  it('a render: the count and the analytics (PostgreSQL; the billing record stays cached), the rate limit (Redis)', async () => {
    const acct = await s.account('enterprise');
    await warm(acct.api_key, 1);
    const seen = await during(acct.account_id, async () => {
      const res = await post('/v1/chart', acct.api_key, chart(2));
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
    });
    expect(seen.pg, seen.pg.join('\n')).to.have.length(2);
    expect(seen.pg.filter((q) => q.includes('FROM billing'))).to.deep.equal([]);
    expect(seen.pg.some((q) => /^(BEGIN|COMMIT)/.test(q)), 'no transaction statements').to.equal(false);
    expect(seen.redis).to.have.length(1);
  });

  it('a trial render: its reservation and its count are one statement each', async () => {
    const acct = await s.account('trial');
    await warm(acct.api_key, 3);
    const seen = await during(acct.account_id, async () => {
      const res = await post('/v1/chart', acct.api_key, chart(4));
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
    });
    // the trial's used count, the reservation, the count, the analytics
    expect(seen.pg, seen.pg.join('\n')).to.have.length(4);
    expect(seen.pg.filter((q) => q.includes('chartshot_reserve'))).to.have.length(1);
    expect(seen.redis).to.have.length(1);
    expect((await s.deps.store.usage.get(acct.account_id, 0)).used).to.equal(3);
  });

  it('a short chart: chart, image and count in one statement; its hits from Redis cost one command, answered as the full path answers', async () => {
    const acct = await s.account('enterprise');
    await warm(acct.api_key, 6);
    let url = '';
    const created = await during(acct.account_id, async () => {
      const res = await post('/v1/chart/create', acct.api_key, chart(5));
      expect(res.status).to.equal(201);
      url = ((await res.json()) as { url: string }).url;
    });
    // the chart with its image and count, the analytics: the billing record stays cached
    expect(created.pg, created.pg.join('\n')).to.have.length(2);
    expect(created.pg.filter((q) => q.includes('INSERT INTO charts'))).to.have.length(1);
    // the rate limit and the image into the shared tier
    expect(created.redis).to.have.length(2);

    const path = new URL(url).pathname;
    // the first hit checks the chart exists in the store; hits within the next minute do not
    const full = await fetch(s.url + path);
    const fullBody = Buffer.from(await full.arrayBuffer());
    let short: Response | undefined;
    let shortBody = Buffer.alloc(0);
    const hit = await during(acct.account_id, async () => {
      short = await fetch(s.url + path);
      shortBody = Buffer.from(await short.arrayBuffer());
    });
    expect(hit.pg, hit.pg.join('\n')).to.deep.equal([]);
    expect(hit.redis).to.deep.equal(['get']);
    const headers = (r: Response) => {
      const out: Record<string, string> = {};
      r.headers.forEach((v, k) => {
        if (k !== 'date' && k !== 'x-request-id') out[k] = v;
      });
      return out;
    };
    expect(short!.status).to.equal(200);
    expect(headers(short!)).to.deep.equal(headers(full));
    expect(short!.headers.get('x-cache-tier')).to.equal('edge');
    expect(shortBody.equals(fullBody)).to.equal(true);
    // a conditional hit from Redis: 304, as the full path answers it
    const nm = await fetch(s.url + path, { headers: { 'if-none-match': full.headers.get('etag')! } });
    expect(nm.status).to.equal(304);
  });
});
