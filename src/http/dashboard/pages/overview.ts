// The overview page: plan, account state and the period's usage at a glance.
import type { UsageAnalytics } from '../../../services/usage.js';
import type { AccountState } from '../../../services/dashboard/index.js';
import { html, num, type Html } from '../html.js';
import { page, type PageContext } from '../layout.js';
import { stateBadge } from './billing.js';

export function usageCards(a: UsageAnalytics, unlimited: boolean): Html {
  const u = a.currentUsage;
  const q = a.quickStats;
  const card = (value: string, label: string, id: string) => html`<div class="card" data-stat="${id}"><b>${value}</b><span>${label}</span></div>`;
  return html`<div class="cards">
${card(num(u.count), 'generations this period', 'count')}
${card(unlimited ? 'unlimited' : num(u.limit), 'limit', 'limit')}
${card(unlimited ? '-' : num(u.remaining), 'remaining', 'remaining')}
${card(u.resetTime.slice(0, 10), 'resets (UTC)', 'reset')}
${card(`${q.successRate}%`, 'success rate', 'success')}
${card(`${q.averageRenderTime} ms`, 'average render time', 'render')}
${card(`${q.cacheHitRate}%`, 'cache hit rate', 'cache')}
</div>`;
}

export function overviewPage(p: PageContext, a: UsageAnalytics, state: AccountState, unlimited: boolean): string {
  const acc = p.account!;
  return page(
    p,
    'Overview',
    html`<section><h2>Account</h2><p>Account <code>${acc.id}</code> on the <b>${acc.plan}</b> plan. ${stateBadge(state)}</p></section>
<h2>This period</h2>${usageCards(a, unlimited)}
<p><a href="/dashboard/usage">Daily usage and top charts</a> · <a href="/dashboard/keys">API keys</a> · <a href="/dashboard/billing">Billing</a></p>`,
  );
}
