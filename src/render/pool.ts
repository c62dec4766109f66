// The pool of pre-warmed Chromium pages: the browser behind it, the page factory, leasing through
// the admission gate, reset and recycling. Why: docs/decisions/0007-crash-only-browser.md.
import genericPool, { type Pool } from 'generic-pool';
import type { Browser, BrowserContext, HTTPRequest, Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser, type SandboxMode } from './browser.js';
import { AdmissionGate, AdmissionRefused, type AdmissionStats } from './admission.js';
import { CHARTJS_VERSIONS, HARNESS_ORIGIN, loadHarnessFiles, type ChartjsVersion, type HarnessFile } from './harness.js';
import { RenderError, RenderPage, WARMUP, quietDomains, sleep, toWire, withDeadline, type PageRequest, type PageResult } from './page.js';
import { DocumentPrinter } from './printer.js';
import { RendererFingerprint, chartjsVersions, fontsHash, parseChromiumVersion } from './fingerprint.js';
import { prepareFonts, type PreparedFonts } from './fonts.js';
import type { Logger } from '../log.js';
import type { MemoryWallStatus } from './cgroup.js';
import { tracer, type SpanAttributes } from '../tracing.js';

export { RenderError, type PageRequest, type PageResult } from './page.js';

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
  /** Config texts from this length on cross CDP deflated (default DEFLATE_FROM). */
  deflateFrom?: number;
  /** Pages of Chart.js 2 or 3 go back to Chart.js 4 once their version had no request for this
   *  long (default VERSION_IDLE_MS). */
  versionIdleMs?: number;
  /** How long a request waits for a busy page of its version before switching another page
   *  (default VERSION_WAIT_MS). */
  versionWaitMs?: number;
  /** The cgroup around Chromium (cgroup.ts); absent: none is made. */
  memoryWall?: { memoryMb: number; pidsMax: number };
  /** MB of typed arrays, canvases and images caller code may allocate per render (alloc-guard.js). */
  renderMemoryMb?: number;
  /** FONTS_DIR: fonts every page can draw with (src/render/fonts.ts); null or absent: system fonts. */
  fontsDir?: string | null;
}

/** Chart.js 4 is what a page loads first, and where an idle page of another version returns. */
export const DEFAULT_CHARTJS: ChartjsVersion = 4;
export const VERSION_IDLE_MS = 60000;
/** The in-page allocation budget when none is set: alloc-guard.js's own default. */
export const DEFAULT_RENDER_MEMORY_MB = 256;
/** How long a request waits for a busy page of its version before switching another page: about
 *  what a switch costs (a harness load), several renders' worth. */
export const VERSION_WAIT_MS = 150;
/** How long the reset of a page whose render was interrupted may take before it is replaced. */
export const INTERRUPTED_RESET_MS = 2000;

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
  /** Renders started on a page (requests that left the queue never count). */
  renders?: number;
  /** Pages reloaded after a render whose functions were not all proven pure. */
  pageResets?: number;
  /** Renders stopped at their deadline by interrupting their script (then the page is reset, or
   *  replaced when the script did not stop). */
  renderInterrupts?: number;
  /** The admission queue in front of the pages (see admission.ts). */
  admission?: AdmissionStats;
  /** How Chromium is contained (browser.ts); absent before the first launch. */
  renderer?: RendererInfo;
  /** Document prints (invoice PDFs) running and waiting, and how many ran. */
  prints?: { running: number; waiting: number; printed: number };
  /** Live pages per Chart.js major version. */
  versions?: Record<ChartjsVersion, number>;
  /** Pages loaded with another Chart.js version's harness (both ways). */
  versionSwitches?: number;
  /** The memory wall: Chromium's cgroup and the in-page allocation budget. */
  memoryWall?: MemoryWallStatus & { renderBudgetMb: number };
}

export interface RendererInfo {
  /** on: Chromium's sandbox is active; off: --no-sandbox (a warning). */
  sandbox: 'on' | 'off';
  /** setpriv: started as an unprivileged user by a root service; sandbox: as the service's own user. */
  mode: SandboxMode;
  /** The user id Chromium runs as. */
  uid: number;
  /** What draws the images (Chart.js 4, Chromium, fonts), as X-Chartshot-Renderer says it. */
  fingerprint?: string;
}

