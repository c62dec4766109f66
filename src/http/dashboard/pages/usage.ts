// The usage page: the period's numbers, the daily chart (an SVG of our own engine, shown as an
// image so nothing in it can run) and the charts with the most hits.
import type { UsageView } from '../../../services/dashboard/index.js';
import { html, isoMinute, num } from '../html.js';
import { page, type PageContext } from '../layout.js';
import { usageCards } from './overview.js';

export function usagePage(p: PageContext, v: UsageView, unlimited: boolean, publicBaseUrl: string): string {
  const src = `data:image/svg+xml;base64,${v.chart.svg.toString('base64')}`;
  const top = v.top.map(
    (t) => html`<tr><td><a href="${`${publicBaseUrl}/v1/chart/${encodeURIComponent(t.chartId)}`}"><code>${t.chartId}</code></a></td><td class="n">${num(t.hitCount)}</td><td class="n">${num(t.errorCount)}</td><td class="n">${num(t.renderCount)}</td>
<td class="n">${t.renderCount ? Math.round(t.renderMsTotal / t.renderCount) : '-'}</td><td>${isoMinute(t.lastAccessed)}</td></tr>`,
  );
  return page(
    p,
    'Usage',
    html`${usageCards(v.analytics, unlimited)}
<section class="chart"><h2>${v.chart.bucketDays === 7 ? 'Weekly' : 'Daily'} generations and errors, last ${v.windowDays} days</h2>
<img src="${src}" width="960" height="280" alt="${`Daily generations (${num(v.chart.totals.generations)} in all) and errors (${num(v.chart.totals.errors)}) over the last ${v.windowDays} days`}">
<p class="muted">${num(v.analytics.quickStats.totalRequests)} requests in the window: ${num(v.chart.totals.generations)} generations, ${num(v.chart.totals.errors)} errors.</p></section>
<section><h2>Top charts by hits</h2>
<table><thead><tr><th>Chart</th><th class="n">Hits</th><th class="n">Errors</th><th class="n">Renders</th><th class="n">Avg render ms</th><th>Last accessed</th></tr></thead>
<tbody>${top.length ? top : html`<tr><td colspan="6" class="muted">No short charts yet (POST /v1/chart/create).</td></tr>`}</tbody></table></section>`,
  );
}
