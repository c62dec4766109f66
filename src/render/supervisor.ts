// Keeps one Chromium running for the renderer: launches it (browser.ts), relaunches it when it
// disconnects, closes popups it opens, and says how it is contained. It knows no pages: on a
// disconnect it tells whoever made them (the page factory) which browser is gone.
// Why crash-only: docs/decisions/0007-crash-only-browser.md.
import type { Browser } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser, type SandboxMode } from './browser.js';
import { RenderError } from './renderError.js';
import { prepareFonts, type PreparedFonts } from './fonts.js';
import type { MemoryWallStatus } from './cgroup.js';
import type { Logger } from '../log.js';

export interface SupervisorOptions {
  chromiumPath: string;
  /** The cgroup around Chromium (cgroup.ts); absent: none is made. */
  memoryWall?: { memoryMb: number; pidsMax: number };
  /** FONTS_DIR: fonts every page can draw with (fonts.ts); null or absent: system fonts. */
  fontsDir?: string | null;
  /** TIMEZONE: Chromium's TZ (browser.ts). */
  timezone?: string;
}

export class BrowserSupervisor {
  private current: LaunchedBrowser | null = null;
  private launching: Promise<LaunchedBrowser> | null = null;
  private closing = false;
  /** Relaunches after a disconnect. */
  restarts = 0;
  /** The sandbox mode the first launch settled on (relaunches reuse it), and Chromium's uid. */
  private sandboxMode: SandboxMode | undefined;
  private chromiumUid = -1;
  private wall: MemoryWallStatus | undefined;
  /** Chromium's fontconfig file and the fonts it names (written at start, removed at close). */
  private fonts: PreparedFonts | null = null;
  /** Profile directories of every browser launched here (tests look for leftovers). */
  readonly profiles: string[] = [];

  constructor(
    private readonly opts: SupervisorOptions,
    private readonly log: Logger,
    /** Called when a browser disconnected: its pages are dead. */
    private readonly onDisconnect: (browser: Browser) => void,
  ) {}

  /** Writes Chromium's fontconfig file: every launch, relaunches too, reads it. */
  async prepare(): Promise<void> {
    this.fonts = await prepareFonts(this.opts.fontsDir ?? null);
  }

  /** The running browser, launched (once, however many ask at the same time) when there is none. */
  browser(): Promise<LaunchedBrowser> {
    if (this.current?.browser.connected) return Promise.resolve(this.current);
    if (this.closing) return Promise.reject(new Error('pool is closing'));
    if (!this.launching) {
      this.launching = launchBrowser({ chromiumPath: this.opts.chromiumPath, sandbox: this.sandboxMode, memoryWall: this.opts.memoryWall, fontconfigFile: this.fonts?.configFile, timezone: this.opts.timezone }, this.log)
        .then((lb) => {
          this.sandboxMode = lb.sandbox;
          this.chromiumUid = lb.uid;
          // kept while a relaunch is under way: /v1/status still says what the wall is
          this.wall = lb.memoryWall;
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
      this.onDisconnect(b);
      if (this.closing) return;
      this.restarts++;
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

  get connected(): boolean {
    return this.current?.browser.connected === true;
  }

  /** The running browser's launch (pid, cgroup), or null between a crash and the relaunch. */
  get launch(): LaunchedBrowser | null {
    return this.current;
  }

  /** How the browser is contained; undefined before the first launch. */
  containment(): { sandbox: SandboxMode; uid: number; memoryWall: MemoryWallStatus } | undefined {
    if (!this.sandboxMode || !this.wall) return undefined;
    return { sandbox: this.sandboxMode, uid: this.chromiumUid, memoryWall: this.wall };
  }

  /** Processes of Chromium the kernel's OOM killer ended inside its cgroup (0 without one). */
  oomKills(): number {
    return this.current?.cgroup?.oomKills() ?? 0;
  }

  /** A renderer ended by the cgroup's OOM killer during a render: a clear error, not a crash. */
  overMemory(): RenderError {
    const mb = this.current?.memoryWall.limitMb;
    return new RenderError('memory', `the render exceeded Chromium's memory limit (CHROMIUM_MEMORY_MB = ${mb} MB) and its renderer was stopped`);
  }

  /** No relaunch from now on (the pages are being drained). */
  stopRelaunching(): void {
    this.closing = true;
  }

  /** Closes the browser (or the one being launched) and removes the fontconfig file. */
  async close(): Promise<void> {
    this.closing = true;
    const lb = this.current ?? (this.launching ? await this.launching.catch(() => null) : null);
    this.current = null;
    await lb?.close();
    this.fonts?.remove();
  }
}
