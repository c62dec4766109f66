// Invoice PDFs: printing passes a gate of its own (one print at a time, a
// bounded queue, 503 past it), an invoice is printed once and then served from the store, and
// a plain render still gets its page during a burst of downloads. Real Chromium.
import { expect } from 'chai';
import type { Browser, Target } from 'puppeteer-core';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { FakeClock } from '../helpers/clock.js';
import { apiKey, bytes } from '../helpers/client.js';

const T0 = Date.UTC(2025, 3, 1);
const NEXT = Date.UTC(2025, 4, 1);

/** Counts the browser's page targets as they come and go; `max` is the most open at once. */
function pageWatcher(browser: Browser) {
  const isPage = (t: Target) => t.type() === 'page';
  const w = { open: browser.targets().filter(isPage).length, max: 0, created: 0 };
  w.max = w.open;
  const created = (t: Target) => {
    if (!isPage(t)) return;
    w.created++;
    w.open++;
    w.max = Math.max(w.max, w.open);
  };
  const destroyed = (t: Target) => {
    if (isPage(t)) w.open--;
  };
  browser.on('targetcreated', created);
  browser.on('targetdestroyed', destroyed);
  return Object.assign(w, {
    stop() {
      browser.off('targetcreated', created);
      browser.off('targetdestroyed', destroyed);
    },
  });
}

describe('invoice PDFs go through a gate and are printed once', function () {
  this.timeout(180000);
  const POOL = 2;
  let s: TestServer;
  let clock: FakeClock;
  const get = (path: string, token: string) => fetch(s.url + path, { headers: { authorization: `Bearer ${token}` } });

  /** `n` accounts, each with one issued invoice; returns [session token, invoice id] pairs. */
  async function invoices(n: number): Promise<Array<[string, string]>> {
    clock.set(T0);
    const accounts = [];
    for (let i = 0; i < n; i++) accounts.push(await s.deps.accounts.createAccount('starter', null));
    clock.set(NEXT);
    await s.deps.billing.runScheduler();
    const out: Array<[string, string]> = [];
    for (const a of accounts) {
      const token = (await s.deps.accounts.createSession(a.account_id)).session_token;
      const [inv] = await s.deps.store.billing.invoices(a.account_id);
      out.push([token, inv!.id]);
    }
    return out;
  }

  before(async () => {
    clock = new FakeClock(T0);
    s = await startTestServer({ poolSize: POOL }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => s?.stop());

  it('40 parallel downloads of one invoice print it once, open at most one extra page, and later downloads are served from the store', async () => {
    const [[token, id]] = await invoices(1);
    const watch = pageWatcher(s.deps.pool.currentBrowser()!);
    const printedBefore = s.deps.pool.stats().prints!.printed;
    try {
      const responses = await Promise.all(Array.from({ length: 40 }, () => get(`/billing/invoices/${id}/pdf`, token!)));
      const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, type: r.headers.get('content-type'), body: await bytes(r) })));
      for (const b of bodies) {
        expect(b.status).to.equal(200);
        expect(b.type).to.equal('application/pdf');
        expect(b.body.equals(bodies[0]!.body)).to.equal(true);
      }
      expect(bodies[0]!.body.subarray(0, 5).toString()).to.equal('%PDF-');
      expect(s.deps.pool.stats().prints!.printed - printedBefore, 'prints').to.equal(1);
      expect(watch.created, 'pages created').to.equal(1);
      expect(watch.max, 'pages open at once').to.be.at.most(POOL + 1);

      // Stored: another download prints nothing and opens no page.
      const again = await get(`/billing/invoices/${id}/pdf`, token!);
      expect(again.status).to.equal(200);
      expect((await bytes(again)).equals(bodies[0]!.body)).to.equal(true);
      expect(s.deps.pool.stats().prints!.printed - printedBefore).to.equal(1);
      expect(watch.created).to.equal(1);
    } finally {
      watch.stop();
    }
  });

  it('parallel downloads of many invoices never print more than one at a time; the overflow is 503 with Retry-After; a plain render still gets a page', async () => {
    const list = await invoices(16);
    const key = (await s.account('starter')).api_key;
    const watch = pageWatcher(s.deps.pool.currentBrowser()!);
    let maxRunning = 0;
    const sampler = setInterval(() => (maxRunning = Math.max(maxRunning, s.deps.pool.stats().prints!.running)), 5);
    try {
      const downloads = list.map(([token, id]) => get(`/billing/invoices/${id}/pdf`, token));
      const plain = await post(s.url, '/v1/chart', { chart: BAR, width: 200, height: 100 }, apiKey(key));
      expect(plain.status, 'plain render during the burst').to.equal(200);
      const responses = await Promise.all(downloads);
      let ok = 0;
      for (const r of responses) {
        if (r.status === 200) {
          ok++;
          expect(r.headers.get('content-type')).to.equal('application/pdf');
        } else {
          expect(r.status).to.equal(503);
          expect(((await r.json()) as { error: string }).error).to.equal('service_unavailable');
          expect(Number(r.headers.get('retry-after'))).to.be.at.least(1);
        }
        if (r.bodyUsed === false) await r.arrayBuffer();
      }
      expect(ok, 'some downloads served').to.be.greaterThan(0);
      expect(watch.max, 'pages open at once').to.be.at.most(POOL + 1);
      expect(maxRunning, 'prints at once').to.be.at.most(1);
      // Whatever was refused succeeds when asked again one at a time.
      for (const [token, id] of list) expect((await get(`/billing/invoices/${id}/pdf`, token)).status).to.equal(200);
      expect(watch.max, 'pages open at once').to.be.at.most(POOL + 1);
    } finally {
      clearInterval(sampler);
      watch.stop();
    }
  });
});
