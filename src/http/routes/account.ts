// POST /signup/anon (no auth) and the account endpoints (Authorization: Bearer <session>):
// GET /usage/analytics, /billing/info, /billing/invoices, /billing/invoices/{id}/pdf.
import type Router from '@koa/router';
import type { AppDeps } from '../../app.js';
import { sessionAuth } from '../auth.js';
import { validate } from '../validate.js';
import { invalidInput } from '../../errors.js';
import type { Account } from '../../store/types.js';
import { setImageHeaders } from '../imageHeaders.js';

export const analyticsQuerySchema = {
  $id: 'AnalyticsQuery',
  type: 'object',
  properties: { days: { type: 'integer', minimum: 1, maximum: 365, description: 'days of quickStats, default 30' } },
  additionalProperties: true,
} as const;

export function accountRoutes(router: Router, deps: AppDeps): void {
  router.post('/signup/anon', async (ctx) => {
    const body = (ctx.request as { body?: unknown }).body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw invalidInput('the body must be a JSON object (or empty)');
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.trials.signup(ctx.ip);
  });

  const session = sessionAuth(deps.accounts);
  const account = (ctx: { state: { account?: Account } }) => ctx.state.account!;

  router.get('/usage/analytics', session, validate(analyticsQuerySchema, 'query'), async (ctx) => {
    const days = (ctx.state.input as { days?: number }).days ?? 30;
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = await deps.usage.analytics(account(ctx), days);
  });

  router.get('/billing/info', session, async (ctx) => {
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = await deps.billing.info(account(ctx));
  });

  router.get('/billing/invoices', session, async (ctx) => {
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = { invoices: await deps.billing.invoiceList(account(ctx)) };
  });

  router.get('/billing/invoices/:id/pdf', session, async (ctx) => {
    const pdf = await deps.billing.invoicePdf(account(ctx), ctx.params.id!);
    ctx.type = 'application/pdf';
    ctx.set('Cache-Control', 'private, no-store');
    ctx.set('Content-Disposition', `inline; filename="${ctx.params.id!.replace(/[^A-Za-z0-9_-]/g, '')}.pdf"`);
    setImageHeaders(ctx, 'application/pdf');
    ctx.body = pdf;
  });
}
