// The shared parts in Redis: the hot image tier (bounded in bytes, expiring with the image)
// and the render leases that make two instances render an uncached chart once.
import { expect } from 'chai';
import { redisHotTier, decodeImage, encodeImage } from '../../src/store/redis/hotTier.js';
import { redisFlights } from '../../src/store/redis/flights.js';
import type { RedisLink } from '../../src/store/redis/client.js';
import { ImageCache } from '../../src/services/imageCache.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import type { StoredImage } from '../../src/store/types.js';
import { FakeClock } from '../helpers/clock.js';
import { OwnRedis, testLink } from '../helpers/redis.js';
import { probeRenders } from '../helpers/renders.js';
import { freezeRenderers } from '../helpers/crash.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/poll.js';

const T0 = Date.UTC(2026, 3, 1, 10, 0, 0);
const img = (bytes: number, expiresAt: number | null = T0 + 60_000, fill = 7): StoredImage => ({
  body: Buffer.alloc(bytes, fill),
  contentType: 'image/png',
  etag: `"e${bytes}-${fill}"`,
  createdAt: T0,
  expiresAt,
});

/** A promise and the function that settles it. */
function deferred(): [Promise<void>, () => void] {
  let settle!: () => void;
  const p = new Promise<void>((r) => (settle = r));
  return [p, settle];
}

