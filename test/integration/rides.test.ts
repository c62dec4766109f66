// Rides (pool.ts, decision 33): a render sent to a page behind the one it is drawing, on real
// Chromium. Two renders started in the same turn on a pool of one page: the first leases the
// page, the second rides behind it, whichever of them reaches the pool first. What a ride must
// never do: draw on a page the render ahead left dirty, or take the blame for what that render
// did (its failure, its timeout, its crash).
import { expect } from 'chai';
import { Renderer, RenderError, type PageRequest } from '../../src/render/renderer.js';
import { RideRefused } from '../../src/render/renderError.js';
import { toWire } from '../../src/render/wire.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { decodePng } from '../helpers/images.js';
import { rendererPids } from '../helpers/crash.js';
import { poolIdle } from '../helpers/sinks.js';

const BAR = { type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'sales', data: [3, 5, 4], backgroundColor: '#3b82f6' }] } };

function page(config: Record<string, unknown>, extra: Partial<PageRequest> = {}): PageRequest {
  return { config, width: 300, height: 200, format: 'png', backgroundColor: '#ffffff', allowFunctions: true, watermark: null, ...extra };
}

/** A bar of its own colour and values: every render of a batch draws something else. */
function coloured(i: number): PageRequest {
  const colour = `#${(0x204060 + i * 0x1f1311).toString(16).slice(-6)}`;
  return page({ type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: `n${i}`, data: [i + 1, 7 - (i % 5), 3], backgroundColor: colour }] } });
}

async function refusal(p: Promise<unknown>): Promise<RenderError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(RenderError);
    return err as RenderError;
  }
  throw new Error('expected the render to fail');
}

