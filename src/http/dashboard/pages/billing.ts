// The billing page: plan, cycle, period, amount due, invoices, the account's state (and what
// still works when suspended), plan change and cancellation.
import type { AccountState, BillingView } from '../../../services/dashboard/index.js';
import { CANCELLED_READ_ONLY_DAYS } from '../../../services/dashboard/index.js';
import { gbp, html, isoDate, num, type Html } from '../html.js';
import { csrfField, page, type PageContext } from '../layout.js';

const DUNNING_STEPS = ['', 'first payment attempt failed', 'second attempt failed (day 3)', 'final attempt failed (day 7)', 'suspended (day 10)'];

export function stateBadge(s: AccountState): Html {
  switch (s.kind) {
    case 'active':
      return s.cancelAt ? html`<span class="state cancelled" data-state="cancelling">Active until ${isoDate(s.cancelAt)} (cancelled)</span>` : html`<span class="state active" data-state="active">Active</span>`;
    case 'trial':
      return html`<span class="state active" data-state="trial">Trial</span>`;
    case 'past_due':
      return html`<span class="state past_due" data-state="past_due">Past due: ${DUNNING_STEPS[s.step] ?? `step ${s.step}`}</span>`;
    case 'suspended':
      return html`<span class="state suspended" data-state="suspended">Suspended (read-only)</span>`;
    case 'cancelled':
      return html`<span class="state cancelled" data-state="cancelled">Cancelled${s.readOnlyUntil ? html`, read-only until ${isoDate(s.readOnlyUntil)}` : ''}</span>`;
  }
}

function stateDetail(s: AccountState): Html {
  switch (s.kind) {
    case 'past_due':
      return html`<p>A payment has been failing since ${isoDate(s.since)}. The account is suspended on ${isoDate(s.suspendsAt)} unless a payment succeeds.</p>`;
    case 'suspended':
      return html`<div class="notice error"><p><b>Suspended for non-payment${s.since ? html` (failing since ${isoDate(s.since)})` : ''}.</b>${s.terminatesAt ? html` The account and its data are deleted on ${isoDate(s.terminatesAt)} unless a payment succeeds.` : ''}</p>
<p>Still works: existing short charts and their images, this dashboard, usage analytics, invoices.</p>
<p>Does not work: new chart generation (403), creating API keys, plan changes.</p></div>`;
    case 'cancelled':
      return html`<p>The subscription has ended. Existing charts stay readable and the account can be restored within ${CANCELLED_READ_ONLY_DAYS} days of the end of the last period${s.readOnlyUntil ? html` (until ${isoDate(s.readOnlyUntil)})` : ''}; new charts are not generated.</p>`;
    case 'active':
      return s.cancelAt ? html`<p>Cancellation requested: the plan stays active until ${isoDate(s.cancelAt)}, then the account is read-only for ${CANCELLED_READ_ONLY_DAYS} days. No new charges.</p>` : html``;
    default:
      return html``;
  }
}

export function billingPage(p: PageContext, v: BillingView): string {
  const i = v.info;
  const unlimited = i.usage_limit >= 2_147_483_647;
  const invoices = v.invoices.map(
    (inv) => html`<tr><td><code>${inv.id}</code></td><td>${inv.date.slice(0, 10)}</td><td class="n">${gbp(inv.amount)}</td><td>${inv.status}</td>
<td><a href="/dashboard/billing/invoices/${encodeURIComponent(inv.id)}/pdf">PDF</a></td></tr>`,
  );
  const paid = v.record !== null;
  return page(
    p,
    'Billing',
    html`<section><h2>Plan</h2><p>${stateBadge(v.state)}</p>${stateDetail(v.state)}
<table><tbody>
<tr><th>Plan</th><td data-field="plan">${i.plan}</td></tr>
<tr><th>Billing cycle</th><td>${i.billing_cycle}${v.record?.pendingCycle ? html` (${v.record.pendingCycle} from the next period)` : ''}</td></tr>
<tr><th>Current period</th><td>${isoDate(Date.parse(i.billing_period_start))} to ${isoDate(Date.parse(i.billing_period_end))}</td></tr>
<tr><th>Next billing date</th><td>${isoDate(Date.parse(i.next_billing_date))}</td></tr>
<tr><th>Usage</th><td>${num(i.current_usage)} of ${unlimited ? 'unlimited' : num(i.usage_limit)}</td></tr>
<tr><th>Amount due</th><td data-field="amount-due">${gbp(i.amount_due)}</td></tr>
</tbody></table></section>
<section><h2>Invoices</h2><table><thead><tr><th>Invoice</th><th>Date</th><th class="n">Amount</th><th>Status</th><th></th></tr></thead>
<tbody>${invoices.length ? invoices : html`<tr><td colspan="5" class="muted">No invoices yet: one is issued when a period closes.</td></tr>`}</tbody></table></section>
${paid ? actions(p, v) : html`<section><p>Trial accounts have no subscription: create a paid account to choose a plan.</p></section>`}`,
  );
}

function actions(p: PageContext, v: BillingView): Html {
  const s = v.state;
  const canChange = s.kind === 'active' || s.kind === 'past_due';
  const change = canChange
    ? html`<section><h2>Change plan</h2><p class="muted">An upgrade applies at once, prorated; a downgrade lowers the limits at once and the fee at the next period. A cycle change starts with the next period.</p>
<form method="post" action="/dashboard/billing/plan">${csrfField(p)}<div class="row">
<div><label for="plan">Plan</label><select id="plan" name="plan">${['starter', 'growth', 'enterprise'].map((x) => html`<option value="${x}"${x === v.info.plan ? html` selected` : ''}>${x}</option>`)}</select></div>
<div><label for="cycle">Cycle</label><select id="cycle" name="cycle">${['monthly', 'annual'].map((x) => html`<option value="${x}"${x === (v.record?.pendingCycle ?? v.info.billing_cycle) ? html` selected` : ''}>${x}</option>`)}</select></div>
</div><button type="submit">Change plan</button></form></section>`
    : html``;
  const cancel =
    s.kind === 'active' && !s.cancelAt
      ? html`<section><h2>Cancel</h2><form method="post" action="/dashboard/billing/cancel" data-confirm="Cancel the subscription at the end of this period?">${csrfField(p)}<p>The plan stays active to the end of the period, then the account is read-only for ${CANCELLED_READ_ONLY_DAYS} days.</p><button type="submit" class="danger">Cancel subscription</button></form></section>`
      : (s.kind === 'active' && s.cancelAt) || s.kind === 'cancelled'
        ? html`<section><h2>Restore</h2><form method="post" action="/dashboard/billing/restore">${csrfField(p)}<button type="submit">Restore the subscription</button></form></section>`
        : html``;
  return html`${change}${cancel}`;
}