// Every lease is given back in `finally`; a page that failed, timed out or crashed
// is destroyed, a page that ran caller code is reset (page.ts) before anyone else may use it
// (unless every function was proven pure by renderer-page/pure.js and the page found nothing
// left behind: then it is reused at once), and pages recycle after a staggered number of
// renders. Page mechanics live in page.ts, invoice printing in printer.ts.
export class PagePool {
  private pool!: Pool<RenderPage>;
  private files: Map<string, HarnessFile>;
  private current: LaunchedBrowser | null = null;
  private launching: Promise<LaunchedBrowser> | null = null;
  private closing = false;
  private nextPageId = 1;
  private counters = { browserRestarts: 0, pagesCreated: 0, pagesDestroyed: 0, queueRejections: 0, pagesCrashed: 0, renders: 0, pageResets: 0, versionSwitches: 0, renderInterrupts: 0 };
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
  private readonly printer: DocumentPrinter;
  /** The sandbox mode the first launch settled on (relaunches reuse it), and Chromium's uid. */
  private sandboxMode: SandboxMode | undefined;
  private chromiumUid = -1;
  private memoryWall: MemoryWallStatus | undefined;
  private readonly livePages = new Set<RenderPage>();
  /** Pages out of generic-pool (leased, being reset or switched); the rest of livePages is idle. */
  private readonly leased = new Set<RenderPage>();
  /** When each Chart.js version was last asked for (performance.now()). */
  private readonly lastAsked = new Map<ChartjsVersion, number>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private print: RendererFingerprint | null = null;
  /** Leased pages chosen to be switched to another version (counted as that version's). */
  private readonly switching = new Map<RenderPage, ChartjsVersion>();
  /** Requests waiting for a page of their version to come back (see takePage). */
  private readonly versionWaiters = new Set<{ version: ChartjsVersion; wake: () => void }>();
  /** Chromium's fontconfig file and the fonts it names (written at start, removed at close). */
  private fonts: PreparedFonts | null = null;
  /** Profile directories of every browser this pool launched (tests look for leftovers). */
  readonly profiles: string[] = [];

  constructor(
    private readonly opts: PoolOptions,
    private readonly log: Logger,
  ) {
    this.files = loadHarnessFiles(opts.harnessDir);
    this.gate = new AdmissionGate({ slots: opts.size, maxQueue: opts.maxQueue, maxWaitMs: opts.acquireTimeoutMs });
    this.printer = new DocumentPrinter(
      { maxPrints: opts.maxPrints, maxPrintQueue: opts.maxPrintQueue, acquireTimeoutMs: opts.acquireTimeoutMs },
      async () => (await this.browser()).browser,
    );
  }

  /** Launches the browser and pre-warms every page; resolves when the pool is full. */
  async start(): Promise<void> {
    // Chromium's fontconfig file first (every launch, relaunches too, reads it); the font files
    // are listed while the browser starts: off the request path, once
    this.fonts = await prepareFonts(this.opts.fontsDir ?? null);
    const fonts = fontsHash(this.opts.fontsDir ?? null);
    const lb = await this.browser();
    this.print = new RendererFingerprint({ chartjs: chartjsVersions(), chromium: parseChromiumVersion(await lb.browser.version()), fonts: await fonts });
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
        // The page returned last is leased first: at low concurrency one page does the work
        // and stays hot. Alternating between idle pages measured 1.7 ms slower per 100x100
        // render (pool.render p50 3.8 -> 2.1 ms; the in-page time itself 2.4 -> 1.4 ms).
        fifo: false,
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
    const idleMs = this.opts.versionIdleMs ?? VERSION_IDLE_MS;
    this.sweepTimer = setInterval(() => void this.sweepVersions(idleMs), Math.max(250, idleMs / 4));
    this.sweepTimer.unref();
  }

