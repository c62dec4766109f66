// The API keys page: the list, a new key shown once, revocation, and the signed-URL helper.
import type { ApiKey } from '../../../store/types.js';
import type { KeysView } from '../../../services/dashboard/index.js';
import { html, isoMinute, type Html } from '../html.js';
import { csrfField, page, type PageContext } from '../layout.js';

export interface NewKey {
  api_key: string;
  key_id: string;
  signing_secret: string;
}

export interface SignForm {
  keyId: string;
  config: string;
  width: string;
  height: string;
  format: string;
  expiresInDays: string;
  url?: string;
  expiresAt?: number;
}

const statusOf = (k: ApiKey, now: number) => (k.revokedAt !== null ? 'revoked' : k.expiresAt !== null && k.expiresAt <= now ? 'expired' : 'active');

export function keysPage(p: PageContext, v: KeysView, now: number, created: NewKey | null, sign: SignForm | null): string {
  const rows = v.keys.map((k) => {
    const st = statusOf(k, now);
    return html`<tr data-key="${k.id}"><td><code>${k.prefix}…</code></td><td><code>${k.id}</code></td><td>${k.kind}</td><td>${isoMinute(k.createdAt)}</td><td>${isoMinute(v.lastUsed.get(k.id) ?? null)}</td><td>${st}</td>
<td>${st === 'active' ? html`<a href="/dashboard/keys/revoke?key_id=${encodeURIComponent(k.id)}">Revoke…</a>` : ''}</td></tr>`;
  });
  const limit = v.plan.maxKeys === null ? 'no limit' : `${v.active} of ${v.plan.maxKeys} in use`;
  const active = v.keys.filter((k) => statusOf(k, now) === 'active');
  return page(
    p,
    'API keys',
    html`${created ? newKeyBox(created) : ''}
<section><h2>Your keys <span class="muted">(${limit})</span></h2>
<table><thead><tr><th>Prefix</th><th>Key id</th><th>Kind</th><th>Created</th><th>Last used</th><th>Status</th><th></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7" class="muted">No keys yet.</td></tr>`}</tbody></table>
${v.blocked ? html`<p class="notice error" id="key-limit">${v.blocked}</p>` : html`<form method="post" action="/dashboard/keys">${csrfField(p)}<button type="submit">Create a key</button></form>`}
</section>
${signSection(p, active, sign)}`,
  );
}

function newKeyBox(k: NewKey): Html {
  return html`<section class="notice ok" id="new-key"><h2>New key: copy it now, it is not shown again</h2>
<label>API key</label><code class="secret" id="api-key">${k.api_key}</code><button type="button" class="secondary" data-copy="api-key" hidden>Copy</button>
<label>Key id</label><code class="secret" id="key-id">${k.key_id}</code>
<label>Signing secret (signs URLs and verifies webhooks)</label><code class="secret" id="signing-secret">${k.signing_secret}</code><button type="button" class="secondary" data-copy="signing-secret" hidden>Copy</button>
</section>`;
}

function signSection(p: PageContext, keys: ApiKey[], f: SignForm | null): Html {
  if (keys.length === 0) return html``;
  const v = f ?? { keyId: keys[0]!.id, config: '{"type":"bar","data":{"labels":["A","B"],"datasets":[{"label":"Sales","data":[3,5]}]}}', width: '800', height: '400', format: 'png', expiresInDays: '7' };
  return html`<section><h2>Sign a URL</h2><p class="muted">A GET /v1/chart URL that renders this config without an API key, until it expires.</p>
<form method="post" action="/dashboard/keys/sign">${csrfField(p)}
<label for="sign-key">Key</label><select id="sign-key" name="key_id">${keys.map((k) => html`<option value="${k.id}"${k.id === v.keyId ? html` selected` : ''}>${k.prefix}… (${k.id})</option>`)}</select>
<label for="sign-config">Chart.js config (JSON)</label><textarea id="sign-config" name="config" maxlength="6000" required>${v.config}</textarea>
<div class="row"><div><label for="sign-w">Width</label><input id="sign-w" name="width" type="number" min="1" value="${v.width}"></div>
<div><label for="sign-h">Height</label><input id="sign-h" name="height" type="number" min="1" value="${v.height}"></div>
<div><label for="sign-f">Format</label><select id="sign-f" name="format">${['png', 'svg'].map((x) => html`<option${x === v.format ? html` selected` : ''}>${x}</option>`)}</select></div>
<div><label for="sign-exp">Expires in (days)</label><input id="sign-exp" name="expires_in_days" type="number" min="1" max="366" value="${v.expiresInDays}"></div></div>
<button type="submit">Sign</button></form>
${f?.url ? html`<label for="signed-url">Signed URL (expires ${isoMinute(f.expiresAt)})</label><textarea id="signed-url" readonly>${f.url}</textarea><button type="button" class="secondary" data-copy="signed-url" hidden>Copy</button>` : ''}
</section>`;
}

export function revokeConfirmPage(p: PageContext, k: ApiKey): string {
  return page(
    p,
    'Revoke a key',
    html`<section><p>Revoke <code>${k.prefix}…</code> (<code>${k.id}</code>)? Requests with it, and URLs signed with it, stop working at once. This cannot be undone.</p>
<form method="post" action="/dashboard/keys/revoke">${csrfField(p)}<input type="hidden" name="key_id" value="${k.id}">
<button type="submit" class="danger">Revoke the key</button> <a href="/dashboard/keys">Cancel</a></form></section>`,
  );
}
