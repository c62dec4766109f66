// One render's page state (storage, cookies, IndexedDB, caches, window.name)
// is invisible to the next, on the same page after a reset and on the other pages of the pool;
// popups are blocked by the browser, so window.open returns null and no target is created.
// Real Chromium, function configs on the keys of two accounts.
import { expect } from 'chai';
import type { CDPSession, Page } from 'puppeteer-core';
import { post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

const DATA = { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2] }] };

/** A bar chart whose title is what `fn` (a function string, run in the page) returns. */
const titled = (fn: string) => ({ type: 'bar', data: DATA, options: { plugins: { title: { display: true, text: fn } } } });

// What account A leaves behind: every kind of storage the page can reach. The asynchronous
// ones (IndexedDB, Cache Storage) are also written and awaited directly on the pages below.
const WRITE = `function () {
  try { localStorage.setItem('leak', 'A-local'); } catch (e) {}
  try { sessionStorage.setItem('leak', 'A-session'); } catch (e) {}
  try { document.cookie = 'leak=A-cookie; max-age=3600; path=/'; } catch (e) {}
  window.name = 'A-name';
  try { var r = indexedDB.open('leakdb'); r.onupgradeneeded = function () { r.result.createObjectStore('s'); };
    r.onsuccess = function () { r.result.transaction('s', 'readwrite').objectStore('s').put('A-idb', 'k'); }; } catch (e) {}
  try { if (self.caches) caches.open('leakcache').then(function (c) { return c.put('/x', new Response('A-cache')); }); } catch (e) {}
  return 'written';
}`;

// What account B can see, synchronously, as the chart's title.
const READ = `function () {
  var out = [];
  try { out.push('L=' + localStorage.getItem('leak')); } catch (e) { out.push('L=err'); }
  try { out.push('S=' + sessionStorage.getItem('leak')); } catch (e) { out.push('S=err'); }
  out.push('C=' + document.cookie);
  out.push('N=' + window.name);
  return out.join(';');
}`;
const NOTHING = 'L=null;S=null;C=;N=';

/** Evaluates in a page without a user gesture (puppeteer's page.evaluate would grant one). */
async function evalIn(cdp: CDPSession, expression: string): Promise<unknown> {
  const res = (await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })) as {
    result: { value?: unknown };
    exceptionDetails?: { text?: string };
  };
  if (res.exceptionDetails) throw new Error(res.exceptionDetails.text ?? 'page exception');
  return res.result.value;
}

const STORED = `(async () => ({
  local: localStorage.length,
  cookie: document.cookie,
  idb: (await indexedDB.databases()).map((d) => d.name),
  caches: self.caches ? await caches.keys() : [],
}))()`;
const WRITE_AND_WAIT = `(async () => {
  localStorage.setItem('leak', 'direct');
  document.cookie = 'leak=direct; max-age=3600; path=/';
  await new Promise((ok, fail) => {
    const r = indexedDB.open('leakdb');
    r.onupgradeneeded = () => r.result.createObjectStore('s');
    r.onerror = () => fail(r.error);
    r.onsuccess = () => { const tx = r.result.transaction('s', 'readwrite'); tx.objectStore('s').put('v', 'k'); tx.oncomplete = () => { r.result.close(); ok(); }; };
  });
  if (self.caches) await (await caches.open('leakcache')).put('/x', new Response('v'));
  return true;
})()`;

