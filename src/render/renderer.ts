// The renderer as services see it: Chart.js configs drawn on pooled Chromium pages, invoices
// printed to PDF, and what draws them. It puts the parts together and gives each its job:
// the supervisor keeps the browser, the factory makes pages, the pool leases them (with
// version affinity), the printer prints. Why in parts: docs/decisions/0020-render-in-parts.md.
import type { Browser } from 'puppeteer-core';
import type { LaunchedBrowser } from './browser.js';
import { BrowserSupervisor } from './supervisor.js';
import { PageFactory } from './pageFactory.js';
import { PagePool } from './pool.js';
import { DocumentPrinter } from './printer.js';
import { loadHarnessFiles } from './harness.js';
import type { PageResult, RenderPage } from './page.js';
import { RenderError } from './renderError.js';
import type { PageRequest } from './wire.js';
import { fingerprintOf, fontsHash, type RendererFingerprint } from './fingerprint.js';
import { poolStats, type PoolStats } from './stats.js';
import type { Logger } from '../log.js';
import type { Config } from '../config.js';
import { DEFAULT_LOCALE, DEFAULT_TIMEZONE, type ZoneLocale } from '../chart/zoneLocale.js';

export { RenderError } from './renderError.js';
export type { PageRequest } from './wire.js';
export type { PageResult, PartBox } from './page.js';
export type { PoolStats, RendererInfo } from './stats.js';

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
  /** TIMEZONE: the zone a render that names none is drawn in (default UTC). */
  timezone?: string;
  /** LOCALE: the locale a render that names none is drawn in (default en-US). */
  locale?: string;
}

export class Renderer {
  private readonly supervisor: BrowserSupervisor;
  private readonly factory: PageFactory;
  private readonly pool: PagePool;
  /** Invoice prints: a gate of their own (default one at a time), so a burst of downloads
   *  opens at most that many extra pages and never takes a render's page. */
  private readonly printer: DocumentPrinter;
  private print: RendererFingerprint | null = null;
  private closing = false;

  constructor(
    private readonly opts: PoolOptions,
    log: Logger,
  ) {
    this.supervisor = new BrowserSupervisor(opts, log, (browser) => this.factory.browserGone(browser));
    this.factory = new PageFactory(opts, loadHarnessFiles(opts.harnessDir), this.supervisor, log);
    this.pool = new PagePool(opts, this.factory, this.supervisor, log);
    this.printer = new DocumentPrinter(
      { maxPrints: opts.maxPrints, maxPrintQueue: opts.maxPrintQueue, acquireTimeoutMs: opts.acquireTimeoutMs },
      async () => (await this.supervisor.browser()).browser,
    );
  }

  /** Launches the browser and pre-warms every page; resolves when the pool is full. */
  async start(): Promise<void> {
    // Chromium's fontconfig file first; the font files are listed while the browser starts:
    // off the request path, once
    await this.supervisor.prepare();
    const fonts = fontsHash(this.opts.fontsDir ?? null);
    const lb = await this.supervisor.browser();
    this.print = await fingerprintOf(lb.browser.version(), fonts, this.zone);
    await this.pool.start();
  }

  /**
   * Renders on a leased page (pool.ts). `owner` (an account, a client address) is whom the
   * admission queue keeps fair between; `signal` (the client's connection) takes the request
   * out of the queue when it aborts.
   */
  render(req: PageRequest, owner = '', signal?: AbortSignal): Promise<PageResult> {
    return this.pool.render(req, owner, signal);
  }

  /** The in-page floor: how long Chart.js itself takes per render on a leased page. */
  floor(req: PageRequest, n: number): Promise<{ msPerRender: number; checkMsPerRender: number }> {
    return this.pool.floor(req, n);
  }

  /** An invoice printed to PDF by the same browser (printer.ts). */
  pdfFromHtml(html: string, owner = '', timeoutMs = 15000): Promise<Buffer> {
    if (this.closing) return Promise.reject(new RenderError('busy', 'shutting down'));
    return this.printer.pdfFromHtml(html, owner, timeoutMs);
  }

  stats(): PoolStats {
    return poolStats({
      size: this.opts.size,
      pool: this.pool.stats(),
      counters: this.pool.counters,
      pages: this.factory.counters,
      browser: { restarts: this.supervisor.restarts, connected: this.supervisor.connected, containment: this.supervisor.containment() },
      versions: this.pool.versions.counts(),
      versionSwitches: this.pool.versions.switches,
      resetsByReason: this.pool.resets.snapshot({ version_switch: this.pool.versions.switches }),
      prints: this.printer.stats(),
      renderMemoryMb: this.opts.renderMemoryMb,
      fingerprint: this.print?.header(),
    });
  }

  /** TIMEZONE and LOCALE: the zone and locale a render that names none is drawn in. */
  get zone(): ZoneLocale {
    return { timezone: this.opts.timezone ?? DEFAULT_TIMEZONE, locale: this.opts.locale ?? DEFAULT_LOCALE };
  }

  /** What draws this renderer's images; known once start() resolved. */
  fingerprint(): RendererFingerprint {
    if (!this.print) throw new Error('pool not started');
    return this.print;
  }

  /** Profile directories of every browser launched (tests look for leftovers). */
  get profiles(): string[] {
    return this.supervisor.profiles;
  }

  /** The running browser's launch (pid, cgroup), for tests and diagnostics. */
  currentLaunch(): LaunchedBrowser | null {
    return this.supervisor.launch;
  }

  /** Every live page, for tests and diagnostics that watch a page's CDP traffic. */
  livePages(): ReadonlySet<RenderPage> {
    return this.factory.live;
  }

  /** The running browser, for tests and diagnostics that count its targets or inspect pages. */
  currentBrowser(): Browser | null {
    return this.supervisor.launch?.browser ?? null;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.supervisor.stopRelaunching();
    // Whoever still waits for a page or a print gets a clean 503 now rather than a drained pool later.
    this.printer.close();
    await this.pool.close();
    await this.supervisor.close();
  }
}

/** The renderer an instance's configuration describes, started (the server, `chartshot render`, `chartshot test`, MCP over stdio). */
export async function startPool(config: Config, log: Logger): Promise<Renderer> {
  const pool = new Renderer(
    {
      chromiumPath: config.chromiumPath,
      size: config.poolSize,
      renderTimeoutMs: config.renderTimeoutMs,
      acquireTimeoutMs: config.acquireTimeoutMs,
      maxQueue: config.maxQueue,
      pageMaxRenders: config.pageMaxRenders,
      ...(config.chromiumMemoryMb > 0 && { memoryWall: { memoryMb: config.chromiumMemoryMb, pidsMax: config.chromiumPidsMax } }),
      renderMemoryMb: config.renderMemoryMb,
      fontsDir: config.fontsDir,
      timezone: config.timezone,
      locale: config.locale,
    },
    log,
  );
  await pool.start();
  return pool;
}
