// The sign-in page: a session token form and, when configured, "Sign in with Google".
import { html, type Html } from '../html.js';
import { csrfField, page, type PageContext } from '../layout.js';

export function loginPage(p: PageContext, google: boolean): string {
  return page(
    p,
    'Sign in',
    html`<section><form method="post" action="/login">${csrfField(p)}
  <label for="token">Session token</label>
  <input id="token" name="token" type="password" autocomplete="off" required maxlength="200">
  <p class="muted">Print one with <code>chartshot sessions create --account &lt;id&gt;</code>.</p>
  <button type="submit">Sign in</button></form></section>
${google ? html`<section><a class="google" href="/login/google">Sign in with Google</a></section>` : ''}`,
  );
}

/** Sign-out from a link: a GET only shows the form (a GET never changes state). */
export function logoutPage(p: PageContext): string {
  return page(p, 'Sign out', html`<section><form method="post" action="/logout">${csrfField(p)}<button type="submit">Sign out</button></form></section>
<section>${signOutEverywhereForm(p)}</section>`);
}

/** Ends every dashboard session of the account, this one included (a lost laptop, a shared browser). */
export function signOutEverywhereForm(p: PageContext): Html {
  return html`<form method="post" action="/logout">${csrfField(p)}<input type="hidden" name="everywhere" value="1"><button type="submit" class="secondary">Sign out all sessions</button></form>`;
}

/** After Google sign-in: a same-site navigation to the dashboard, so the Strict cookie is sent. */
export function continuePage(p: PageContext): string {
  return page(p, 'Signed in', html`<section><meta http-equiv="refresh" content="0;url=/dashboard"><a href="/dashboard">Continue to the dashboard</a></section>`);
}

export function messagePage(p: PageContext, title: string, text: string): string {
  return page(p, title, html`<section><p>${text}</p><p><a href="${p.account ? '/dashboard' : '/login'}">Back</a></p></section>`);
}
