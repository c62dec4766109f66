// The settings page: the usage webhook (and a signed test event), the e-mail for usage warnings.
import { html } from '../html.js';
import { csrfField, page, type PageContext } from '../layout.js';
import { signOutEverywhereForm } from './login.js';

export function settingsPage(p: PageContext, s: { webhookUrl: string | null; email: string | null }, paid: boolean): string {
  return page(
    p,
    'Settings',
    html`<section><h2>Usage webhook</h2>
${paid
  ? html`<p class="muted">chartshot POSTs a <code>usage_threshold</code> event at 80%, 95% and 100% of the monthly limit, signed in <code>X-Chartshot-Signature</code> (HMAC-SHA256 of the body, keyed with the signing secret of your oldest active API key). An http(s) URL on a public address.</p>
<form method="post" action="/dashboard/settings/webhook">${csrfField(p)}<label for="webhook">Webhook URL (empty: none)</label>
<input id="webhook" name="url" type="url" maxlength="2048" value="${s.webhookUrl ?? ''}" placeholder="https://example.com/hooks/chartshot"><button type="submit">Save</button></form>
${s.webhookUrl ? html`<form method="post" action="/dashboard/settings/webhook/test">${csrfField(p)}<button type="submit" class="secondary">Send a test event</button></form>` : ''}`
  : html`<p>Usage webhooks are for paid plans.</p>`}
</section>
<section><h2>E-mail for usage warnings</h2><form method="post" action="/dashboard/settings/email">${csrfField(p)}<label for="email">E-mail address (empty: none)</label>
<input id="email" name="email" type="email" maxlength="254" value="${s.email ?? ''}"><button type="submit">Save</button></form>
<p class="muted">Warnings, invoices and billing notices go here. Sign-in with Google uses the address the account was created with, not this one.</p></section>
<section><h2>Sessions</h2><p class="muted">Signed in somewhere you no longer trust? End every dashboard session of this account, this one included.</p>${signOutEverywhereForm(p)}</section>`,
  );
}
