// Invoices printed to PDF by the renderer's browser, each on a fresh locked-down page, through a
// gate of their own so a burst of downloads never takes a render's page.
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { AdmissionGate, AdmissionRefused } from './admission.js';
import { RenderError } from './renderError.js';
import { withDeadline } from '../settle.js';

export interface PrinterOptions {
  /** Prints at once; default 1. */
  maxPrints?: number;
  /** Prints allowed to wait for one of those; default 8. */
  maxPrintQueue?: number;
  /** The longest a print waits for its turn (at least 5 s). */
  acquireTimeoutMs: number;
}

// Each print gets a fresh page in a context of its own, JavaScript off and every request blocked
// (data: URLs aside), closed afterwards. The gate: maxPrints at once, a bounded fair queue, 503
// past it.
export class DocumentPrinter {
  private readonly gate: AdmissionGate;
  private counters = { running: 0, printed: 0 };
  private closing = false;

  constructor(
    opts: PrinterOptions,
    /** The running browser (launched or relaunched by the pool). */
    private readonly browser: () => Promise<Browser>,
  ) {
    this.gate = new AdmissionGate({
      slots: opts.maxPrints ?? 1,
      maxQueue: opts.maxPrintQueue ?? 8,
      maxWaitMs: Math.max(opts.acquireTimeoutMs, 5000),
      initialHoldMs: 300,
    });
  }

  async pdfFromHtml(html: string, owner = '', timeoutMs = 15000): Promise<Buffer> {
    if (this.closing) throw new RenderError('busy', 'shutting down');
    const wait = this.gate.enter(owner);
    if (wait) {
      try {
        await wait;
      } catch (err) {
        throw new RenderError('busy', `document printer busy: ${(err as Error).message}`, err instanceof AdmissionRefused ? err.retryAfterMs : undefined);
      }
    }
    const started = performance.now();
    this.counters.running++;
    let context: BrowserContext | undefined;
    try {
      if (this.closing) throw new RenderError('busy', 'shutting down');
      const browser = await this.browser();
      context = await withDeadline(browser.createBrowserContext(), timeoutMs, 'new context');
      const page: Page = await withDeadline(context.newPage(), timeoutMs, 'new page');
      await page.setJavaScriptEnabled(false);
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        const p = req.url().startsWith('data:') ? req.continue() : req.abort('blockedbyclient');
        void p.catch(() => {});
      });
      await withDeadline(page.setContent(html, { waitUntil: 'load' }), timeoutMs, 'document load');
      const pdf = await withDeadline(page.pdf({ format: 'A4', printBackground: true }), timeoutMs, 'pdf');
      this.counters.printed++;
      return Buffer.from(pdf);
    } finally {
      if (context) await withDeadline(context.close(), 3000, 'context close').catch(() => {});
      this.counters.running--;
      this.gate.leave(performance.now() - started);
    }
  }

  stats(): { running: number; waiting: number; printed: number } {
    return { ...this.counters, waiting: this.gate.stats().waiting };
  }

  /** Whoever still waits gets a clean 503 now. */
  close(): void {
    this.closing = true;
    this.gate.close();
  }
}
