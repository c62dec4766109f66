// The dashboard's page shell: head with its inline style and script (allowed by the request's
// nonce), the navigation, the flash message, and the CSRF field every form carries.
import type { Account } from '../../store/types.js';
import { html, trusted, type Html } from './html.js';

export interface PageContext {
  nonce: string;
  /** The session's CSRF token (or the login form's). */
  csrf: string;
  account: Account | null;
  /** Which navigation entry is current. */
  section?: 'overview' | 'usage' | 'keys' | 'billing' | 'settings';
  notice?: { kind: 'ok' | 'error'; text: string } | null;
}

export const csrfField = (p: PageContext): Html => html`<input type="hidden" name="_csrf" value="${p.csrf}">`;

const NAV: [NonNullable<PageContext['section']>, string, string][] = [
  ['overview', '/dashboard', 'Overview'],
  ['usage', '/dashboard/usage', 'Usage'],
  ['keys', '/dashboard/keys', 'API keys'],
  ['billing', '/dashboard/billing', 'Billing'],
  ['settings', '/dashboard/settings', 'Settings'],
];

export function page(p: PageContext, title: string, body: Html): string {
  const nav = p.account
    ? html`<nav>${NAV.map(([id, href, label]) => html`<a href="${href}"${p.section === id ? trusted(' aria-current="page"') : ''}>${label}</a>`)}
      <form method="post" action="/logout" class="inline">${csrfField(p)}<button type="submit" class="link">Sign out</button></form></nav>`
    : '';
  const who = p.account ? html`<span class="who">${p.account.email ?? p.account.id} · ${p.account.plan}</span>` : '';
  const notice = p.notice ? html`<p class="notice ${p.notice.kind}" role="${p.notice.kind === 'error' ? 'alert' : 'status'}">${p.notice.text}</p>` : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · chartshot</title>
<style nonce="${p.nonce}">${trusted(CSS)}</style></head>
<body><header><a class="brand" href="/dashboard">chartshot</a>${who}${nav}</header>
<main><h1>${title}</h1>${notice}${body}</main>
<script nonce="${p.nonce}">${trusted(SCRIPT)}</script></body></html>`.text;
}

// Copy buttons (data-copy names the element whose text is copied) and confirmations
// (data-confirm on a form): everything works without it, it only saves a step.
const SCRIPT = `
document.querySelectorAll('[data-copy]').forEach(function (b) {
  b.hidden = false;
  b.addEventListener('click', function () {
    var t = document.getElementById(b.getAttribute('data-copy'));
    if (!t) return;
    var text = t.value !== undefined ? t.value : t.textContent;
    var done = function () { b.textContent = 'Copied'; setTimeout(function () { b.textContent = 'Copy'; }, 1500); };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () { t.select && t.select(); });
    else if (t.select) { t.select(); document.execCommand('copy'); done(); }
  });
});
document.querySelectorAll('form[data-confirm]').forEach(function (f) {
  f.addEventListener('submit', function (e) { if (!confirm(f.getAttribute('data-confirm'))) e.preventDefault(); });
});`;

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI","Liberation Sans",sans-serif;color:#1f2937;background:#f3f4f6}
header{display:flex;flex-wrap:wrap;align-items:center;gap:8px 18px;padding:10px 20px;background:#111827;color:#f9fafb}
header a{color:#e5e7eb;text-decoration:none}
.brand{font-weight:700;font-size:18px;color:#fff}
.who{color:#9ca3af;font-size:13px}
nav{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;margin-left:auto}
nav a{padding:4px 2px;border-bottom:2px solid transparent}
nav a[aria-current=page]{border-color:#60a5fa;color:#fff}
main{max-width:1040px;margin:0 auto;padding:16px 20px 40px}
h1{font-size:22px;margin:8px 0 16px}
h2{font-size:17px;margin:0 0 10px}
section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:16px;margin-bottom:16px;overflow-x:auto}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:12px;margin-bottom:16px}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px}
.card b{display:block;font-size:20px}
.card span{color:#6b7280;font-size:13px}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e5e7eb;white-space:nowrap}
th{color:#6b7280;font-weight:600}
td.n,th.n{text-align:right}
code,.mono,textarea{font-family:"Liberation Mono",ui-monospace,monospace;font-size:13px}
.secret{display:block;word-break:break-all;white-space:normal;background:#f9fafb;border:1px solid #d1d5db;border-radius:4px;padding:6px 8px}
label{display:block;margin:8px 0 4px;font-weight:600;font-size:14px}
input,select,textarea,button{font:inherit}
input[type=text],input[type=url],input[type=email],input[type=password],input[type=number],select,textarea{width:100%;max-width:560px;padding:6px 8px;border:1px solid #9ca3af;border-radius:4px}
input[type=number]{max-width:120px}
textarea{min-height:120px}
button{padding:6px 14px;border:1px solid #1d4ed8;border-radius:4px;background:#2563eb;color:#fff;cursor:pointer;margin-top:8px}
button.secondary{background:#fff;color:#1f2937;border-color:#9ca3af}
button.danger{background:#b91c1c;border-color:#991b1b}
button.link{background:none;border:none;color:#e5e7eb;padding:4px 2px;margin:0}
form.inline{display:inline}
.google{display:inline-block;padding:8px 14px;border:1px solid #9ca3af;border-radius:4px;background:#fff;color:#1f2937;text-decoration:none;font-weight:600}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end}
.notice{padding:10px 12px;border-radius:6px;border:1px solid}
.notice.ok{background:#ecfdf5;border-color:#6ee7b7}
.notice.error{background:#fef2f2;border-color:#fca5a5}
.state{display:inline-block;padding:2px 8px;border-radius:10px;font-size:13px;font-weight:600;background:#e5e7eb}
.state.active{background:#d1fae5}.state.past_due{background:#fef3c7}.state.suspended,.state.cancelled{background:#fee2e2}
.muted{color:#6b7280}
.chart img{width:100%;height:auto;display:block}
@media (max-width:600px){main{padding:12px}nav{margin-left:0}h1{font-size:20px}.chart img{min-width:720px}}
`;
