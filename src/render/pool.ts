// A pool of pre-warmed Chromium pages, each with the harness loaded. Every lease is given
// back in `finally`; a page that failed, timed out or crashed is destroyed, a page that ran
// caller code is reloaded before anyone else may use it, and pages recycle after a
// staggered number of renders.
import genericPool, { type Pool } from 'generic-pool';
import type { Browser, BrowserContext, CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser, type SandboxMode } from './browser.js';
import { AdmissionGate, AdmissionRefused, type AdmissionStats } from './admission.js';
import { HARNESS_ORIGIN, HARNESS_URL, loadHarnessFiles, type HarnessFile } from './harness.js';
import type { Logger } from '../log.js';

export interface PageRequest {
  config: Record<string, unknown>;
  width: number;
  height: number;
  format: 'png' | 'svg';
  backgroundColor: string | null;
  allowFunctions: boolean;
  watermark: string | null;
  /** Largest image the page may hand back (PNG: decoded bytes; SVG: UTF-8 bytes); larger is
   *  refused inside the page, so the bytes never cross CDP. Absent: the page's own ceiling. */
  maxImageBytes?: number;
  /** JSON.stringify(config) when the caller has it already (a megabyte config is not serialised twice). */
  configJson?: string;
}

export interface PageResult {
  /** Base64 PNG, or SVG text. */
  data: string;
  /** Time spent inside the page, ms. */
  ms: number;
  ranFunctions: boolean;
}

/** Why a render did not produce an image. `config` = the chart config itself was refused by Chart.js. */
export class RenderError extends Error {
  constructor(
    readonly kind: 'config' | 'timeout' | 'crash' | 'busy' | 'too_large',
    message: string,
    /** busy only: the estimated time until a page would be free (Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

export interface PoolOptions {
  chromiumPath: string;
  size: number;
  renderTimeoutMs: number;
  acquireTimeoutMs: number;
  maxQueue: number;
  pageMaxRenders: number;
  harnessDir?: string;
  /** Invoice PDFs printed at once (each on its own short-lived page); default 1. */
  maxPrints?: number;
  /** Prints allowed to wait for one of those; default 8. */
  maxPrintQueue?: number;
}

export interface PoolStats {
  size: number;
  available: number;
  borrowed: number;
  pending: number;
  browserRestarts: number;
  pagesCreated: number;
  pagesDestroyed: number;
  queueRejections: number;
  browserConnected: boolean;
  /** Pages whose renderer process crashed or was killed (each is replaced). */
  pagesCrashed?: number;
  /** The admission queue in front of the pages (see admission.ts). */
  admission?: AdmissionStats;
  /** How Chromium is contained (browser.ts); absent before the first launch. */
  renderer?: RendererInfo;
  /** Document prints (invoice PDFs) running and waiting, and how many ran. */
  prints?: { running: number; waiting: number; printed: number };
}

export interface RendererInfo {
  /** on: Chromium's sandbox is active; off: --no-sandbox (a warning). */
  sandbox: 'on' | 'off';
  /** setpriv: started as an unprivileged user by a root service; sandbox: as the service's own user. */
  mode: SandboxMode;
  /** The user id Chromium runs as. */
  uid: number;
}

const CALL_RENDER = 'function (req) { return window.chartshot.render(req); }';
const CALL_FLOOR = 'function (req, n) { return window.chartshot.floor(req, n); }';

const WARMUP: PageRequest = {
  config: {
    type: 'bar',
    data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'warm', data: [1, 2, 3] }] },
    options: { plugins: { title: { display: true, text: 'warm' } } },
  },
  width: 320,
  height: 200,
  format: 'png',
  backgroundColor: '#fff',
  allowFunctions: false,
  watermark: null,
};

class RenderPage {
  renders = 0;
  dead = false;
  windowId = '';
  /** Rejects when the page's renderer crashes or the page closes: raced against every render. */
  readonly crashed: Promise<never>;
  private failCrashed!: (e: Error) => void;

  constructor(
    readonly id: number,
    /** The page's own browser context: storage, cookies and caches shared with no other page. */
    readonly context: BrowserContext,
    readonly page: Page,
    readonly cdp: CDPSession,
    readonly maxRenders: number,
  ) {
    this.crashed = new Promise<never>((_, reject) => {
      this.failCrashed = reject;
    });
    this.crashed.catch(() => {});
  }

