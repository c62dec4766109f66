// The web dashboard: /login, /logout, /dashboard and its pages, as server-rendered HTML. Signed
// in = a cookie naming a dashboard session; every POST carries the session's CSRF token (the
// login form: a cookie-bound one). Pages call the dashboard service only.
import type { Context, Middleware } from 'koa';
import { AppError, notFound } from '../../errors.js';
import { PLANS } from '../../chart/plans.js';
import type { Clock } from '../../clock.js';
import type { BillingService } from '../../services/billing/index.js';
import type { DashboardService } from '../../services/dashboard/index.js';
import { csrfMatches, randomToken, DASHBOARD_SESSION_MS, type DashboardSessions, type SignedIn } from '../../services/dashboard/sessions.js';
import type { GoogleSignIn } from '../../services/dashboard/google.js';
import type { PageContext } from './layout.js';
import { clearCookie, LOGIN_CSRF_COOKIE, newNonce, pageHeaders, readCookie, readForm, SESSION_COOKIE, setCookie } from './request.js';
import { continuePage, loginPage, logoutPage, messagePage } from './pages/login.js';
import { overviewPage } from './pages/overview.js';
import { keysPage, revokeConfirmPage, type NewKey, type SignForm } from './pages/keys.js';
import { usagePage } from './pages/usage.js';
import { billingPage } from './pages/billing.js';
import { settingsPage } from './pages/settings.js';
import { googleRoutes } from './google.js';
import type { PageTools } from './pageTools.js';

export interface DashboardRouteDeps {
  dashboard: DashboardService;
  dashboardSessions: DashboardSessions;
  /** Null when GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are not both set. */
  googleSignIn: GoogleSignIn | null;
  billing: Pick<BillingService, 'invoicePdf'>;
  clock: Clock;
  config: { publicBaseUrl: string };
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

export function dashboardRoutes(deps: DashboardRouteDeps): Middleware {
  const { dashboard, dashboardSessions: sessions } = deps;

  const send = (ctx: Context, status: number, body: string) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };
  const pc = (ctx: Context, s: SignedIn | null, csrf: string, section?: PageContext['section'], notice?: Notice): PageContext => ({
    nonce: ctx.state.nonce as string,
    csrf,
    account: s?.account ?? null,
    ...(section ? { section } : {}),
    notice: notice ?? null,
  });
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
  const redirect = (ctx: Context, to: string, status = 303) => {
    ctx.status = status;
    ctx.redirect(to);
    ctx.status = status;
  };
  const forbiddenPage = (ctx: Context, s: SignedIn | null, csrf: string) =>
    send(ctx, 403, messagePage(pc(ctx, s, csrf), 'Form expired', 'The form was missing its security token or it did not match. Reload the page and try again.'));

  const loginCsrf = (ctx: Context): string => {
    let t = readCookie(ctx, LOGIN_CSRF_COOKIE);
    if (!t || t.length < 32) {
      t = randomToken(24);
      setCookie(ctx, LOGIN_CSRF_COOKIE, t, { maxAgeS: 3600, path: '/login' });
    }
    return t;
  };
  const google = deps.googleSignIn ? googleRoutes(deps.googleSignIn, sessions, { send, pc, redirect }) : null;

