// What a dashboard page handler gets from the router: answer, build the page context, redirect.
// Its own module so that the router and the page groups (google.ts) both import it.
import type { Context } from 'koa';
import type { SignedIn } from '../../services/dashboard/sessions.js';
import type { PageContext } from './layout.js';

type Notice = PageContext['notice'];

export type PageTools = {
  send(ctx: Context, status: number, body: string): void;
  pc(ctx: Context, s: SignedIn | null, csrf: string, section?: PageContext['section'], notice?: Notice): PageContext;
  redirect(ctx: Context, to: string, status?: number): void;
};