  markDead(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.failCrashed(new RenderError('crash', reason));
  }
}

/**
 * The request as it crosses CDP: the config travels as a JSON string, which the page parses
 * with JSON.parse. Chromium turns a protocol object argument into a V8 object about four times
 * slower (5,000 points: 30 ms as an object, 7 ms as a string). Still data, never code.
 */
function toWire(req: PageRequest): Omit<PageRequest, 'config'> & { configJson: string } {
  const { config, configJson, ...rest } = req;
  return { ...rest, configJson: configJson ?? JSON.stringify(config) };
}

async function quietDomains(page: Page): Promise<void> {
  const client = (page as unknown as { _client(): CDPSession })._client();
  await client.send('Network.disable');
  await client.send('Audits.disable');
  await client.send('Log.disable');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class PagePool {
  private pool!: Pool<RenderPage>;
  private files: Map<string, HarnessFile>;
  private current: LaunchedBrowser | null = null;
  private launching: Promise<LaunchedBrowser> | null = null;
  private closing = false;
  private nextPageId = 1;
  private counters = { browserRestarts: 0, pagesCreated: 0, pagesDestroyed: 0, queueRejections: 0, pagesCrashed: 0 };
  /**
   * Who may lease a page next. generic-pool's own queue is strictly FIFO and only refuses when
   * full or when the wait ran out; the gate in front of it holds one slot per page, serves
   * waiting owners round-robin and refuses at once a request that could not be served within
   * the acquire deadline. A slot is held from lease until the page is back in the pool (or
   * destroyed), so slots track free pages exactly and generic-pool itself almost never queues
   * (only while a page is being re-created after a crash or a recycle).
   */
  private readonly gate: AdmissionGate;
  /** Invoice prints: a gate of their own (default one at a time), so a burst of downloads
   *  opens at most that many extra pages and never takes a render's page. */
  private readonly printGate: AdmissionGate;
  private printCounters = { running: 0, printed: 0 };
  /** The sandbox mode the first launch settled on (relaunches reuse it), and Chromium's uid. */
  private sandboxMode: SandboxMode | undefined;
  private chromiumUid = -1;
  private readonly livePages = new Set<RenderPage>();
  /** Profile directories of every browser this pool launched (tests look for leftovers). */
  readonly profiles: string[] = [];

  constructor(
    private readonly opts: PoolOptions,
    private readonly log: Logger,
  ) {
    this.files = loadHarnessFiles(opts.harnessDir);
    this.gate = new AdmissionGate({ slots: opts.size, maxQueue: opts.maxQueue, maxWaitMs: opts.acquireTimeoutMs });
    this.printGate = new AdmissionGate({
      slots: opts.maxPrints ?? 1,
      maxQueue: opts.maxPrintQueue ?? 8,
      maxWaitMs: Math.max(opts.acquireTimeoutMs, 5000),
      initialHoldMs: 300,
    });
  }

  /** Launches the browser and pre-warms every page; resolves when the pool is full. */
  async start(): Promise<void> {
    await this.browser();
    this.pool = genericPool.createPool<RenderPage>(
      {
        create: () => this.createPage(),
        destroy: (rp) => this.destroyPage(rp),
        validate: async (rp) => !rp.dead && !rp.page.isClosed() && this.current?.browser.connected === true,
      },
      {
        min: this.opts.size,
        max: this.opts.size,
        testOnBorrow: true,
        acquireTimeoutMillis: this.opts.acquireTimeoutMs,
        // Only slot holders of the gate ever call acquire(): at most one per page waits here.
        maxWaitingClients: this.opts.size,
        autostart: true,
      },
    );
    const deadline = Date.now() + 60000;
    while (this.pool.size < this.opts.size || this.pool.available + this.pool.borrowed < this.opts.size) {
      if (Date.now() > deadline) throw new Error('pool did not fill within 60 s');
      await sleep(20);
    }
  }

  private browser(): Promise<LaunchedBrowser> {
    if (this.current?.browser.connected) return Promise.resolve(this.current);
    if (this.closing) return Promise.reject(new Error('pool is closing'));
    if (!this.launching) {
      this.launching = launchBrowser({ chromiumPath: this.opts.chromiumPath, sandbox: this.sandboxMode }, this.log)
        .then((lb) => {
          this.sandboxMode = lb.sandbox;
          this.chromiumUid = lb.uid;
          this.current = lb;
          this.profiles.push(lb.profileDir);
          this.watch(lb);
          return lb;
        })
        .finally(() => {
          this.launching = null;
        });
    }
    return this.launching;
  }

  private watch(lb: LaunchedBrowser): void {
    const b: Browser = lb.browser;
    b.on('disconnected', () => {
      if (this.current === lb) this.current = null;
      for (const rp of this.livePages) if (rp.page.browser() === b) rp.markDead('browser disconnected');
      if (this.closing) return;
      this.counters.browserRestarts++;
      this.log.error({ pid: lb.pid }, 'browser disconnected; relaunching');
      void lb.close();
      // Relaunch at once so the pool refills before the next request needs a page.
      this.browser().catch((err) => this.log.error({ err }, 'browser relaunch failed'));
    });
    // A config may open popups or new targets: close anything that is not one of ours.
    b.on('targetcreated', (t) => {
      if (t.type() !== 'page' || !t.opener()) return;
      void t.page().then((p) => p?.close()).catch(() => {});
    });
  }

  private async createPage(): Promise<RenderPage> {
    let context: BrowserContext | undefined;
    try {
      const lb = await this.browser();
      // One browser context per page: pages running at the same time share no storage, cookies,
      // caches or service workers (the default context would share them all).
      context = await withDeadline(lb.browser.createBrowserContext(), 15000, 'new context');
      const page: Page = await withDeadline(context.newPage(), 15000, 'new page');
      const id = this.nextPageId++;
      // Stagger recycling so the pages never all reload at once.
      const maxRenders = Math.round(this.opts.pageMaxRenders * (1 + ((id % this.opts.size) / this.opts.size) * 0.5));
      const cdp = await page.createCDPSession();
      const rp = new RenderPage(id, context, page, cdp, maxRenders);
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
      // Network, Audits and Log events carry each URL the page tries, in full, to Node (a loop of
      // new Image().src = <1 MB URL> moved 2 MB per attempt); interception needs only Fetch.
      await quietDomains(page);
      await this.loadHarness(rp, 15000, false);
      await this.callRender(rp, WARMUP);
      await this.callRender(rp, { ...WARMUP, format: 'svg' });
      this.livePages.add(rp);
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

  /** Reloads the harness. A reset of a page that ran caller code gets a shorter deadline than a
   *  first load: a page whose script keeps its main thread busy (a timer looping after the
   *  render returned) cannot navigate, and is better replaced than waited for. */
  private async loadHarness(rp: RenderPage, deadlineMs: number, reset: boolean): Promise<void> {
    await withDeadline(rp.page.goto(HARNESS_URL, { waitUntil: 'load' }), deadlineMs, 'harness load');
    // After the navigation, so nothing the previous document ran (timers, unload handlers) can
    // write again: IndexedDB, Cache Storage, service workers, cookies of the page's own context
    // (a new page's context is empty). About 5 ms.
    if (reset) {
      await withDeadline(
        Promise.all([
          rp.cdp.send('Storage.clearDataForOrigin', { origin: HARNESS_ORIGIN, storageTypes: 'all' }),
          rp.cdp.send('Network.clearBrowserCookies'),
        ]),
        deadlineMs,
        'storage clear',
      );
    }
    // sessionStorage and window.name survive a same-origin navigation in a tab; local storage is
    // cleared in the page as well so its in-renderer copy cannot lag the clear above. The new
    // document runs only the harness yet, so these are the browser's own functions.
    const res = (await rp.cdp.send('Runtime.evaluate', {
      expression:
        "(function () { localStorage.clear(); sessionStorage.clear(); window.name = ''; return window.chartshot && window.chartshot.ready === true ? window : null; })()",
    })) as { result: { objectId?: string } };
    if (!res.result.objectId) throw new Error('harness did not become ready');
    rp.windowId = res.result.objectId;
  }

  private async destroyPage(rp: RenderPage): Promise<void> {
    this.livePages.delete(rp);
    this.counters.pagesDestroyed++;
    rp.markDead('destroyed');
    try {
      // Closing the context closes its page and drops everything it stored.
      await withDeadline(rp.context.close(), 3000, 'context close');
    } catch {
      /* the browser may already be gone; nothing is left to free */
    }
  }

  private async callRender(rp: RenderPage, req: PageRequest): Promise<PageResult> {
    return this.call<PageResult>(rp, CALL_RENDER, [toWire(req)]);
  }

  private async call<T>(rp: RenderPage, fn: string, args: unknown[]): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        rp.markDead('render timed out');
        // Stops an infinite loop in a callback within milliseconds (FIELD-NOTES).
        rp.cdp.send('Runtime.terminateExecution').catch(() => {});
        reject(new RenderError('timeout', `render took longer than ${this.opts.renderTimeoutMs} ms`));
      }, this.opts.renderTimeoutMs);
    });
    try {
      const res = (await Promise.race([
        rp.cdp.send('Runtime.callFunctionOn', {
          functionDeclaration: fn,
          objectId: rp.windowId,
          arguments: args.map((value) => ({ value })),
          returnByValue: true,
          awaitPromise: true,
        }),
        timeout,
        rp.crashed,
      ])) as { result: { value?: unknown }; exceptionDetails?: { text?: string; exception?: { description?: string } } };
      if (res.exceptionDetails) {
        const msg = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text ?? 'page exception';
        throw new RenderError('config', msg.split('\n')[0]!.slice(0, 300));
      }
      const value = res.result.value as ({ ok: true } & T) | { ok: false; error: string; ranFunctions?: boolean; imageBytes?: number } | undefined;
      if (!value || typeof value !== 'object') throw new RenderError('crash', 'harness returned nothing');
      if (value.ok === false) {
        throw new RenderError(typeof value.imageBytes === 'number' ? 'too_large' : 'config', String(value.error).slice(0, 300));
      }
      return value as T;
    } catch (err) {
      if (err instanceof RenderError) throw err;
      rp.markDead('protocol error');
      throw new RenderError('crash', (err as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A slot of the gate for `owner`, then a page. The slot is given back by giveBack(), or here
   * when no page comes (generic-pool's acquire timeout: the pool is refilling after a crash).
   */
  private async acquire(owner: string): Promise<RenderPage> {
    if (this.closing) throw new RenderError('busy', 'shutting down');
    const wait = this.gate.enter(owner);
    if (wait) {
      try {
        await wait;
      } catch (err) {
        this.counters.queueRejections++;
        const e = err as Error;
        throw new RenderError('busy', e.message, err instanceof AdmissionRefused ? err.retryAfterMs : undefined);
      }
    }
    try {
      if (this.closing) throw new Error('shutting down');
      return await this.pool.acquire();
    } catch (err) {
      this.gate.leave();
      this.counters.queueRejections++;
      const msg = (err as Error).message;
      throw new RenderError('busy', /waitingClients/.test(msg) ? 'render queue is full' : /shutting down|draining/.test(msg) ? 'shutting down' : 'no renderer free in time');
    }
  }

  /**
   * Renders on a leased page; the page is given back (or replaced) without delaying the caller.
   * `owner` (an account, a client address) is whom the admission queue keeps fair between.
   */
  async render(req: PageRequest, owner = ''): Promise<PageResult> {
    const rp = await this.acquire(owner);
    const leased = performance.now();
    let reset = false;
    try {
      const res = await this.callRender(rp, req);
      rp.renders++;
      reset = res.ranFunctions;
      return res;
    } catch (err) {
      // A refused config may have left half-built state behind: reload before reuse.
      reset = true;
      throw err;
    } finally {
      void this.giveBack(rp, reset, leased);
    }
  }

  /** The in-page floor: how long Chart.js itself takes per render on a leased page. */
  async floor(req: PageRequest, n: number): Promise<{ msPerRender: number }> {
    const rp = await this.acquire('');
    try {
      return await this.call<{ msPerRender: number }>(rp, CALL_FLOOR, [toWire(req), n]);
    } finally {
      // n renders in one lease: not a sample of the usual hold time
      void this.giveBack(rp, false, undefined);
    }
  }

  /**
   * A document (an invoice) printed to PDF by the same browser, on a fresh page in a context of
   * its own, JavaScript off and every request blocked (data: URLs aside), closed afterwards.
   * Prints pass a gate of their own (maxPrints at once, a bounded fair queue, 503 past it), so
   * a burst of downloads never opens more pages than that nor takes a render's page.
   */
  async pdfFromHtml(html: string, owner = '', timeoutMs = 15000): Promise<Buffer> {
    if (this.closing) throw new RenderError('busy', 'shutting down');
    const wait = this.printGate.enter(owner);
    if (wait) {
      try {
        await wait;
      } catch (err) {
        throw new RenderError('busy', `document printer busy: ${(err as Error).message}`, err instanceof AdmissionRefused ? err.retryAfterMs : undefined);
      }
    }
    const started = performance.now();
    this.printCounters.running++;
    let context: BrowserContext | undefined;
    try {
      if (this.closing) throw new RenderError('busy', 'shutting down');
      const lb = await this.browser();
      context = await withDeadline(lb.browser.createBrowserContext(), timeoutMs, 'new context');
      const page: Page = await withDeadline(context.newPage(), timeoutMs, 'new page');
      await page.setJavaScriptEnabled(false);
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        const p = req.url().startsWith('data:') ? req.continue() : req.abort('blockedbyclient');
        void p.catch(() => {});
      });
      await withDeadline(page.setContent(html, { waitUntil: 'load' }), timeoutMs, 'document load');
      const pdf = await withDeadline(page.pdf({ format: 'A4', printBackground: true }), timeoutMs, 'pdf');
      this.printCounters.printed++;
      return Buffer.from(pdf);
    } finally {
      if (context) await withDeadline(context.close(), 3000, 'context close').catch(() => {});
      this.printCounters.running--;
      this.printGate.leave(performance.now() - started);
    }
  }

  /** Returns (or replaces) a page, then frees its gate slot: exactly once per lease. `leased`
   *  (performance.now() at lease) feeds the gate's average hold time; undefined = no sample. */
  private async giveBack(rp: RenderPage, reset: boolean, leased: number | undefined): Promise<void> {
    try {
      if (rp.dead || rp.renders >= rp.maxRenders) {
        await this.pool.destroy(rp);
        return;
      }
      if (reset) {
        try {
          await this.loadHarness(rp, Math.min(15000, Math.max(3000, this.opts.renderTimeoutMs)), true);
        } catch (err) {
          this.log.warn({ err }, 'page reset failed; replacing it');
          await this.pool.destroy(rp);
          return;
        }
      }
      await this.pool.release(rp);
    } catch (err) {
      this.log.error({ err }, 'returning a page to the pool failed');
    } finally {
      this.gate.leave(leased === undefined ? undefined : performance.now() - leased);
    }
  }

  stats(): PoolStats {
    return {
      size: this.opts.size,
      available: this.pool?.available ?? 0,
      borrowed: this.pool?.borrowed ?? 0,
      // requests waiting for a page: in the gate's queue, or (after a crash) for a new page
      pending: (this.pool?.pending ?? 0) + this.gate.stats().waiting,
      ...this.counters,
      browserConnected: this.current?.browser.connected === true,
      admission: this.gate.stats(),
      ...(this.sandboxMode && { renderer: this.rendererInfo() }),
      prints: { ...this.printCounters, waiting: this.printGate.stats().waiting },
    };
  }

  private rendererInfo(): RendererInfo {
    return { sandbox: this.sandboxMode === 'off' ? 'off' : 'on', mode: this.sandboxMode!, uid: this.chromiumUid };
  }

  /** The running browser, for tests and diagnostics that count its targets or inspect pages. */
  currentBrowser(): Browser | null {
    return this.current?.browser ?? null;
  }

  /** The Chromium process id, for tests that kill it. */
  browserPid(): number | undefined {
    return this.current?.pid;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    // Whoever still waits for a page gets a clean 503 now rather than a drained pool later.
    this.gate.close();
    this.printGate.close();
    if (this.pool) {
      await withDeadline(this.pool.drain().then(() => this.pool.clear()), 15000, 'pool drain').catch((err) =>
        this.log.warn({ err }, 'pool drain incomplete'),
      );
    }
    const lb = this.current ?? (this.launching ? await this.launching.catch(() => null) : null);
    this.current = null;
    await lb?.close();
  }
}