  async function handle(ctx: Context): Promise<boolean> {
    const path = ctx.path;
    const get = ctx.method === 'GET' || ctx.method === 'HEAD';
    const post = ctx.method === 'POST';

    if (path === '/login') {
      if (get) {
        if (await signedIn(ctx)) return redirect(ctx, '/dashboard', 302), true;
        send(ctx, 200, loginPage(pc(ctx, null, loginCsrf(ctx)), google !== null));
        return true;
      }
      if (!post) return false;
      const form = await readForm(ctx);
      const expected = readCookie(ctx, LOGIN_CSRF_COOKIE);
      if (!expected || !csrfMatches(expected, form.get('_csrf'))) return forbiddenPage(ctx, null, loginCsrf(ctx)), true;
      try {
        const { token } = await sessions.signInWithToken(field(form, 'token'), ctx.ip);
        startSession(ctx, token);
        clearCookie(ctx, LOGIN_CSRF_COOKIE, '/login');
        return redirect(ctx, '/dashboard'), true;
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
        const text = err.status === 401 ? 'That session token is invalid or expired.' : (err.detail ?? err.code);
        send(ctx, err.status, loginPage(pc(ctx, null, expected, undefined, { kind: 'error', text }), google !== null));
        return true;
      }
    }
    if (google && (path === '/login/google' || path === '/login/google/callback')) return get ? google(ctx) : false;

    if (path === '/logout') {
      const s = await signedIn(ctx);
      if (get) {
        if (!s) return redirect(ctx, '/login', 302), true;
        send(ctx, 200, logoutPage(pc(ctx, s, s.csrf)));
        return true;
      }
      if (!post) return false;
      const form = await readForm(ctx);
      if (s && !csrfMatches(s.csrf, form.get('_csrf'))) return forbiddenPage(ctx, s, s.csrf), true;
      if (s && form.get('everywhere') === '1') await sessions.signOutEverywhere(s.account.id);
      else await sessions.signOut(readCookie(ctx, SESSION_COOKIE));
      clearCookie(ctx, SESSION_COOKIE);
      return redirect(ctx, '/login'), true;
    }

    if (path !== '/dashboard' && !path.startsWith('/dashboard/')) return false;
    const s = await signedIn(ctx);
    if (!s) {
      if (readCookie(ctx, SESSION_COOKIE)) clearCookie(ctx, SESSION_COOKIE);
      if (post) return forbiddenPage(ctx, null, ''), true;
      return redirect(ctx, '/login', 302), true;
    }

    const pdf = /^\/dashboard\/billing\/invoices\/([A-Za-z0-9_-]{1,64})\/pdf$/.exec(path);
    if (get && pdf) {
      const body = await deps.billing.invoicePdf(s.account, pdf[1]!);
      ctx.type = 'application/pdf';
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Disposition', `inline; filename="${pdf[1]}.pdf"`);
      ctx.body = body;
      return true;
    }
    if (get && path === '/dashboard/keys/revoke') {
      const id = typeof ctx.query.key_id === 'string' ? ctx.query.key_id : '';
      const key = (await dashboard.keys(s.account)).keys.find((k) => k.id === id && k.revokedAt === null);
      if (!key) throw notFound('no such active key on this account');
      send(ctx, 200, revokeConfirmPage(pc(ctx, s, s.csrf, 'keys'), key));
      return true;
    }
    if (get && pages[path]) {
      send(ctx, 200, await pages[path]!(ctx, s, doneNotice(ctx)));
      return true;
    }
    const action = post ? actions[path] : undefined;
    if (!action) return false;
    const form = await readForm(ctx);
    if (!csrfMatches(s.csrf, form.get('_csrf'))) return forbiddenPage(ctx, s, s.csrf), true;
    try {
      const r = await action.run(ctx, s, form);
      if ('redirect' in r) redirect(ctx, r.redirect);
      else send(ctx, r.status ?? 200, r.page);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      // the account may have changed (a refused change still reads fresh state)
      const fresh = (await signedIn(ctx)) ?? s;
      send(ctx, err.status, await action.page(ctx, fresh, errorNotice(err)));
    }
    return true;
  }

  function startSession(ctx: Context, token: string): void {
    setCookie(ctx, SESSION_COOKIE, token, { maxAgeS: DASHBOARD_SESSION_MS / 1000 });
  }

  return async (ctx, next) => {
    if (!isDashboardPath(ctx.path)) return next();
    ctx.state.nonce = newNonce();
    pageHeaders(ctx, ctx.state.nonce as string);
    if (!(await handle(ctx))) return next();
  };
}

export const isDashboardPath = (p: string): boolean => p === '/login' || p.startsWith('/login/') || p === '/logout' || p === '/dashboard' || p.startsWith('/dashboard/');

export { SESSION_COOKIE };
