// The web dashboard: /login, /logout, /dashboard and its pages, as server-rendered HTML, each a
// route descriptor (page: not in /openapi.json) on the one router. Signed in = a cookie naming a
// dashboard session (RouteAuth 'dashboardSession', auth.ts); every POST carries the session's
// CSRF token (the login form: a cookie-bound one). Pages call the dashboard service only.
import type { BodyReader } from '../body.js';
import type { Context } from 'koa';
import { AppError, notFound } from '../../errors.js';
import { PLANS } from '../../rules/plans.js';
import type { Clock } from '../../clock.js';
import type { BillingService } from '../../services/billing/index.js';
import type { DashboardService } from '../../services/dashboard/index.js';
import { csrfMatches, randomToken, DASHBOARD_SESSION_MS, type DashboardSessions, type SignedIn } from '../../services/dashboard/sessions.js';
import type { GoogleSignIn } from '../../services/dashboard/google.js';
import type { PageContext } from './layout.js';
import { clearCookie, LOGIN_CSRF_COOKIE, readCookie, readForm, SESSION_COOKIE, setCookie } from './request.js';
import { loginPage, logoutPage } from './pages/login.js';
import { overviewPage } from './pages/overview.js';
import { keysPage, revokeConfirmPage, type NewKey, type SignForm } from './pages/keys.js';
import { usagePage } from './pages/usage.js';
import { billingPage } from './pages/billing.js';
import { settingsPage } from './pages/settings.js';
import { googleCallback, googleStart } from './google.js';
import { forbiddenPage, pc, redirect, send } from './pageTools.js';
import { signedInOf } from './auth.js';
import { noRouteError } from '../noRoute.js';
import { route, type RouteAuth, type RouteDescriptor } from '../route.js';

export interface DashboardRouteDeps {
  dashboard: DashboardService;
  dashboardSessions: DashboardSessions;
  /** Null when GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are not both set. */
  googleSignIn: GoogleSignIn | null;
  billing: Pick<BillingService, 'invoicePdf'>;
  clock: Clock;
  config: { publicBaseUrl: string };
  /** The process's body reader (its deadline and budget of bytes in flight) for the forms. */
  bodies: Pick<BodyReader, 'read'>;
}

type Notice = PageContext['notice'];

/** Fixed messages a redirect may name (?done=...): the query never carries text to show. */
const DONE: Record<string, string> = {
  revoked: 'The key is revoked.',
  plan: 'The plan is changed.',
  cancelled: 'Cancellation requested: the plan stays active to the end of the period.',
  restored: 'The subscription is restored.',
  webhook: 'The webhook URL is saved.',
  test: 'A signed test event is queued for the webhook URL; it is delivered within seconds.',
  email: 'The e-mail address is saved.',
};

/** A dashboard page as the router takes it: hidden from the API's document, exact path. */
function page(method: RouteDescriptor['method'], path: string, auth: RouteAuth, handler: (ctx: Context) => Promise<void> | void): RouteDescriptor {
  return route({
    method,
    path,
    auth,
    page: true,
    doc: { tags: ['Dashboard'], operationId: `dashboard ${method} ${path}`, summary: 'A dashboard page (HTML)' },
    responses: {},
    errors: {},
    handler,
  });
}

