// Anonymous traffic cannot write into what others receive: an open-endpoint image, or a keyless
// QuickChart one, is kept in the open cache only when the page that drew it passed the state
// check after its render (renderer-page/harness/page-state.js). One drawn on a page whose shared
// state had changed is answered with Cache-Control: no-store and never stored, so the next
// identical request renders again on the reset page; one drawn on a clean page is cached. The
// change is made from outside a render (the canvas's fillText replaced by a no-op, as a library
// could leave it), so the poisoned image visibly lacks its text. Real Chromium, one page.
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bytes } from '../helpers/client.js';
import { isPng } from '../helpers/images.js';
import { poolIdle } from '../helpers/sinks.js';
import { probeRenders } from '../helpers/renders.js';
import { waitFor } from '../helpers/poll.js';
import { QUICKCHART_CACHE } from '../../src/http/routes/quickchart.js';

const CHART = { type: 'bar', data: { labels: ['Q1', 'Q2', 'Q3'], datasets: [{ label: 'Revenue', data: [12, 19, 7] }] }, options: { plugins: { title: { display: true, text: 'Quarterly' } } } };

interface Got {
  status: number;
  body: Buffer;
  cacheControl: string | null;
  tier: string | null;
}

describe('the open cache keeps only images drawn on a page that passed the state check', function () {
  this.timeout(180_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ poolSize: 1, quickchartAnonymous: true, openRendersPerHour: 1_000_000, acquireTimeoutMs: 60_000 });
  });
  after(async () => s?.stop());

  const get = async (path: string): Promise<Got> => {
    const res = await fetch(`${s.url}${path}`);
    const body = await bytes(res);
    return { status: res.status, body, cacheControl: res.headers.get('cache-control'), tier: res.headers.get('x-cache-tier') };
  };

  /** Replaces fillText on the pool's page once it is idle and loaded: its next render draws no text and fails the state check. */
  async function dirtyThePage(): Promise<void> {
    await poolIdle(() => s.deps.pool.stats());
    const browser = s.deps.pool.currentBrowser();
    expect(browser, 'browser').to.not.equal(null);
    await waitFor('the loaded page', async () => {
      let dirtied = 0;
      for (const p of await browser!.pages()) {
        dirtied += await p
          .evaluate(() => {
            const c = (window as unknown as { chartshot?: { ready: boolean } }).chartshot;
            if (!c?.ready) return 0;
            CanvasRenderingContext2D.prototype.fillText = function () {};
            return 1;
          })
          .catch(() => 0);
      }
      return dirtied === 1;
    }, { ms: 60_000 });
  }

  it('open endpoint: the image of a page that failed the check is not cached; the next identical request renders again and is cached', async () => {
    const url = `/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(CHART), w: '400', h: '240' })}`;
    const renders = probeRenders(s);
    await dirtyThePage();
    const poisoned = await get(url);
    expect(poisoned.status).to.equal(200);
    expect(isPng(poisoned.body)).to.equal(true);
    expect(poisoned.cacheControl, 'not to be cached by anyone').to.equal('no-store');
    expect(poisoned.tier).to.equal('miss');
    expect(renders.count).to.equal(1);

    const again = await get(url);
    expect(again.status).to.equal(200);
    expect(again.tier, 'rendered again, not served from the cache').to.equal('miss');
    expect(renders.count).to.equal(2);
    expect(again.body.equals(poisoned.body), 'the page was reset: the text is drawn again').to.equal(false);
    expect(again.cacheControl).to.match(/immutable/);

    const cached = await get(url);
    expect(cached.tier, 'a clean page: cached').to.not.equal('miss');
    expect(renders.count).to.equal(2);
    expect(cached.body.equals(again.body)).to.equal(true);
  });

  it('keyless QuickChart /chart (Chart.js 2) and /chart/create: the same', async () => {
    const q = (c: unknown) => new URLSearchParams({ c: JSON.stringify(c), width: '400', height: '240' }).toString();
    // the page is switched to Chart.js 2 by a first keyless render of another chart
    expect((await get(`/chart?${q({ ...CHART, type: 'line' })}`)).status).to.equal(200);
    const renders = probeRenders(s);
    await dirtyThePage();
    const poisoned = await get(`/chart?${q(CHART)}`);
    expect(poisoned.status).to.equal(200);
    expect(poisoned.cacheControl).to.equal('no-store');
    expect(renders.count).to.equal(1);

    const again = await get(`/chart?${q(CHART)}`);
    expect(again.status).to.equal(200);
    expect(renders.count, 'rendered again').to.equal(2);
    expect(again.body.equals(poisoned.body)).to.equal(false);
    expect(again.cacheControl).to.equal(QUICKCHART_CACHE);

    const cached = await get(`/chart?${q(CHART)}`);
    expect(renders.count, 'a clean page: cached').to.equal(2);
    expect(cached.body.equals(again.body)).to.equal(true);

    // keyless /chart/create names the image by its digest: one never stored is not found
    const other = { ...CHART, data: { ...CHART.data, labels: ['a', 'b', 'c'] } };
    await dirtyThePage();
    const made = await fetch(`${s.url}/chart/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chart: other, width: 400, height: 240 }) });
    expect(made.status).to.equal(200);
    const { url: shortUrl } = (await made.json()) as { url: string };
    expect((await get(new URL(shortUrl).pathname)).status, 'the poisoned image was not stored').to.equal(404);
    const clean = await fetch(`${s.url}/chart/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chart: other, width: 400, height: 240 }) });
    const { url: cleanUrl } = (await clean.json()) as { url: string };
    const served = await get(new URL(cleanUrl).pathname);
    expect(served.status).to.equal(200);
    expect(isPng(served.body)).to.equal(true);
  });
});