describe('page state is private to one render', function () {
  this.timeout(120000);
  let s: TestServer;
  let keyA: string;
  let keyB: string;

  before(async () => {
    // a page replaced rather than reset loads anew first: a request may wait for it as long as a loaded machine needs
    s = await startTestServer({ poolSize: 2, renderTimeoutMs: 5000, pageMaxRenders: 1000, acquireTimeoutMs: 60000 });
    keyA = (await s.account('starter')).api_key;
    keyB = (await s.account('starter')).api_key;
  });
  after(async () => s?.stop());

  const render = (key: string, chart: unknown) => post(s.url, '/v1/chart', { chart, width: 300, height: 150, format: 'svg' }, apiKey(key));
  const svgOf = async (res: Response) => {
    expect(res.status).to.equal(200);
    return res.text();
  };
  const idle = async () => {
    // Resets run after the response: wait until both pages are back in the pool (a replaced page
    // loads anew: seconds on a loaded machine; the wait ends as soon as both are back).
    await waitFor('both pages back in the pool', () => s.deps.pool.stats().available >= 2, { ms: 60_000, stepMs: 10, state: () => s.deps.pool.stats() });
    expect(s.deps.pool.stats().available).to.equal(2);
  };
  const pages = async (): Promise<Page[]> => {
    const b = s.deps.pool.currentBrowser();
    expect(b, 'browser').to.not.equal(null);
    return b!.pages();
  };

  it("B reads none of A's storage, cookie or window.name: same page after reset and the other page", async () => {
    for (let round = 0; round < 3; round++) {
      expect(await svgOf(await render(keyA, titled(WRITE)))).to.contain('written');
      // Two at once: one lands on A's page (after its reset), the other on the other page.
      const seen = await Promise.all([render(keyB, titled(READ)).then(svgOf), render(keyB, titled(READ)).then(svgOf)]);
      for (const svg of seen) {
        expect(svg).to.not.match(/A-(local|session|cookie|name)/);
        expect(svg).to.contain(NOTHING);
      }
    }
  });

  it('every page lives in a browser context of its own', async () => {
    await idle();
    const ps = await pages();
    expect(ps).to.have.length(2);
    const contexts = new Set(ps.map((p) => p.browserContext()));
    expect(contexts.size).to.equal(2);
    const defaultContext = s.deps.pool.currentBrowser()!.defaultBrowserContext();
    expect(contexts.has(defaultContext)).to.equal(false);
  });

  it('storage written on one page (IndexedDB, Cache Storage included) is not seen by a page running at the same time, and is gone after a reset', async () => {
    await idle();
    const [p1, p2] = await pages();
    const [c1, c2] = [await p1!.createCDPSession(), await p2!.createCDPSession()];
    try {
      expect(await evalIn(c1, WRITE_AND_WAIT)).to.equal(true);
      const written = (await evalIn(c1, STORED)) as { local: number; idb: string[] };
      expect(written.local).to.equal(1);
      expect(written.idb).to.deep.equal(['leakdb']);
      // The other page, running now, sees none of it.
      expect(await evalIn(c2, STORED)).to.deep.equal({ local: 0, cookie: '', idb: [], caches: [] });
    } finally {
      await Promise.all([c1.detach(), c2.detach()]).catch(() => {});
    }
    // Function renders on both pages at once (two different requests: identical ones would be
    // coalesced into one render on one page): each page is reset afterwards.
    await Promise.all([render(keyB, titled('function () { return "reset 1"; }')), render(keyB, titled('function () { return "reset 2"; }'))]);
    await idle();
    for (const p of await pages()) {
      const c = await p.createCDPSession();
      try {
        expect(await evalIn(c, STORED)).to.deep.equal({ local: 0, cookie: '', idb: [], caches: [] });
      } finally {
        await c.detach().catch(() => {});
      }
    }
  });

  it('window.open returns null and no window or target is ever created', async () => {
    await idle();
    const browser = s.deps.pool.currentBrowser()!;
    const before = browser.targets().length;
    const popups = `function () {
      var opened = 0;
      for (var i = 0; i < 50; i++) if (window.open('about:blank', '_blank') !== null) opened++;
      try { var a = document.createElement('a'); a.href = 'about:blank'; a.target = '_blank'; document.body.appendChild(a); a.click(); } catch (e) {}
      return 'opened=' + opened + ';first=' + String(window.open('about:blank'));
    }`;
    const svgs = await Promise.all([render(keyA, titled(popups)).then(svgOf), render(keyB, titled(popups)).then(svgOf)]);
    for (const svg of svgs) expect(svg).to.contain('opened=0;first=null');
    expect(browser.targets().length).to.equal(before);
    await idle();
    expect(browser.targets().length).to.equal(before);
    expect((await pages()).length).to.equal(2);
  });
});
