// The invoice as a self-contained HTML document (no scripts, no external resources), printed to
// PDF by Chromium (Renderer.pdfFromHtml).
import type { Account } from '../store/types.js';
import type { Invoice } from '../store/metering.js';

export const gbp = (pence: number) => `${pence < 0 ? '-' : ''}£${(Math.abs(pence) / 100).toFixed(2)}`;
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const KIND: Record<string, string> = { plan: 'Plan', proration: 'Proration', overage: 'Overage', credit: 'Credit', discount: 'Volume discount' };

export function invoiceHtml(inv: Invoice, account: Account, serviceName = 'chartshot'): string {
  const rows = inv.lines
    .map((l) => `<tr><td>${esc(KIND[l.kind] ?? l.kind)}</td><td>${esc(l.description)}</td><td class="n">${esc(gbp(l.amountPence))}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Invoice ${esc(inv.id)}</title>
<style>
  body { font-family: 'Liberation Sans', Arial, sans-serif; color: #111; margin: 40px; font-size: 12px; }
  h1 { font-size: 22px; margin: 0 0 4px; }
  .muted { color: #555; }
  table { width: 100%; border-collapse: collapse; margin-top: 24px; }
  th, td { text-align: left; padding: 8px 6px; border-bottom: 1px solid #ddd; vertical-align: top; }
  th { background: #f3f4f6; }
  td.n, th.n { text-align: right; white-space: nowrap; }
  tfoot td { font-weight: bold; border-bottom: none; }
  .meta td { border: none; padding: 2px 6px 2px 0; }
</style></head>
<body>
  <h1>${esc(serviceName)} invoice</h1>
  <div class="muted">Invoice ${esc(inv.id)}</div>
  <table class="meta">
    <tr><td>Account</td><td>${esc(account.id)}${account.email ? ` (${esc(account.email)})` : ''}</td></tr>
    <tr><td>Issued</td><td>${day(inv.issuedAt)}</td></tr>
    <tr><td>Period</td><td>${day(inv.periodStart)} to ${day(inv.periodEnd)}</td></tr>
    <tr><td>Plan</td><td>${esc(inv.plan)} (${esc(inv.cycle)})</td></tr>
    <tr><td>Status</td><td>${esc(inv.status)}</td></tr>
  </table>
  <table>
    <thead><tr><th>Item</th><th>Description</th><th class="n">Amount</th></tr></thead>
    <tbody>
${rows}
    </tbody>
    <tfoot><tr><td></td><td>Total (GBP)</td><td class="n">${esc(gbp(inv.totalPence))}</td></tr></tfoot>
  </table>
</body></html>`;
}
