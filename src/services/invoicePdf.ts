// Invoice PDFs: printed once per invoice status, then served from the store; concurrent downloads
// of one document share one print.
import { serviceUnavailable } from '../errors.js';
import { RenderError } from '../render/renderer.js';
import type { Account, ImageStore } from '../store/types.js';
import type { Invoice } from '../store/metering.js';
import type { Clock } from '../clock.js';
import { etagOf } from './imageCache.js';
import { invoiceHtml } from './invoiceHtml.js';

/** Prints an HTML document to PDF; `owner` is whom the printer's queue keeps fair between. */
export type PdfPrinter = (html: string, owner: string) => Promise<Buffer>;

export class InvoicePdfs {
  private readonly printing = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly images: ImageStore,
    private readonly clock: Clock,
    private readonly print: PdfPrinter | null,
  ) {}

  async get(inv: Invoice, account: Account): Promise<Buffer> {
    const key = `invoice-pdf:${inv.id}:${inv.status}`;
    const stored = await this.images.get(key);
    if (stored) return stored.body;
    let pending = this.printing.get(key);
    if (!pending) {
      // Removed only once stored (or failed): a download never finds neither.
      pending = this.printAndStore(key, inv, account).finally(() => this.printing.delete(key));
      this.printing.set(key, pending);
    }
    return pending;
  }

  private async printAndStore(key: string, inv: Invoice, account: Account): Promise<Buffer> {
    if (!this.print) throw new Error('no PDF printer configured');
    let pdf: Buffer;
    try {
      pdf = await this.print(invoiceHtml(inv, account), account.id);
    } catch (err) {
      if (err instanceof RenderError && err.kind === 'busy') throw serviceUnavailable((err.retryAfterMs ?? 1000) / 1000, err.message);
      throw err;
    }
    const now = this.clock.now();
    await this.images.put(key, { contentType: 'application/pdf', etag: etagOf(pdf), body: pdf, createdAt: now, expiresAt: null });
    return pdf;
  }
}
