// The fidelity oracle: what plain Chart.js draws for a config on a plain <canvas> in the same
// Chromium, with the same vendored Chart.js build and plugins, and nothing of chartshot's page
// (no harness). A chartshot image is compared with it pixel for pixel.
//
//   const oracle = await FidelityOracle.launch();
//   const page = await oracle.page(['chart.umd.js', 'chartjs-adapter-date-fns.js']);
//   const png = await oracle.draw(page, config, { width: 500, height: 300, background: '#ffffff' });
//
// Only what chartshot forces is applied: responsive and animation off, the device pixel ratio
// asked (1 by default). A page may define `window.oraclePrepare(cfg, extra)` in its setup script
// to write a config as a browser page would (a plugin registered per chart, GeoJSON made from a
// topology, a reseeded Math.random); it runs just before the chart is made.
//
// In a time zone: FidelityOracle.launch({ timezone }), a Chromium started with TZ set to it (as
// a reader's browser in that zone), no emulation. In a locale: headless Chromium's Intl stays
// en-US whatever LANG, LANGUAGE or --lang it starts with, so a page made with
// { ownContext: true } (a renderer process of its own: Chromium emulates per process), then
// oracle.emulate(page, { timezone, locale }), Chromium's own emulation, the page loaded afresh in it.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CDPSession, Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A script of an oracle page: a file of renderer-page/vendor by name, or any file of the repository by its path. */
export type OracleScript = string | { file: string };

export interface DrawOptions {
  width: number;
  height: number;
  /** Chart.js's documented way to give a canvas a background: a plugin filling behind the chart. None when absent. */
  background?: string | null;
  /** devicePixelRatio (1 when absent). */
  ratio?: number;
  /** Animation frames to let run before the canvas is read (what a browser shows once its frames ran). */
  frames?: number;
  /** Handed to the page's `oraclePrepare` as its second argument (JSON). */
  extra?: unknown;
  /** The canvas's encoding (toDataURL's type; PNG when absent) and, for WebP and JPEG, its quality 0-1. */
  type?: 'image/png' | 'image/webp' | 'image/jpeg';
  quality?: number;
}

const scriptText = (s: OracleScript) =>
  readFileSync(typeof s === 'string' ? join(ROOT, 'renderer-page/vendor', s) : join(ROOT, s.file), 'utf8').replace(/<\/script/gi, '<\\/script');

export class FidelityOracle {
  private readonly pages = new Map<string, Promise<Page>>();
  /** Each page's document, to load it again (emulate), and its session of emulate(). */
  private readonly documents = new Map<Page, string>();
  private readonly sessions = new Map<Page, Promise<CDPSession>>();
  private blank: Promise<Page> | null = null;

  private constructor(private readonly lb: LaunchedBrowser) {}