  private browser(): Promise<LaunchedBrowser> {
    if (this.current?.browser.connected) return Promise.resolve(this.current);
    if (this.closing) return Promise.reject(new Error('pool is closing'));
    if (!this.launching) {
      this.launching = launchBrowser({ chromiumPath: this.opts.chromiumPath, sandbox: this.sandboxMode, memoryWall: this.opts.memoryWall, fontconfigFile: this.fonts?.configFile }, this.log)
        .then((lb) => {
          this.sandboxMode = lb.sandbox;
          this.chromiumUid = lb.uid;
          // kept while a relaunch is under way: /v1/status still says what the wall is
          this.memoryWall = lb.memoryWall;
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
      const rp = new RenderPage(id, context, page, cdp, maxRenders, this.opts.renderTimeoutMs);
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
      // and the allocation budget: an iframe's realm counts into its page's budget
      await page.evaluateOnNewDocument(this.files.get('/alloc-guard.js')!.body.toString('utf8'));
      await quietDomains(page);
      await rp.load(15000, false);
      await rp.render(await toWire(WARMUP));
      await rp.render(await toWire({ ...WARMUP, format: 'svg' }));
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

  private async destroyPage(rp: RenderPage): Promise<void> {
    this.livePages.delete(rp);
    this.leased.delete(rp);
    this.switching.delete(rp);
    this.counters.pagesDestroyed++;
    rp.markDead('destroyed');
    try {
      // Closing the context closes its page and drops everything it stored.
      await withDeadline(rp.context.close(), 3000, 'context close');
    } catch {
      /* the browser may already be gone; nothing is left to free */
    }
  }

  /**
   * A slot of the gate for `owner`, then a page. The slot is given back by giveBack(), or here
   * when no page comes (generic-pool's acquire timeout: the pool is refilling after a crash).
   * A request whose `signal` aborts while it waits leaves the queue and takes no page.
   */
  private async acquire(owner: string, signal?: AbortSignal, version: ChartjsVersion = DEFAULT_CHARTJS): Promise<RenderPage> {
    if (this.closing) throw new RenderError('busy', 'shutting down');
    const wait = this.gate.enter(owner, signal);
    if (wait) {
      try {
        await wait;
      } catch (err) {
        const gone = err instanceof AdmissionRefused && err.reason === 'aborted';
        if (!gone) this.counters.queueRejections++;
        const e = err as Error;
        throw new RenderError('busy', e.message, err instanceof AdmissionRefused ? err.retryAfterMs : undefined);
      }
    }
    let rp: RenderPage;
    try {
      if (this.closing) throw new Error('shutting down');
      rp = await this.takePage(version);
    } catch (err) {
      this.gate.leave();
      this.counters.queueRejections++;
      const msg = (err as Error).message;
      throw new RenderError('busy', /waitingClients/.test(msg) ? 'render queue is full' : /shutting down|draining/.test(msg) ? 'shutting down' : 'no renderer free in time');
    }
    if (signal?.aborted) {
      // gone while generic-pool found the page: nothing ran on it, so no reset
      void this.giveBack(rp, false, undefined);
      throw new RenderError('busy', 'the client went away');
    }
    return rp;
  }

  private idleOf(version: ChartjsVersion): number {
    let n = 0;
    for (const rp of this.livePages) if (rp.version === version && !rp.dead && !this.leased.has(rp)) n++;
    return n;
  }

  /**
   * A page from generic-pool, of `version` when an idle one exists. generic-pool hands out the
   * page returned last and cannot be asked for a kind: while an idle page of the version is
   * still in it, the pages handed out first are held aside and given back at once (a few ms,
   * and only when versions are mixed). Otherwise the first page is returned as it is and
   * render() loads the version's harness on it.
   */
  private async takePage(version: ChartjsVersion, mayWait = true): Promise<RenderPage> {
    const first = await this.pool.acquire();
    this.leased.add(first);
    if (first.version === version) return first;
    const aside: RenderPage[] = [];
    let found: RenderPage | undefined;
    try {
      while (!found && this.idleOf(version) > 0 && this.pool.available > 0) {
        const next = await this.pool.acquire();
        this.leased.add(next);
        if (next.version === version) found = next;
        else aside.push(next);
      }
    } catch (err) {
      this.putBack(first);
      throw err;
    } finally {
      for (const rp of aside) this.putBack(rp);
    }
    if (found) {
      this.putBack(first);
      return found;
    }
    // Under load with mixed versions every lease would switch a page (about 150 ms each, against
    // a few ms a render): when a page of the version is busy, wait a little for it instead.
    if (mayWait && this.busyOf(version) > 0) {
      this.putBack(first);
      await this.pageBack(version, this.opts.versionWaitMs ?? VERSION_WAIT_MS);
      return this.takePage(version, false);
    }
    // decided here, synchronously: a request deciding at the same time sees this page as busy
    // with the version and waits for it rather than switching a second page
    this.switching.set(first, version);
    return first;
  }

  private busyOf(version: ChartjsVersion): number {
    let n = 0;
    for (const rp of this.leased) if ((this.switching.get(rp) ?? rp.version) === version && !rp.dead) n++;
    return n;
  }

  /** Resolves when a page of `version` is given back to generic-pool, or after ms. */
  private pageBack(version: ChartjsVersion, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const w = {
        version,
        wake: () => {
          clearTimeout(timer);
          this.versionWaiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.wake, ms);
      this.versionWaiters.add(w);
    });
  }

  /** A page taken from generic-pool but not used: back at once, with no reset. */
  private putBack(rp: RenderPage): void {
    this.leased.delete(rp);
    this.switching.delete(rp);
    void this.pool.release(rp).catch(() => {});
  }

  /** Loads `version`'s harness on a page of another version (a clean page: no storage to wipe). */
  private async switchVersion(rp: RenderPage, version: ChartjsVersion): Promise<void> {
    this.counters.versionSwitches++;
    try {
      await rp.load(Math.min(15000, Math.max(3000, this.opts.renderTimeoutMs)), false, version);
    } catch (err) {
      rp.markDead('version switch failed');
      throw new RenderError('crash', `the Chart.js ${version} page did not load: ${(err as Error).message}`);
    } finally {
      this.switching.delete(rp);
    }
  }

  /**
   * Pages of a version nobody asked for within idleMs go back to the default version, one at a
   * time, and only through a slot of the gate that is free while nobody waits: it never takes a
   * page from a waiting request (one arriving meanwhile may wait for the switch, ~150 ms).
   */
  private async sweepVersions(idleMs: number): Promise<void> {
    if (this.closing || !this.pool) return;
    const now = performance.now();
    for (const v of CHARTJS_VERSIONS) {
      if (v === DEFAULT_CHARTJS || now - (this.lastAsked.get(v) ?? -Infinity) < idleMs || this.idleOf(v) === 0) continue;
      if (!this.gate.tryEnter()) return;
      let rp: RenderPage | undefined;
      try {
        rp = await this.takePage(v, false);
        if (rp.version === v) await this.switchVersion(rp, DEFAULT_CHARTJS);
      } catch (err) {
        if (!rp) {
          this.gate.leave();
          return;
        }
        this.log.warn({ err }, 'switching a page back to the default Chart.js version failed');
      }
      if (rp) void this.giveBack(rp, false, undefined);
      return;
    }
  }

  /**
   * Renders on a leased page; the page is given back (or replaced) without delaying the caller.
   * `owner` (an account, a client address) is whom the admission queue keeps fair between;
   * `signal` (the client's connection) takes the request out of the queue when it aborts.
   */
  async render(req: PageRequest, owner = '', signal?: AbortSignal): Promise<PageResult> {
    const version = req.chartjs ?? DEFAULT_CHARTJS;
    this.lastAsked.set(version, performance.now());
    const wire = await toWire(this.opts.renderMemoryMb ? { ...req, memoryBudgetMb: this.opts.renderMemoryMb } : req, this.opts.deflateFrom);
    const rp = await tracer().span('admission wait', { 'chartshot.chartjs': version }, async (span) => {
      const asked = performance.now();
      const page = await this.acquire(owner, signal, version);
      span.set({ 'chartshot.queue_wait_ms': performance.now() - asked, 'chartshot.page.id': page.id });
      return page;
    });
    const leased = performance.now();
    let reset = true;
    try {
      if (rp.version !== version) await this.switchVersion(rp, version);
      this.counters.renders++;
      const oomBefore = this.oomKills();
      const res = await tracer().span('page render', pageAttributes(req, rp.id), () => rp.render(wire, req.deadlineMs)).catch((err: unknown) => {
        throw this.oomKills() > oomBefore ? this.overMemory() : err;
      });
      rp.renders++;
      // no caller code ran, or all of it was proven pure and left nothing behind
      reset = res.needsReset !== false;
      return res;
    } finally {
      // a refused config may have left half-built state behind: reset before reuse
      void this.giveBack(rp, reset, leased);
    }
  }

  /** Processes of Chromium the kernel's OOM killer ended inside its cgroup (0 without one). */
  private oomKills(): number {
    return this.current?.cgroup?.oomKills() ?? 0;
  }

  /** A renderer ended by the cgroup's OOM killer during a render: a clear error, not a crash. */
  private overMemory(): RenderError {
    const mb = this.current?.memoryWall.limitMb;
    return new RenderError('memory', `the render exceeded Chromium's memory limit (CHROMIUM_MEMORY_MB = ${mb} MB) and its renderer was stopped`);
  }

  /** The in-page floor: how long Chart.js itself takes per render on a leased page. */
  async floor(req: PageRequest, n: number): Promise<{ msPerRender: number }> {
    const version = req.chartjs ?? DEFAULT_CHARTJS;
    const rp = await this.acquire('', undefined, version);
    try {
      if (rp.version !== version) await this.switchVersion(rp, version);
      return await rp.floor(req, n);
    } finally {
      // n renders in one lease: not a sample of the usual hold time
      void this.giveBack(rp, false, undefined);
    }
  }

  /** An invoice printed to PDF by the same browser (printer.ts). */
  pdfFromHtml(html: string, owner = '', timeoutMs = 15000): Promise<Buffer> {
    if (this.closing) return Promise.reject(new RenderError('busy', 'shutting down'));
    return this.printer.pdfFromHtml(html, owner, timeoutMs);
  }

  /** Returns (or replaces) a page, then frees its gate slot: exactly once per lease. `leased`
   *  (performance.now() at lease) feeds the gate's average hold time; undefined = no sample. */
  private async giveBack(rp: RenderPage, reset: boolean, leased: number | undefined): Promise<void> {
    try {
      // a render past its deadline was interrupted: reset once its script stopped, else replaced
      const interruption = rp.takeInterruption();
      const interrupted = interruption !== null;
      if (interrupted) {
        this.counters.renderInterrupts++;
        if (!(await interruption)) rp.markDead('the interrupted script did not stop');
      }
      if (rp.dead || rp.renders >= rp.maxRenders) {
        await this.pool.destroy(rp);
        return;
      }
      if (reset) {
        this.counters.pageResets++;
        try {
          // an interrupted script may have left timers that keep the page too busy to navigate:
          // a short wait, then a new page (a reset takes tens of ms on a page that can navigate)
          await rp.load(interrupted ? INTERRUPTED_RESET_MS : Math.min(15000, Math.max(3000, this.opts.renderTimeoutMs)), true);
        } catch (err) {
          this.log.warn({ err }, 'page reset failed; replacing it');
          await this.pool.destroy(rp);
          return;
        }
      }
      this.leased.delete(rp);
      this.switching.delete(rp);
      await this.pool.release(rp);
      for (const w of this.versionWaiters) {
        if (w.version === rp.version) {
          w.wake();
          break;
        }
      }
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
      ...(this.memoryWall && { memoryWall: { ...this.memoryWall, renderBudgetMb: this.opts.renderMemoryMb ?? DEFAULT_RENDER_MEMORY_MB } }),
      prints: this.printer.stats(),
      versions: this.versionCounts(),
    };
  }

  private versionCounts(): Record<ChartjsVersion, number> {
    const out: Record<ChartjsVersion, number> = { 2: 0, 3: 0, 4: 0 };
    for (const rp of this.livePages) if (!rp.dead) out[rp.version]++;
    return out;
  }

  private rendererInfo(): RendererInfo {
    const info: RendererInfo = { sandbox: this.sandboxMode === 'off' ? 'off' : 'on', mode: this.sandboxMode!, uid: this.chromiumUid };
    if (this.print) info.fingerprint = this.print.header();
    return info;
  }

  /** What draws this pool's images; known once start() resolved. */
  fingerprint(): RendererFingerprint {
    if (!this.print) throw new Error('pool not started');
    return this.print;
  }

  /** The running browser's launch (pid, cgroup), for tests and diagnostics. */
  currentLaunch(): LaunchedBrowser | null {
    return this.current;
  }

  /** The running browser, for tests and diagnostics that count its targets or inspect pages. */
  currentBrowser(): Browser | null {
    return this.current?.browser ?? null;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.sweepTimer);
    // Whoever still waits for a page gets a clean 503 now rather than a drained pool later.
    this.gate.close();
    this.printer.close();
    if (this.pool) {
      await withDeadline(this.pool.drain().then(() => this.pool.clear()), 15000, 'pool drain').catch((err) =>
        this.log.warn({ err }, 'pool drain incomplete'),
      );
    }
    const lb = this.current ?? (this.launching ? await this.launching.catch(() => null) : null);
    this.current = null;
    await lb?.close();
    this.fonts?.remove();
  }
}

/** What a page render span says about its chart (no config content: it may be private). */
function pageAttributes(req: PageRequest, pageId: number): SpanAttributes {
  const type = req.configJs !== undefined ? 'javascript' : typeof req.config.type === 'string' ? req.config.type.slice(0, 32) : 'mixed';
  return {
    'chartshot.page.id': pageId,
    'chartshot.chart.type': type,
    'chartshot.chartjs': req.chartjs ?? DEFAULT_CHARTJS,
    'chartshot.width': req.width,
    'chartshot.height': req.height,
    'chartshot.format': req.format,
    'chartshot.device_pixel_ratio': req.devicePixelRatio ?? 1,
  };
}
