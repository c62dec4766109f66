// RouteAuth 'dashboardSession': the visitor's session cookie names a live dashboard session
// (ctx.state.signedIn). Without one: a stale cookie is cleared, a form post is refused with
// the "form expired" page (403), any other request is sent to /login (302).
import type { Middleware } from 'koa';
import type { DashboardSessions, SignedIn } from '../../services/dashboard/sessions.js';
import { forbiddenPage, redirect } from './pageTools.js';
import { clearCookie, readCookie, SESSION_COOKIE } from './request.js';
import type { State } from '../state.js';
import { unauthorized } from '../../errors.js';

export function dashboardSessionAuth(sessions: Pick<DashboardSessions, 'resolve'>): Middleware {
  return async (ctx, next) => {
    const s = await sessions.resolve(readCookie(ctx, SESSION_COOKIE));
    if (!s) {
      if (readCookie(ctx, SESSION_COOKIE)) clearCookie(ctx, SESSION_COOKIE);
      if (ctx.method === 'POST') return forbiddenPage(ctx, null, '');
      return redirect(ctx, '/login', 302);
    }
    ctx.state.signedIn = s;
    await next();
  };
}

/** The session the guard found (on a route behind auth: 'dashboardSession'). */
export function signedInOf(ctx: { state: State }): SignedIn {
  if (!ctx.state.signedIn) throw unauthorized();
  return ctx.state.signedIn;
}
