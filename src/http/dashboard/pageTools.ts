// What every dashboard page handler uses: open the page (nonce and headers), answer, build the
// page context, redirect. Its own module so that the page routes, the session guard and the
// sign-in pages (google.ts) share it.
import type { Context, Middleware } from 'koa';
import type { SignedIn } from '../../services/dashboard/sessions.js';
import type { PageContext } from './layout.js';
import { newNonce, pageHeaders } from './request.js';
import { messagePage } from './pages/login.js';

type Notice = PageContext['notice'];

/** Runs first on every page route (router.ts Guards.page): this answer's nonce and its headers, errors included. */
export const openPage: Middleware = (ctx, next) => {
  ctx.state.nonce = newNonce();
  pageHeaders(ctx, ctx.state.nonce!);
  return next();
};

export function send(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

export function pc(ctx: Context, s: SignedIn | null, csrf: string, section?: PageContext['section'], notice?: Notice): PageContext {
  return {
    nonce: ctx.state.nonce!,
    csrf,
    account: s?.account ?? null,
    ...(section ? { section } : {}),
    notice: notice ?? null,
  };
}

export function redirect(ctx: Context, to: string, status = 303): void {
  ctx.status = status;
  ctx.redirect(to);
  ctx.status = status;
}

/** A form without its CSRF token (or a stale one), or a POST without a session. */
export function forbiddenPage(ctx: Context, s: SignedIn | null, csrf: string): void {
  send(ctx, 403, messagePage(pc(ctx, s, csrf), 'Form expired', 'The form was missing its security token or it did not match. Reload the page and try again.'));
}