  /** A Chromium of its own, launched as the service launches its own (the same executable); `timezone`: its TZ (UTC when absent). */
  static async launch(opts: { timezone?: string } = {}): Promise<FidelityOracle> {
    return new FidelityOracle(await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath, ...(opts.timezone ? { timezone: opts.timezone } : {}) }, createLogger('silent')));
  }

  /** A page with these scripts loaded in order, then `setup`; the same scripts and setup give the same page.
   *  `ownContext`: in a browser context of its own (its own renderer process), for emulate(). */
  page(scripts: OracleScript[], setup = '', opts: { ownContext?: boolean } = {}): Promise<Page> {
    const key = JSON.stringify([scripts, setup, opts.ownContext === true]);
    let page = this.pages.get(key);
    if (!page) {
      page = (async () => {
        const p = opts.ownContext ? await (await this.lb.browser.createBrowserContext()).newPage() : await this.lb.browser.newPage();
        const tags = scripts.map((s) => `<script>${scriptText(s)}</script>`).join('\n');
        const html = `<!doctype html><html><body style="margin:0">${tags}${setup ? `<script>${setup}</script>` : ''}</body></html>`;
        this.documents.set(p, html);
        await p.setContent(html);
        return p;
      })();
      this.pages.set(key, page);
    }
    return page;
  }

  /**
   * Puts a page made with ownContext in a time zone and locale with Chromium's own emulation (the
   * zone of Date and Intl, Intl's default locale, navigator.language), then loads its document
   * again: Chart.js keeps page-wide caches (a number formatter per locale) that a reader's browser
   * starts without, and its scripts run anew. (setContent keeps the window: a setup script that
   * wraps a built-in wraps it once.)
   */
  async emulate(page: Page, zone: { timezone: string; locale: string }): Promise<void> {
    // one session a page: its emulation lasts while it is attached, and a second one's would collide
    let cdp = this.sessions.get(page);
    if (!cdp) this.sessions.set(page, (cdp = page.createCDPSession()));
    const session = await cdp;
    await session.send('Emulation.setTimezoneOverride', { timezoneId: zone.timezone });
    await session.send('Emulation.setLocaleOverride', { locale: zone.locale });
    await session.send('Emulation.setUserAgentOverride', { userAgent: '', acceptLanguage: zone.locale });
    await page.setContent(this.documents.get(page)!);
  }

  /** The PNG plain Chart.js draws for `chart` on `page` (or its WebP or JPEG: opts.type). */
  async draw(page: Page, chart: unknown, opts: DrawOptions): Promise<Buffer> {
    const b64 = await page.evaluate(
      async (cfgText: string, w: number, h: number, bg: string | null, ratio: number, frames: number, extraText: string, type: string, quality: number | null) => {
        const win = window as unknown as {
          Chart: new (c: HTMLCanvasElement, cfg: unknown) => { destroy(): void };
          oraclePrepare?: (cfg: Record<string, unknown>, extra: unknown) => void;
        };
        const cfg = JSON.parse(cfgText) as { options?: Record<string, unknown>; plugins?: unknown[] };
        cfg.options = Object.assign({}, cfg.options, { responsive: false, animation: false, devicePixelRatio: ratio });
        const plugins: unknown[] = [];
        cfg.plugins = plugins;
        if (win.oraclePrepare) win.oraclePrepare(cfg as Record<string, unknown>, JSON.parse(extraText));
        if (bg) {
          plugins.push({
            id: 'bg',
            beforeDraw(c: { ctx: CanvasRenderingContext2D; width: number; height: number }) {
              c.ctx.save();
              c.ctx.globalCompositeOperation = 'destination-over';
              c.ctx.fillStyle = bg;
              c.ctx.fillRect(0, 0, c.width, c.height);
              c.ctx.restore();
            },
          });
        }
        if (plugins.length === 0) delete cfg.plugins;
        const canvas = document.createElement('canvas');
        canvas.width = w;
        canvas.height = h;
        document.body.appendChild(canvas);
        const chart = new win.Chart(canvas, cfg);
        for (let i = 0; i < frames; i++) await new Promise((r) => requestAnimationFrame(r));
        const url = quality === null ? canvas.toDataURL(type) : canvas.toDataURL(type, quality);
        chart.destroy();
        canvas.remove();
        return url.slice(url.indexOf(',') + 1);
      },
      JSON.stringify(chart),
      opts.width,
      opts.height,
      opts.background ?? null,
      opts.ratio ?? 1,
      opts.frames ?? 0,
      JSON.stringify(opts.extra ?? null),
      opts.type ?? 'image/png',
      opts.quality ?? null,
    );
    return Buffer.from(b64, 'base64');
  }

  /** Chromium rasterises an SVG onto a canvas of its size (to compare an SVG with a PNG). */
  async rasterise(svg: string, width: number, height: number): Promise<Buffer> {
    this.blank ??= this.lb.browser.newPage();
    const b64 = await (await this.blank).evaluate(
      async (text: string, w: number, h: number) => {
        const img = new Image();
        img.src = 'data:image/svg+xml;base64,' + btoa(unescape(encodeURIComponent(text)));
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = w;
        canvas.height = h;
        canvas.getContext('2d')!.drawImage(img, 0, 0);
        const url = canvas.toDataURL('image/png');
        return url.slice(url.indexOf(',') + 1);
      },
      svg,
      width,
      height,
    );
    return Buffer.from(b64, 'base64');
  }

  /** A blank page of the oracle's browser, for a test's own use (closed with the browser). */
  newPage(): Promise<Page> {
    return this.lb.browser.newPage();
  }

  close(): Promise<void> {
    return this.lb.close();
  }
}
