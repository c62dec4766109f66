// POST /signup/anon (no auth) and the account endpoints (Authorization: Bearer <session>):
// GET /usage/analytics, /billing/info, /billing/invoices, /billing/invoices/{id}/pdf.
import { MAX_RETENTION_DAYS } from '../../rules/retention.js';
import type { Account } from '../../store/types.js';
import type { BillingService } from '../../services/billing/index.js';
import type { TrialService } from '../../services/trials.js';
import type { UsageService } from '../../services/usage.js';
import { setImageHeaders, type RendererHeader } from '../imageHeaders.js';
import { route, type RouteDescriptor, type SuccessDoc } from '../route.js';
import { invalidSession, json, pdfContent, retryAfter, schemaRef } from '../routeDocs.js';

export interface AccountRouteDeps {
  trials: Pick<TrialService, 'signup'>;
  usage: Pick<UsageService, 'analytics'>;
  billing: Pick<BillingService, 'info' | 'invoiceList' | 'invoicePdf'>;
  /** X-Chartshot-Renderer (the invoice PDF is printed by the pool's browser). */
  fingerprint?: RendererHeader;
}

const analyticsQuerySchema = {
  $id: 'AnalyticsQuery',
  type: 'object',
  properties: {
    days: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RETENTION_DAYS,
      description: "days of quickStats, default 30; at most the plan's analytics retention (trial 30, starter 365, growth 1095, enterprise as configured)",
    },
  },
  additionalProperties: true,
} as const;

const signupBodySchema = { type: 'object', description: 'Optional; an empty object.' } as const;

const account = (ctx: { state: { account?: Account } }) => ctx.state.account!;

/** A session-authenticated GET answering the account's own JSON (never cached). */
function accountJson(path: string, operationId: string, summary: string, ok: SuccessDoc, body: (a: Account) => Promise<unknown>): RouteDescriptor {
  return route({
    method: 'GET',
    path,
    auth: 'session',
    doc: { tags: ['Account'], operationId, summary },
    responses: { '200': ok },
    errors: { '401': invalidSession },
    handler: async (ctx) => {
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = await body(account(ctx));
    },
  });
}

export function accountRoutes(deps: AccountRouteDeps): RouteDescriptor[] {
  return [
    route({
      method: 'POST',
      path: '/signup/anon',
      auth: 'none',
      input: { in: 'body', schema: signupBodySchema, optional: true },
      doc: { tags: ['Trial'], operationId: 'signupAnon', summary: 'Issue a trial API key (30 days, 100 generations; one per IP per 30 days)' },
      responses: { '200': json(schemaRef('TrialKey'), 'The trial key (shown once).') },
      errors: {
        // SPEC lists 200, 429 and 500; a body that is not a JSON object is the caller's mistake all the same
        '400': { description: 'A body that is not a JSON object (it may be absent or {}).', codes: ['invalid_input'] },
        '429': { description: 'One trial per IP per 30 days.', codes: ['rate_limit_exceeded', 'rate_limited'], headers: retryAfter },
        '500': { description: 'Server error.', codes: ['internal_error'] },
        '503': { description: 'Trial claims are briefly unreachable (shared state of several instances); retry after Retry-After.', codes: ['service_unavailable'], headers: retryAfter },
      },
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = await deps.trials.signup(ctx.ip);
      },
    }),
    route({
      method: 'GET',
      path: '/usage/analytics',
      auth: 'session',
      input: { in: 'query', schema: analyticsQuerySchema },
      doc: { tags: ['Account'], operationId: 'getUsageAnalytics', summary: "The account's usage in the current period and quick statistics" },
      responses: { '200': json(schemaRef('UsageAnalytics'), 'Usage analytics.') },
      errors: { '400': { description: "Invalid days, or more days than the plan keeps analytics.", codes: ['invalid_input'] }, '401': invalidSession },
      handler: async (ctx, input) => {
        ctx.set('Cache-Control', 'private, no-store');
        ctx.body = await deps.usage.analytics(account(ctx), input.days);
      },
    }),
    accountJson('/billing/info', 'getBillingInfo', 'Plan, billing cycle, period and amount due', json(schemaRef('BillingInfo'), 'Billing info.'), (a) =>
      deps.billing.info(a),
    ),
    accountJson('/billing/invoices', 'listInvoices', "The account's invoices", json(schemaRef('InvoiceList'), 'Invoice list.'), async (a) => ({
      invoices: await deps.billing.invoiceList(a),
    })),
    route({
      method: 'GET',
      path: '/billing/invoices/:id/pdf',
      auth: 'session',
      doc: {
        tags: ['Account'],
        operationId: 'getInvoicePdf',
        summary: 'An invoice as a PDF document (download_url of the invoice list)',
        params: { id: { description: 'Invoice id.', schema: { type: 'string' } } },
      },
      responses: { '200': { description: 'The invoice.', content: pdfContent } },
      errors: { '401': invalidSession, '404': { description: "No such invoice, or another account's.", codes: ['not_found'] } },
      handler: async (ctx) => {
        const pdf = await deps.billing.invoicePdf(account(ctx), ctx.params.id!);
        ctx.type = 'application/pdf';
        ctx.set('Cache-Control', 'private, no-store');
        ctx.set('Content-Disposition', `inline; filename="${ctx.params.id!.replace(/[^A-Za-z0-9_-]/g, '')}.pdf"`);
        setImageHeaders(ctx, 'application/pdf', deps.fingerprint?.header());
        ctx.body = pdf;
      },
    }),
  ];
}
