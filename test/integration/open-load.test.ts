// The per-IP limit of the open endpoint under concurrent load, on loopback only: with
// TRUST_PROXY the client IP is the right-most X-Forwarded-For entry, so one test process can
// play several clients. Bounded: about 50 requests, at most 4 in flight, small images.
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Clock } from '../../src/clock.js';
import { probeRenders } from '../helpers/renders.js';
import { whileRendersHeld } from '../helpers/crash.js';

const LIMIT = 5;
const HOUR_MS = 3_600_000;

class ManualClock implements Clock {
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

interface Outcome {
  status: number;
  tier: string | null;
  retryAfter: string | null;
  error?: string;
}

/** Runs the requests with at most `concurrency` in flight; results in request order. */
async function runAll(base: string, reqs: Array<{ path: string; ip?: string }>, concurrency = 4): Promise<Outcome[]> {
  const out: Outcome[] = new Array(reqs.length);
  let next = 0;
  async function worker() {
    while (next < reqs.length) {
      const i = next++;
      const { path, ip } = reqs[i]!;
      const res = await fetch(base + path, { headers: ip ? { 'x-forwarded-for': ip } : {}, signal: AbortSignal.timeout(20000) });
      const o: Outcome = { status: res.status, tier: res.headers.get('x-cache-tier'), retryAfter: res.headers.get('retry-after') };
      if (res.status === 200) await res.arrayBuffer();
      else o.error = ((await res.json()) as { error: string }).error;
      out[i] = o;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

const chart = (n: number, w = 120) => `/v1/open/chart?type=bar&data=${n},${n + 1},${n + 2}&w=${w}&h=80`;

describe('open endpoint: per-IP limit under load', function () {
  this.timeout(60000);

  describe('TRUST_PROXY=true (client IP from X-Forwarded-For)', () => {
    let s: TestServer;
    const clock = new ManualClock(Date.UTC(2030, 0, 1, 12, 0, 0));
    // the anonymous deadline as long as a keyed one: one test holds a render in a frozen page
    // for as long as this machine needs to send four requests
    before(async () => (s = await startTestServer({ poolSize: 1, trustProxy: true, openRendersPerHour: LIMIT, anonymousRenderTimeoutMs: 10000 }, { clock })));
    after(() => s?.stop());

    it('one IP over its limit gets 429 rate_limited with Retry-After while another IP is still served', async () => {
      const A = '203.0.113.7';
      const B = '198.51.100.9';
      // 30 distinct charts from A, 5 from B, interleaved: 35 cache misses
      const reqs: Array<{ path: string; ip: string }> = [];
      for (let i = 0; i < 30; i++) {
        reqs.push({ path: chart(i), ip: A });
        if (i % 6 === 5) reqs.push({ path: chart(1000 + i), ip: B });
      }
      const started = Date.now();
      const res = await runAll(s.url, reqs);
      const elapsed = Date.now() - started;
      const fromA = res.filter((_, i) => reqs[i]!.ip === A);
      const fromB = res.filter((_, i) => reqs[i]!.ip === B);
      expect(fromB.map((r) => r.status), 'B is served').to.deep.equal([200, 200, 200, 200, 200]);
      expect(fromA.filter((r) => r.status === 200).length, 'A gets exactly its limit').to.equal(LIMIT);
      const limited = fromA.filter((r) => r.status === 429);
      expect(limited.length).to.equal(30 - LIMIT);
      for (const r of limited) {
        expect(r.error).to.equal('rate_limited');
        const wait = Number(r.retryAfter);
        expect(wait).to.be.within(1, 3600);
      }
      // the clock stands still: A's first render frees a slot exactly one hour later
      expect(limited[0]!.retryAfter).to.equal('3600');
      console.log(`      (${reqs.length} requests, ${LIMIT} + 5 renders, ${elapsed} ms)`);
    });

    it('cache hits are free: A, over its limit, still gets the images already rendered', async () => {
      // which of A's charts were rendered is up to the race above: find one in the cache
      let served = 0;
      for (let i = 0; i < 30 && served === 0; i++) {
        const res = await fetch(s.url + chart(i), { headers: { 'x-forwarded-for': '203.0.113.7' } });
        await res.arrayBuffer();
        if (res.status === 200) {
          expect(res.headers.get('x-cache-tier')).to.equal('edge');
          served++;
        } else expect(res.status).to.equal(429);
      }
      expect(served).to.equal(1);
      // and B's images are free for A too
      const other = await fetch(s.url + chart(1005), { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(other.status).to.equal(200);
      expect(other.headers.get('x-cache-tier')).to.equal('edge');
    });

    it('the right-most X-Forwarded-For entry is the client: a spoofed left part changes nothing', async () => {
      const res = await fetch(s.url + chart(5000), { headers: { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' } });
      expect(res.status).to.equal(429);
      const fresh = await fetch(s.url + chart(5001), { headers: { 'x-forwarded-for': '203.0.113.7, 192.0.2.44' } });
      expect(fresh.status).to.equal(200);
    });

    it('identical requests in flight together cost one render of the window', async () => {
      const C = '192.0.2.10';
      const same = Array.from({ length: 4 }, () => ({ path: chart(7000, 200), ip: C }));
      // held in a real busy pool (frozen renderers) until all four joined the one render
      const probe = probeRenders(s);
      const res = await whileRendersHeld(s, () => runAll(s.url, same, 4), () => s.deps.open.callersInFlight(), 4);
      expect(res.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
      expect(res.map((r) => r.tier), 'all joined the one render').to.deep.equal(['miss', 'miss', 'miss', 'miss']);
      expect(probe.count).to.equal(1);
      // 4 more distinct renders fit in C's window of 5, the next does not
      const more = await runAll(s.url, [7001, 7002, 7003, 7004, 7005].map((n) => ({ path: chart(n), ip: C })), 1);
      expect(more.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 429]);
    });

    it('an IPv6 client is limited per /64', async () => {
      const ips = ['2001:db8:77:1::1', '2001:db8:77:1::2', '2001:db8:77:1:ffff::3'];
      const res = await runAll(s.url, [0, 1, 2, 3, 4, 5].map((n) => ({ path: chart(8000 + n), ip: ips[n % 3] })), 1);
      expect(res.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 429]);
    });

    it('an hour later A renders again', async () => {
      clock.advance(HOUR_MS + 1000);
      const res = await fetch(s.url + chart(9000), { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-cache-tier')).to.equal('miss');
    });
  });

  describe('TRUST_PROXY=false (client IP from the socket)', () => {
    let s: TestServer;
    before(async () => (s = await startTestServer({ poolSize: 1, trustProxy: false, openRendersPerHour: 2 })));
    after(() => s?.stop());

    it('X-Forwarded-For is ignored: changing it does not escape the limit', async () => {
      const res = await runAll(s.url, [1, 2, 3].map((n) => ({ path: chart(n), ip: `198.51.100.${n}` })), 1);
      expect(res.map((r) => r.status)).to.deep.equal([200, 200, 429]);
      expect(res[2]!.error).to.equal('rate_limited');
    });
  });
});