export function dashboardRoutes(deps: DashboardRouteDeps): RouteDescriptor[] {
  const { dashboard, dashboardSessions: sessions } = deps;

  const doneNotice = (ctx: Context): Notice => {
    const d = typeof ctx.query.done === 'string' ? DONE[ctx.query.done] : undefined;
    return d ? { kind: 'ok', text: d } : null;
  };
  const errorNotice = (err: AppError): Notice => ({ kind: 'error', text: err.detail ?? err.code });

  // ---- the pages (GET), each also answering a failed POST with its error ------------------
  type Render = (ctx: Context, s: SignedIn, notice: Notice) => Promise<string>;
  const overview: Render = async (ctx, s, notice) => {
    const [a, state] = await Promise.all([dashboard.overview(s.account), dashboard.state(s.account)]);
    return overviewPage(pc(ctx, s, s.csrf, 'overview', notice), a, state, PLANS[s.account.plan].chartsPerPeriod === null);
  };
  const keys = (created: NewKey | null = null, sign: SignForm | null = null): Render => async (ctx, s, notice) => {
    const v = await dashboard.keys(s.account);
    return keysPage(pc(ctx, s, s.csrf, 'keys', notice), v, deps.clock.now(), created, sign);
  };
  const usage: Render = async (ctx, s, notice) =>
    usagePage(pc(ctx, s, s.csrf, 'usage', notice), await dashboard.usageView(s.account), PLANS[s.account.plan].chartsPerPeriod === null, deps.config.publicBaseUrl);
  const billing: Render = async (ctx, s, notice) => billingPage(pc(ctx, s, s.csrf, 'billing', notice), await dashboard.billingView(s.account));
  const settings: Render = async (ctx, s, notice) =>
    settingsPage(pc(ctx, s, s.csrf, 'settings', notice), await dashboard.settings(s.account), s.account.plan !== 'trial');

  const pages: Record<string, Render> = {
    '/dashboard': overview,
    '/dashboard/keys': keys(),
    '/dashboard/usage': usage,
    '/dashboard/billing': billing,
    '/dashboard/settings': settings,
  };

  // ---- the forms (POST): on success a redirect (or a page), on a refusal the page with it --
  type Action = (ctx: Context, s: SignedIn, form: URLSearchParams) => Promise<{ redirect: string } | { page: string; status?: number }>;
  const field = (f: URLSearchParams, name: string) => f.get(name) ?? '';
  const actions: Record<string, { page: Render; run: Action }> = {
    '/dashboard/keys': {
      page: keys(),
      run: async (ctx, s) => {
        const created = await dashboard.createKey(s.account);
        return { page: await keys(created)(ctx, s, { kind: 'ok', text: 'Key created.' }) };
      },
    },
    '/dashboard/keys/revoke': {
      page: keys(),
      run: async (_ctx, s, f) => {
        await dashboard.revokeKey(s.account, field(f, 'key_id'));
        return { redirect: '/dashboard/keys?done=revoked' };
      },
    },
    '/dashboard/keys/sign': {
      page: keys(),
      run: async (ctx, s, f) => {
        const input = { keyId: field(f, 'key_id'), config: field(f, 'config'), width: field(f, 'width'), height: field(f, 'height'), format: field(f, 'format'), expiresInDays: field(f, 'expires_in_days') };
        try {
          const r = await dashboard.signUrl(s.account, input);
          return { page: await keys(null, { ...input, url: r.url, expiresAt: r.expiresAt })(ctx, s, null) };
        } catch (err) {
          // keep what was typed: the page shows the form again with the refusal
          if (err instanceof AppError && err.status < 500) return { page: await keys(null, input)(ctx, s, errorNotice(err)), status: err.status };
          throw err;
        }
      },
    },
    '/dashboard/billing/plan': {
      page: billing,
      run: async (_ctx, s, f) => {
        await dashboard.changePlan(s.account, field(f, 'plan'), field(f, 'cycle'));
        return { redirect: '/dashboard/billing?done=plan' };
      },
    },
    '/dashboard/billing/cancel': {
      page: billing,
      run: async (_ctx, s) => {
        await dashboard.cancel(s.account);
        return { redirect: '/dashboard/billing?done=cancelled' };
      },
    },
    '/dashboard/billing/restore': {
      page: billing,
      run: async (_ctx, s) => {
        await dashboard.restore(s.account);
        return { redirect: '/dashboard/billing?done=restored' };
      },
    },
    '/dashboard/settings/webhook': {
      page: settings,
      run: async (_ctx, s, f) => {
        await dashboard.setWebhook(s.account, field(f, 'url'));
        return { redirect: '/dashboard/settings?done=webhook' };
      },
    },
    '/dashboard/settings/webhook/test': {
      page: settings,
      run: async (_ctx, s) => {
        await dashboard.sendTestEvent(s.account);
        return { redirect: '/dashboard/settings?done=test' };
      },
    },
    '/dashboard/settings/email': {
      page: settings,
      run: async (_ctx, s, f) => {
        await dashboard.setEmail(s.account, field(f, 'email'));
        return { redirect: '/dashboard/settings?done=email' };
      },
    },
  };

  const signedIn = (ctx: Context) => sessions.resolve(readCookie(ctx, SESSION_COOKIE));
  const loginCsrf = (ctx: Context): string => {
    let t = readCookie(ctx, LOGIN_CSRF_COOKIE);
    if (!t || t.length < 32) {
      t = randomToken(24);
      setCookie(ctx, LOGIN_CSRF_COOKIE, t, { maxAgeS: 3600, path: '/login' });
    }
    return t;
  };
  const google = deps.googleSignIn;

  const signIn = [
    page('GET', '/login', 'none', async (ctx) => {
      if (await signedIn(ctx)) return redirect(ctx, '/dashboard', 302);
      send(ctx, 200, loginPage(pc(ctx, null, loginCsrf(ctx)), google !== null));
    }),
    page('POST', '/login', 'none', async (ctx) => {
      const form = await readForm(ctx, deps.bodies);
      const expected = readCookie(ctx, LOGIN_CSRF_COOKIE);
      if (!expected || !csrfMatches(expected, form.get('_csrf'))) return forbiddenPage(ctx, null, loginCsrf(ctx));
      try {
        const { token } = await sessions.signInWithToken(field(form, 'token'), ctx.ip);
        setCookie(ctx, SESSION_COOKIE, token, { maxAgeS: DASHBOARD_SESSION_MS / 1000 });
        clearCookie(ctx, LOGIN_CSRF_COOKIE, '/login');
        redirect(ctx, '/dashboard');
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
        const text = err.status === 401 ? 'That session token is invalid or expired.' : (err.detail ?? err.code);
        send(ctx, err.status, loginPage(pc(ctx, null, expected, undefined, { kind: 'error', text }), google !== null));
      }
    }),
    ...(google ? [page('GET', '/login/google', 'none', googleStart(google)), page('GET', '/login/google/callback', 'none', googleCallback(google, sessions))] : []),
    // signed out already: the page sends to /login, the form only clears the cookie
    page('GET', '/logout', 'none', async (ctx) => {
      const s = await signedIn(ctx);
      if (!s) return redirect(ctx, '/login', 302);
      send(ctx, 200, logoutPage(pc(ctx, s, s.csrf)));
    }),
    page('POST', '/logout', 'none', async (ctx) => {
      const s = await signedIn(ctx);
      const form = await readForm(ctx, deps.bodies);
      if (s && !csrfMatches(s.csrf, form.get('_csrf'))) return forbiddenPage(ctx, s, s.csrf);
      if (s && form.get('everywhere') === '1') await sessions.signOutEverywhere(s.account.id);
      else await sessions.signOut(readCookie(ctx, SESSION_COOKIE));
      clearCookie(ctx, SESSION_COOKIE);
      redirect(ctx, '/login');
    }),
  ];

  const signedInPages = [
    page('GET', '/dashboard/billing/invoices/:id/pdf', 'dashboardSession', async (ctx) => {
      // the raw segment, as the path was always matched (the router's parameter is decoded)
      const id = INVOICE_PDF.exec(ctx.path)?.[1];
      if (!id) throw noRouteError(ctx);
      const body = await deps.billing.invoicePdf(signedInOf(ctx).account, id);
      ctx.type = 'application/pdf';
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Disposition', `inline; filename="${id}.pdf"`);
      ctx.body = body;
    }),
    page('GET', '/dashboard/keys/revoke', 'dashboardSession', async (ctx) => {
      const s = signedInOf(ctx);
      const id = typeof ctx.query.key_id === 'string' ? ctx.query.key_id : '';
      const key = (await dashboard.keys(s.account)).keys.find((k) => k.id === id && k.revokedAt === null);
      if (!key) throw notFound('no such active key on this account');
      send(ctx, 200, revokeConfirmPage(pc(ctx, s, s.csrf, 'keys'), key));
    }),
    ...Object.entries(pages).map(([path, render]) =>
      page('GET', path, 'dashboardSession', async (ctx) => send(ctx, 200, await render(ctx, signedInOf(ctx), doneNotice(ctx)))),
    ),
    ...Object.entries(actions).map(([path, action]) =>
      page('POST', path, 'dashboardSession', async (ctx) => {
        const s = signedInOf(ctx);
        const form = await readForm(ctx, deps.bodies);
        if (!csrfMatches(s.csrf, form.get('_csrf'))) return forbiddenPage(ctx, s, s.csrf);
        try {
          const r = await action.run(ctx, s, form);
          if ('redirect' in r) redirect(ctx, r.redirect);
          else send(ctx, r.status ?? 200, r.page);
        } catch (err) {
          // a refusal is the form's page again, with the refusal on it; anything else is the error mapper's
          if (!(err instanceof AppError) || err.status >= 500) throw err;
          // the account may have changed (a refused change still reads fresh state)
          const fresh = (await signedIn(ctx)) ?? s;
          send(ctx, err.status, await action.page(ctx, fresh, errorNotice(err)));
        }
      }),
    ),
  ];

  // Any other request under the dashboard's paths, as before the pages were routes: signed out,
  // to /login (a form post: 403); signed in, the router's 404; under /login and /logout, 404.
  const rest = (ctx: Context) => {
    throw noRouteError(ctx);
  };
  const fallbacks = [
    page('ANY', '/login{/*rest}', 'none', rest),
    page('ANY', '/login/', 'none', rest),
    page('ANY', '/logout', 'none', rest),
    page('ANY', '/dashboard{/*rest}', 'dashboardSession', rest),
    page('ANY', '/dashboard/', 'dashboardSession', rest),
  ];
  return [...signIn, ...signedInPages, ...fallbacks];
}

const INVOICE_PDF = /^\/dashboard\/billing\/invoices\/([A-Za-z0-9_-]{1,64})\/pdf$/;

export { SESSION_COOKIE };