describe('rides: renders sent behind one another on a page', function () {
  this.timeout(120000);
  let pool: Renderer;
  let clean: Buffer;
  const counts = () => {
    const s = pool.stats();
    return { rides: s.rides ?? 0, retries: s.rideRetries ?? 0, resets: s.pageResets ?? 0 };
  };
  before(async () => {
    pool = new Renderer(
      // the deadline of a render that names none: far beyond what a loaded machine takes to draw a
      // 6,000-bar chart (1.5 s was not); the test of a render past its deadline sets its own
      { chromiumPath: loadConfig({}).chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 60000, maxQueue: 50, pageMaxRenders: 1000 },
      createLogger('silent'),
    );
    await pool.start();
    clean = Buffer.from((await pool.render(page(BAR))).data, 'base64');
  });
  after(async () => pool?.close());

  it('each draws its own chart, exactly as it draws alone', async () => {
    const alone: Buffer[] = [];
    for (let i = 0; i < 6; i++) alone.push(Buffer.from((await pool.render(coloured(i))).data, 'base64'));
    const before = counts();
    const together = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.render(coloured(i))));
    for (let i = 0; i < 6; i++) expect(Buffer.from(together[i]!.data, 'base64').equals(alone[i]!), `render ${i}`).to.equal(true);
    const after = counts();
    // one page: the first leased it, the second rode behind it; the later ones ride too unless
    // two answers came back in one read (then the page was given back between them)
    expect(after.rides - before.rides).to.be.within(1, 5);
    expect(after.retries - before.retries).to.equal(0);
  });

  it('a mixed batch (caller code that stamps, refused configs, pure callbacks, plain charts) leaves every plain chart exactly as drawn alone', async () => {
    const stamp = page({
      type: 'bar',
      data: BAR.data,
      options: { plugins: { title: { display: true, text: "function(){ Chart.register({id:'evil2', afterDraw(c){ c.ctx.fillStyle='red'; c.ctx.fillRect(0,0,300,200); }}); return 'x'; }" } } },
    });
    const bad = page({ type: 'nosuchtype', data: BAR.data });
    const pure = page({ type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: '(v) => v + " u"' } } } } });
    const kinds = [page(BAR), stamp, page(BAR), bad, page(BAR), pure, page(BAR), page(BAR), stamp, page(BAR), bad, page(BAR)];
    for (let round = 0; round < 3; round++) {
      const out = await Promise.allSettled(kinds.map((k) => pool.render(k)));
      out.forEach((r, i) => {
        if (kinds[i] === bad) return expect(r.status, `request ${i}`).to.equal('rejected');
        expect(r.status, `request ${i}`).to.equal('fulfilled');
        if (kinds[i]!.config === BAR) expect(Buffer.from((r as PromiseFulfilledResult<{ data: string }>).value.data, 'base64').equals(clean), `request ${i}`).to.equal(true);
      });
    }
  });

  it('nothing rides behind caller code: the next render waits for the reset and draws unstamped', async () => {
    // registers a plugin that would paint every later chart red (impure: the page is reset after it)
    const stamp = page({
      type: 'bar',
      data: BAR.data,
      options: { plugins: { title: { display: true, text: "function(){ Chart.register({id:'evil', afterDraw(c){ c.ctx.fillStyle='red'; c.ctx.fillRect(0,0,300,200); }}); window.__stolen = 1; return 'x'; }" } } },
    });
    const pure = page({ type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: '(v) => v + " u"' } } } } });
    for (const first of [stamp, pure]) {
      const before = counts();
      const [a, after] = await Promise.all([pool.render(first), pool.render(page(BAR))]);
      expect(Buffer.from(after.data, 'base64').equals(clean)).to.equal(true);
      const now = counts();
      expect(now.rides - before.rides).to.equal(0);
      expect(now.resets - before.resets).to.equal(a.needsReset === false ? 0 : 1);
    }
  });

  it('a ride behind a config Chart.js refuses is sent again on the reset page; the refusal stays with its own request', async () => {
    const before = counts();
    const [bad, good] = await Promise.allSettled([pool.render(page({ type: 'nosuchtype', data: BAR.data })), pool.render(page(BAR))]);
    expect(bad.status).to.equal('rejected');
    expect(((bad as PromiseRejectedResult).reason as RenderError).kind).to.equal('config');
    expect(good.status).to.equal('fulfilled');
    expect(Buffer.from((good as PromiseFulfilledResult<{ data: string }>).value.data, 'base64').equals(clean)).to.equal(true);
    const now = counts();
    expect(now.rides - before.rides).to.equal(1);
    expect(now.retries - before.retries).to.equal(1);
  });

  it('a ride behind a render that runs past its deadline is not blamed for it (RideRefused: the pool sends it again)', async () => {
    // the pool offers no ride behind caller code, so asked of the page directly while the pool is idle
    const rp = [...pool.livePages()][0]!;
    const loop = await toWire(page({ type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: 'function(v){ while(true){} }' } } } } }));
    const late = rp.render(loop, 300);
    const ride = rp.render(await toWire(page(BAR)), 60000, late.catch(() => undefined));
    const [a, b] = await Promise.allSettled([late, ride]);
    expect(a.status).to.equal('rejected');
    expect(((a as PromiseRejectedResult).reason as RenderError).kind).to.equal('timeout');
    expect(b.status).to.equal('rejected');
    expect((b as PromiseRejectedResult).reason).to.be.instanceOf(RideRefused);
    // as the pool gives the page back: the interrupted script stopped, then the reset
    expect(await rp.takeInterruption()).to.equal(true);
    await rp.load(15000, true);
    expect((await pool.render(page(BAR))).data).to.equal(clean.toString('base64'));
  });

  it('a ride on a page whose renderer crashes under the render ahead is sent again and drawn on the new page', async () => {
    await poolIdle(() => pool.stats());
    const pids = rendererPids(pool.profiles.at(-1)!);
    expect(pids.length).to.be.greaterThan(0);
    const before = counts();
    const signal = (sig: NodeJS.Signals) => {
      for (const pid of pids) {
        try {
          process.kill(pid, sig);
        } catch {
          /* gone already */
        }
      }
    };
    signal('SIGSTOP');
    try {
      const first = pool.render(coloured(1));
      const second = pool.render(page(BAR));
      // both are in the frozen page: the first drawing (as far as Node knows), the second behind it
      const deadline = Date.now() + 30_000; // a bound for a loaded machine, not a speed claim
      while (counts().rides === before.rides) {
        if (Date.now() > deadline) throw new Error('no ride within 30 s');
        await new Promise((r) => setTimeout(r, 10));
      }
      signal('SIGKILL');
      const [a, b] = await Promise.allSettled([first, second]);
      expect(a.status).to.equal('rejected');
      expect(((a as PromiseRejectedResult).reason as RenderError).kind).to.equal('crash');
      expect(b.status).to.equal('fulfilled');
      expect(Buffer.from((b as PromiseFulfilledResult<{ data: string }>).value.data, 'base64').equals(clean)).to.equal(true);
      expect(counts().retries - before.retries).to.equal(1);
    } finally {
      signal('SIGKILL');
    }
  });

  it('a ride behind a render that hangs is answered busy within ACQUIRE_TIMEOUT_MS, as a queued request would be', async () => {
    const quick = new Renderer(
      { chromiumPath: loadConfig({}).chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 500, maxQueue: 50, pageMaxRenders: 1000 },
      createLogger('silent'),
    );
    await quick.start();
    try {
      const pids = rendererPids(quick.profiles.at(-1)!);
      const signal = (sig: NodeJS.Signals) => {
        for (const pid of pids) {
          try {
            process.kill(pid, sig);
          } catch {
            /* gone already */
          }
        }
      };
      signal('SIGSTOP');
      try {
        const hung = quick.render(coloured(2));
        const behind = quick.render(page(BAR));
        const err = await refusal(behind);
        expect(err.kind).to.equal('busy');
        expect(quick.stats().rides).to.equal(1);
        signal('SIGKILL');
        expect((await refusal(hung)).kind).to.equal('crash');
      } finally {
        signal('SIGKILL');
      }
      await poolIdle(() => quick.stats());
      expect(Buffer.from((await quick.render(page(BAR))).data, 'base64').equals(clean)).to.equal(true);
    } finally {
      await quick.close();
    }
  });

  it('nothing rides behind a render the page awaits (a deflated config): the next one waits for the page', async () => {
    const many = Array.from({ length: 6000 }, (_, i) => `label number ${i}`);
    const big = page({ type: 'bar', data: { labels: many, datasets: [{ data: many.map((_, i) => i % 13), backgroundColor: '#10b981' }] } }, { width: 600, height: 300 });
    const before = counts();
    // the deflated one first on the page (its deflate in Node would otherwise let the bar pass it)
    const first$ = pool.render(big);
    while (pool.stats().borrowed === 0) await new Promise((r) => setImmediate(r));
    const [first, second] = await Promise.all([first$, pool.render(page(BAR))]);
    expect(decodePng(Buffer.from(first.data, 'base64')).width).to.equal(600);
    expect(Buffer.from(second.data, 'base64').equals(clean)).to.equal(true);
    expect(counts().rides - before.rides).to.equal(0);
  });

  it('the page itself refuses a ride unless the render ahead ended clean; a reset page takes rides again', async () => {
    // what the pool relies on, asked of the page directly while the pool is idle
    const rp = [...pool.livePages()][0]!;
    const bar = await toWire(page(BAR));
    const ride = (w: Awaited<ReturnType<typeof toWire>>) => rp.render(w, undefined, Promise.resolve());
    expect((await ride(bar)).data).to.equal(clean.toString('base64'));
    await refusal(rp.render(await toWire(page({ type: 'nosuchtype', data: BAR.data }))));
    let refused: unknown;
    await ride(bar).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(RideRefused);
    // not a ride: drawn (the pool would have reset the page first)
    expect((await rp.render(bar)).ok).to.equal(true);
    const impure = page({ type: 'bar', data: BAR.data, options: { plugins: { title: { display: true, text: "function(){ window.__kept = 1; return 'x'; }" } } } });
    expect((await rp.render(await toWire(impure))).needsReset).to.equal(true);
    refused = undefined;
    await ride(bar).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(RideRefused);
    await rp.load(15000, true);
    expect((await ride(bar)).data).to.equal(clean.toString('base64'));
  });

  // Found by an outside attack (session 16): caller code redefined window.chartshot, and Node's
  // next call, a ride queued behind it, looked the API up by that name: the replacement got the
  // next caller's config and answered for it (needsReset false, a forged image). Node now calls
  // the API object the page's load returned, which caller code cannot reach to replace.
  it('caller code that replaces window.chartshot is never handed the ride behind it', async () => {
    const rp = [...pool.livePages()][0]!;
    const forger =
      "function(){ Object.defineProperty(window, 'chartshot', { configurable: true, value: { renderWire: function () { " +
      'return \'{"ok":true,"ms":1,"ranFunctions":false,"needsReset":false}\\nZm9yZ2Vk\'; } } }); return \'x\'; }';
    const trap = page({ type: 'bar', data: BAR.data, options: { plugins: { title: { display: true, text: forger } } } });
    const bar = await toWire(page(BAR));
    const first = rp.render(await toWire(trap));
    const behind = rp.render(bar, undefined, first.catch(() => undefined));
    const [a, b] = await Promise.allSettled([first, behind]);
    expect(a.status).to.equal('fulfilled');
    expect((a as PromiseFulfilledResult<{ needsReset?: boolean }>).value.needsReset).to.equal(true);
    expect(b.status, 'the ride was answered by the replacement').to.equal('rejected');
    expect((b as PromiseRejectedResult).reason).to.be.instanceOf(RideRefused);
    await rp.load(15000, true);
    expect((await rp.render(bar)).data).to.equal(clean.toString('base64'));
  });

  it('function words hidden by JSON escapes (\\u0066unction, =\\u003e) still keep rides away', async () => {
    const config = { type: 'bar', data: BAR.data, options: { plugins: { title: { display: true, text: "function(){ window.__kept = 1; return 'x'; }" } }, scales: { y: { ticks: { callback: '(v) => v' } } } } };
    const configJson = JSON.stringify(config).replaceAll('function', '\\u0066unction').replaceAll('=>', '=\\u003e');
    expect(configJson).to.not.include('function');
    expect(JSON.parse(configJson)).to.deep.equal(config);
    const before = counts();
    const [a, after] = await Promise.all([pool.render(page(config, { configJson })), pool.render(page(BAR))]);
    // the page revived the functions all the same: caller code ran, and the page was reset
    expect(a.ranFunctions).to.equal(true);
    expect(Buffer.from(after.data, 'base64').equals(clean)).to.equal(true);
    const now = counts();
    expect(now.rides - before.rides).to.equal(0);
    expect(now.resets - before.resets).to.equal(1);
  });
});
