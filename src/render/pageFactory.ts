// Makes and ends the pool's pages: each in a browser context of its own, locked down before the
// harness loads, every request answered from the harness files or blocked, warmed up with two
// renders. It is generic-pool's factory (create, destroy, validate) and knows which pages live.
import type { Factory } from 'generic-pool';
import type { Browser, BrowserContext, CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import type { LaunchedBrowser } from './browser.js';
import { HARNESS_ORIGIN, type HarnessFile } from './harness.js';
import { RenderPage } from './page.js';
import { WARMUP, toWire } from './wire.js';
import { sleep, withDeadline } from '../settle.js';
import type { Logger } from '../log.js';
import { DEFAULT_LOCALE, DEFAULT_TIMEZONE } from '../chart/zoneLocale.js';

export interface PageFactoryOptions {
  /** Pages in the pool: recycling is staggered across them. */
  size: number;
  pageMaxRenders: number;
  renderTimeoutMs: number;
  /** TIMEZONE and LOCALE: every page is emulated into them before its harness loads. */
  timezone?: string;
  locale?: string;
}

/** Where pages come from: the browser supervisor. */
export interface BrowserSource {
  browser(): Promise<LaunchedBrowser>;
  readonly connected: boolean;
}

export class PageFactory implements Factory<RenderPage> {
  private nextPageId = 1;
  /** Every page made and not yet destroyed (leased or idle). */
  readonly live = new Set<RenderPage>();
  readonly counters = { pagesCreated: 0, pagesDestroyed: 0, pagesCrashed: 0 };

  constructor(
    private readonly opts: PageFactoryOptions,
    private readonly files: Map<string, HarnessFile>,
    private readonly browsers: BrowserSource,
    private readonly log: Logger,
  ) {}

  async create(): Promise<RenderPage> {
    let context: BrowserContext | undefined;
    try {
      const lb = await this.browsers.browser();
      // One browser context per page: pages running at the same time share no storage, cookies,
      // caches or service workers (the default context would share them all).
      context = await withDeadline(lb.browser.createBrowserContext(), 15000, 'new context');
      const page: Page = await withDeadline(context.newPage(), 15000, 'new page');
      const id = this.nextPageId++;
      // Stagger recycling so the pages never all reload at once.
      const maxRenders = Math.round(this.opts.pageMaxRenders * (1 + ((id % this.opts.size) / this.opts.size) * 0.5));
      const cdp = await page.createCDPSession();
      const zone = { timezone: this.opts.timezone ?? DEFAULT_TIMEZONE, locale: this.opts.locale ?? DEFAULT_LOCALE };
      const rp = new RenderPage(id, context, page, cdp, maxRenders, this.opts.renderTimeoutMs, undefined, lb.call, zone);
      page.on('error', (err) => {
        // A renderer crash (memory bomb, killed process): evaluates on it would hang, and
        // isClosed() stays false, so the page is marked dead here and replaced on return.
        if (!rp.dead) this.counters.pagesCrashed++;
        rp.markDead(`page crashed: ${err.message}`);
      });
      page.on('close', () => rp.markDead('page closed'));
      page.on('popup', (p) => void p?.close().catch(() => {}));
      await page.setRequestInterception(true);
      page.on('request', (req) => this.intercept(req));
      // every document of the page, iframes caller code creates included: no console, no network APIs
      await page.evaluateOnNewDocument(this.files.get('/lockdown.js')!.body.toString('utf8'));
      // nothing an iframe's script schedules (renderer-page/task-guard.js)
      await page.evaluateOnNewDocument(this.files.get('/task-guard.js')!.body.toString('utf8'));
      // and the allocation budget: an iframe's realm counts into its page's budget
      await page.evaluateOnNewDocument(this.files.get('/alloc-guard.js')!.body.toString('utf8'));
      await quietDomains(page);
      // the instance's zone and locale before the page runs anything, whatever Chromium's environment says
      await withDeadline(rp.emulate(zone) ?? Promise.resolve(), 15000, 'zone emulation');
      await rp.load(15000, false);
      await rp.render(await toWire(WARMUP));
      await rp.render(await toWire({ ...WARMUP, format: 'svg' }));
      this.live.add(rp);
      this.counters.pagesCreated++;
      return rp;
    } catch (err) {
      this.log.error({ err }, 'page creation failed');
      if (context) await withDeadline(context.close(), 3000, 'context close').catch(() => {});
      // generic-pool retries a failed create at once; a delay keeps that from starving the event loop.
      await sleep(500);
      throw err;
    }
  }

  /** The harness's own files are served from memory; every other request is blocked. */
  private intercept(req: HTTPRequest): void {
    const url = req.url();
    if (url.startsWith(HARNESS_ORIGIN + '/')) {
      const path = new URL(url).pathname;
      const file = this.files.get(path);
      if (file) {
        void req.respond({ status: 200, contentType: file.contentType, body: file.body }).catch(() => {});
        return;
      }
    }
    void req.abort('blockedbyclient').catch(() => {});
  }

  async destroy(rp: RenderPage): Promise<void> {
    this.live.delete(rp);
    this.counters.pagesDestroyed++;
    rp.markDead('destroyed');
    try {
      // Closing the context closes its page and drops everything it stored.
      await withDeadline(rp.context.close(), 3000, 'context close');
    } catch {
      /* the browser may already be gone; nothing is left to free */
    }
  }

  /** A page may be leased while it lives and its browser is connected. */
  async validate(rp: RenderPage): Promise<boolean> {
    return !rp.dead && !rp.page.isClosed() && this.browsers.connected;
  }

  /** Every page of a browser that disconnected is dead (each is replaced on return). */
  browserGone(browser: Browser): void {
    for (const rp of this.live) if (rp.page.browser() === browser) rp.markDead('browser disconnected');
  }
}

/** Network, Audits and Log events carry each URL the page tries, in full, to Node (a loop of
 *  new Image().src = <1 MB URL> moved 2 MB per attempt); interception needs only Fetch. */
async function quietDomains(page: Page): Promise<void> {
  const client = (page as unknown as { _client(): CDPSession })._client();
  await client.send('Network.disable');
  await client.send('Audits.disable');
  await client.send('Log.disable');
}
