// GET /login/google (to the provider, with a sealed flow cookie) and its callback (the verified
// e-mail's account gets a dashboard session).
import type { Context } from 'koa';
import { AppError } from '../../errors.js';
import type { GoogleSignIn } from '../../services/dashboard/google.js';
import { FLOW_MS } from '../../services/dashboard/google.js';
import { DASHBOARD_SESSION_MS, type DashboardSessions } from '../../services/dashboard/sessions.js';
import { continuePage, messagePage } from './pages/login.js';
import { clearCookie, OIDC_COOKIE, readCookie, SESSION_COOKIE, setCookie } from './request.js';
import { pc, redirect, send } from './pageTools.js';

const failed = (ctx: Context, err: AppError) => send(ctx, err.status, messagePage(pc(ctx, null, ''), 'Google sign-in failed', err.detail ?? err.code));

/** GET /login/google */
export function googleStart(google: GoogleSignIn): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    let started: { url: string; cookie: string };
    try {
      started = await google.start();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return failed(ctx, err);
    }
    const { url, cookie } = started;
    // Lax: the provider's redirect back is a cross-site navigation, which Strict cookies miss
    setCookie(ctx, OIDC_COOKIE, cookie, { maxAgeS: FLOW_MS / 1000, path: '/login/google', sameSite: 'Lax' });
    redirect(ctx, url, 302);
  };
}

/** GET /login/google/callback */
export function googleCallback(google: GoogleSignIn, sessions: Pick<DashboardSessions, 'signInWithEmail'>): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    const sealed = readCookie(ctx, OIDC_COOKIE);
    clearCookie(ctx, OIDC_COOKIE, '/login/google');
    try {
      const email = await google.finish(ctx.query, sealed);
      const { token } = await sessions.signInWithEmail(email);
      setCookie(ctx, SESSION_COOKIE, token, { maxAgeS: DASHBOARD_SESSION_MS / 1000 });
      // a page, not a redirect: a redirect answering a cross-site navigation would not send the Strict cookie
      send(ctx, 200, continuePage(pc(ctx, null, '')));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      failed(ctx, err);
    }
  };
}