describe('Redis hot image tier and render leases', function () {
  this.timeout(60000);
  const links: RedisLink[] = [];
  const stores: SqliteStore[] = [];
  const link = async (prefix?: string) => {
    const t = await testLink(prefix);
    links.push(t.link);
    return t;
  };
  const sqlite = () => {
    const s = createSqliteStore(':memory:');
    stores.push(s);
    return s;
  };
  after(async () => {
    await Promise.all(links.map((l) => l.close()));
    await Promise.all(stores.map((s) => s.close()));
  });

  describe('hot tier', () => {
    it('keeps an image whole, and for as long as the image lives', async () => {
      const { link: l } = await link();
      const hot = redisHotTier(l, 1024 * 1024);
      const a = img(5000);
      await hot.put('open:a', a, T0);
      expect(await hot.get('open:a', T0)).to.deep.equal(a);
      const ttl = await l.redis.pttl('hot:open:a');
      expect(ttl).to.be.within(1, 60_000);
      await hot.put('chart:forever', img(10, null), T0);
      expect(await l.redis.pttl('hot:chart:forever')).to.equal(-1);
      // already expired: not worth a slot
      await hot.put('open:old', img(10, T0 - 1), T0);
      expect(await hot.get('open:old', T0)).to.equal(null);
    });

    it('what drew an image travels with it (X-Chartshot-Renderer); an image without it decodes without it', () => {
      const drawn = { ...img(3), renderer: 'chartjs=2.9.4; chromium=1.2.3.4; fonts=0123abcd' };
      expect(decodeImage(encodeImage(drawn))).to.deep.equal(drawn);
      expect(decodeImage(encodeImage(img(3)))).to.not.have.property('renderer');
    });

    it('a truncated or foreign value is a miss, not an error', () => {
      expect(decodeImage(Buffer.from([0, 0]))).to.equal(null);
      expect(decodeImage(Buffer.from([0, 0, 0, 200, 1, 2]))).to.equal(null);
      const v = encodeImage(img(3));
      v.write('!', 4);
      expect(decodeImage(v)).to.equal(null);
    });

    it('stays within its byte budget, evicting the least recently used, never an image it took last', async () => {
      const { link: l } = await link();
      const budget = 16_000;
      const hot = redisHotTier(l, budget);
      for (let i = 0; i < 10; i++) {
        await hot.put(`k${i}`, img(1500), T0 + i);
        // k0 is read after every put: it stays the most recently used
        if (i > 0) expect(await hot.get('k0', T0 + i), `k0 after ${i}`).to.not.equal(null);
      }
      for (let i = 10; i < 40; i++) {
        await hot.put(`k${i}`, img(1500), T0 + i);
        await hot.get('k0', T0 + i);
        expect(Number(await l.redis.get('hot:bytes'))).to.be.at.most(budget);
      }
      expect(await hot.get('k0', T0 + 41)).to.not.equal(null);
      expect(await hot.get('k39', T0 + 41)).to.not.equal(null);
      expect(await hot.get('k1', T0 + 41)).to.equal(null);
      // an image over an eighth of the budget stays in the store only
      await hot.put('big', img(budget / 8 + 1), T0);
      expect(await hot.get('big', T0)).to.equal(null);
      // a deleted image gives its bytes back
      const before = Number(await l.redis.get('hot:bytes'));
      await hot.delete('k0');
      expect(await hot.get('k0', T0 + 42)).to.equal(null);
      expect(Number(await l.redis.get('hot:bytes'))).to.be.below(before);
    });

    it('an image cached by one instance is a shared hit on another, whose store never had it', async () => {
      const a = await link();
      const b = await link(a.prefix);
      const clock = new FakeClock(T0);
      const one = new ImageCache(sqlite().images, 1024 * 1024, clock, undefined, redisHotTier(a.link, 1024 * 1024));
      const two = new ImageCache(sqlite().images, 1024 * 1024, clock, undefined, redisHotTier(b.link, 1024 * 1024));
      const stored = await one.put('open:x', Buffer.from('image bytes'), 'image/png', 60_000);
      const hit = await two.get('open:x');
      expect(hit?.tier).to.equal('shared');
      expect(hit?.image.etag).to.equal(stored.etag);
      // then from its own memory
      expect((await two.get('open:x'))?.tier).to.equal('memory');
      // forgotten (a purged chart): gone from the shared tier too
      one.forget('open:x');
      two.clearMemory();
      // one connection answers in order: this reply comes after forget's delete
      expect(await a.link.redis.exists('hot:open:x')).to.equal(0);
      expect(await two.get('open:x')).to.equal(null);
    });
  });

  describe('render leases', () => {
    /** Two instances' leases on one Redis. */
    const pair = async (leaseMs = 30_000) => {
      const a = await link();
      const b = await link(a.prefix);
      const opts = { leaseMs, firstPollMs: 5, maxPollMs: 20 };
      return { a, fa: redisFlights(a.link, opts), fb: redisFlights(b.link, opts) };
    };
    it('two instances asked for the same uncached chart render it once', async () => {
      const { a, fa, fb } = await pair();
      const cache = new Map<string, string>();
      let renders = 0;
      const [gate, release] = deferred();
      const [inRender, entered] = deferred();
      const first = fa.run('open:k', async () => {
        renders++;
        entered();
        await gate;
        cache.set('open:k', 'image');
        return 'image';
      }, async () => cache.get('open:k') ?? null);
      await inRender;
      let polls = 0;
      const second = fb.run('open:k', async () => {
        renders++;
        return 'second render';
      }, async () => {
        // the second instance is waiting on the first one's lease: let the first finish
        if (++polls === 1) release();
        return cache.get('open:k') ?? null;
      });
      expect(await Promise.all([first, second])).to.deep.equal(['image', 'image']);
      expect(renders).to.equal(1);
      expect(await a.link.redis.exists('flight:open:k')).to.equal(0);
    });

    it('when the lease holder fails without an image, the waiting instance renders itself', async () => {
      const { fa, fb } = await pair();
      const [failing, fail] = deferred();
      const [inRender, entered] = deferred();
      const first = fa.run('k', async () => {
        entered();
        await failing;
        throw new Error('render failed');
      }, async () => null);
      await inRender;
      const second = fb.run('k', async () => 'rendered here', async () => {
        fail();
        return null;
      });
      expect(await first.then(() => 'ok', (e: Error) => e.message)).to.equal('render failed');
      expect(await second).to.equal('rendered here');
    });

    it('a lease taken after another instance stored the image answers with it, without rendering', async () => {
      const { link: l } = await link();
      const f = redisFlights(l, { leaseMs: 30_000 });
      let renders = 0;
      expect(await f.run('done', async () => `render ${++renders}`, async () => 'stored image')).to.equal('stored image');
      expect(renders).to.equal(0);
    });

    it('a holder stuck past its lease does not hold the others forever', async () => {
      const { fa, fb } = await pair(200);
      const [inRender, entered] = deferred();
      void fa.run('stuck', () => {
        entered();
        return new Promise<string>(() => {});
      }, async () => null);
      await inRender;
      expect(await fb.run('stuck', async () => 'rendered here', async () => null)).to.equal('rendered here');
    });
  });
});

describe('two servers on one Redis', function () {
  this.timeout(120000);
  let own: OwnRedis;
  const servers: TestServer[] = [];
  before(async () => {
    own = await OwnRedis.create();
    // the anonymous deadline as long as a keyed one: a render is held in a frozen page for as long
    // as this machine needs to start the other server's request
    for (let i = 0; i < 2; i++) servers.push(await startTestServer({ redisUrl: own.url, openRendersPerHour: 100, anonymousRenderTimeoutMs: 10000 }));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await own?.remove();
  });

  it('render an uncached open chart once: the other waits for it and serves the same image', async () => {
    const [s1, s2] = servers as [TestServer, TestServer];
    const renders = [probeRenders(s1), probeRenders(s2)];
    // the first server's render held in its frozen page until the second polls for it
    const frozen = await freezeRenderers(s1);
    const path = `/v1/open/chart?c=${encodeURIComponent(JSON.stringify({ type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [3, 4] }] } }))}&w=220&h=120`;
    let one: Promise<Response>;
    let two: Promise<Response>;
    try {
      one = fetch(s1.url + path);
      await frozen.lent();
      two = fetch(s2.url + path);
      await waitFor('the second server polling for the first one\'s render', () => s2.deps.sharedFlights!.waiting() > 0);
    } finally {
      frozen.thaw();
    }
    const [r1, r2] = await Promise.all([one, two]);
    expect([r1.status, r2.status]).to.deep.equal([200, 200]);
    expect(renders.map((p) => p.count)).to.deep.equal([1, 0]);
    expect(r1.headers.get('etag')).to.equal(r2.headers.get('etag'));
    expect(Buffer.from(await r2.arrayBuffer()).equals(Buffer.from(await r1.arrayBuffer()))).to.equal(true);
    // a third server-side lookup of the same chart, on the second server: its memory now
    const r3 = await fetch(s2.url + path);
    expect(r3.headers.get('x-cache-tier')).to.equal('edge');
    expect(renders.map((p) => p.count)).to.deep.equal([1, 0]);
  });
});

describe('two servers on one database and one Redis', function () {
  this.timeout(120000);
  let own: OwnRedis;
  const servers: TestServer[] = [];
  const clock = new FakeClock(Date.UTC(2026, 3, 1, 10, 0, 0));
  before(async () => {
    own = await OwnRedis.create();
    const first = await startTestServer({ redisUrl: own.url }, { clock });
    servers.push(first, await startTestServer({ redisUrl: own.url, dataDir: first.config.dataDir }, { clock }));
  });
  after(async () => {
    await servers[1]?.stop({ keepData: true });
    await servers[0]?.stop();
    await own?.remove();
  });

  it('re-render an expired short chart once, whichever instance is asked', async () => {
    const [s1, s2] = servers as [TestServer, TestServer];
    const acct = await s1.account('starter');
    const created = await fetch(`${s1.url}/v1/chart/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': acct.api_key },
      body: JSON.stringify({ chart: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } }, width: 200, height: 100 }),
    });
    expect(created.status).to.equal(201);
    const { url } = (await created.json()) as { url: string };
    const path = new URL(url).pathname;
    clock.advance(400 * 86_400_000); // past any plan's cache duration
    const renders = [probeRenders(s1), probeRenders(s2)];
    // the first server's background re-render held in its frozen page until the second polls for it
    const frozen = await freezeRenderers(s1);
    try {
      const stale1 = await fetch(s1.url + path);
      expect(stale1.headers.get('x-cache-tier')).to.equal('stale');
      await frozen.lent();
      const stale2 = await fetch(s2.url + path);
      expect(stale2.headers.get('x-cache-tier')).to.equal('stale');
      await waitFor('the second server polling for the first one\'s re-render', () => s2.deps.sharedFlights!.waiting() > 0);
    } finally {
      frozen.thaw();
    }
    await Promise.all([s1.deps.shortCharts.idle(), s2.deps.shortCharts.idle()]);
    expect(renders.map((p) => p.count)).to.deep.equal([1, 0]);
    const fresh = await fetch(s2.url + path);
    expect(fresh.status).to.equal(200);
    expect(fresh.headers.get('x-cache-tier')).to.equal('edge');
    expect(renders.map((p) => p.count)).to.deep.equal([1, 0]);
  });
});
