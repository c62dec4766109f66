// QuickChart's URL API: GET and POST /chart, POST /chart/create, GET /chart/render/{id}, GET /qr,
// with its parameter names, defaults, Cache-Control and error images.
import type { Context, Middleware } from 'koa';
import { checkRequestTarget } from '../../chart/open.js';
import { parseQrQuery } from '../../chart/qr.js';
import type { QuickChartFields } from '../../chart/quickchart.js';
import { invalidInput, unauthorized } from '../../errors.js';
import { bodyLimit, readBody, readJsonBody, setJsonBody } from '../body.js';
import { keyInJsonText } from '../bodyKey.js';
import type { Logger } from '../../log.js';
import type { AccountService } from '../../services/accounts.js';
import type { ErrorImageService } from '../../services/errorImages.js';
import type { QrService } from '../../services/qr.js';
import type { QuickChartService } from '../../services/quickchart.js';
import type { UsageService } from '../../services/usage.js';
import { clientSignal } from '../clientGone.js';
import { setImageHeaders } from '../imageHeaders.js';
import { ERROR_HEADER, quickChartErrors } from '../quickchartErrors.js';
import { rateLimit } from '../rateLimit.js';
import { route, type ErrorDoc, type RouteDescriptor } from '../route.js';
import { imageContent, json, rateLimitHeaders, retryAfter } from '../routeDocs.js';
import { quickChartBodySchema, quickChartCreatedSchema, quickChartQuerySchema, qrQuerySchema, templateQuerySchema } from '../schemas/quickchart.js';
import { chartIdParam, shortChartHeaders } from '../schemas/shortCharts.js';
import { sendServed } from './shortCharts.js';

export interface QuickChartRouteDeps {
  quickchart: Pick<QuickChartService, 'render' | 'create' | 'renderTemplate'>;
  qr: Pick<QrService, 'render'>;
  errorImages: ErrorImageService;
  accounts: Pick<AccountService, 'authenticateKey'>;
  usage: Pick<UsageService, 'gate'>;
  log: Logger;
  config: { readonly quickchartAnonymous: boolean };
}

/** QuickChart's clients cache a week: the same URL draws the same image. */
export const QUICKCHART_CACHE = 'public, max-age=604800';

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The caller: a key in X-Api-Key, key or api_key (query or body) authenticates and meets the
 * account's rate limit; without one, anonymous use when the operator allows it, else 401.
 *
 * The body is read in the order the rest of the API keeps (route, auth, rate limit, body) when
 * the key is outside it. QuickChart's clients put it in the body (quickchart-js last, after the
 * chart), so then the body is read first, at most MAX_BODY_BYTES, and parsed only when it is
 * small (ANONYMOUS_BODY_BYTES) or its text carries a key that authenticates: a large body
 * without a valid key is refused (401, or 400 when keyless use is allowed) without parsing it.
 */
function caller(d: QuickChartRouteDeps, anonymousAllowed: boolean): Middleware {
  const limit = rateLimit(d);
  return async (ctx, next) => {
    const outside = str(ctx.get('x-api-key')) ?? str(ctx.query.key) ?? str(ctx.query.api_key);
    const post = ctx.method === 'POST';
    if (outside !== undefined) {
      ctx.state.auth = await d.accounts.authenticateKey(outside);
      return limit(ctx, async () => {
        if (post) await readJsonBody(ctx, bodyLimit(ctx, 'authenticated'));
        await next();
      });
    }
    let sniffed: string | undefined;
    if (post) {
      const bytes = await readBody(ctx, bodyLimit(ctx, 'authenticated'));
      const small = bodyLimit(ctx, 'anonymous');
      if (bytes.length > small) {
        sniffed = keyInJsonText(bytes);
        if (sniffed === undefined) {
          if (!anonymousAllowed) throw unauthorized('an API key is required: the key or api_key parameter, or the X-Api-Key header');
          throw invalidInput(`body larger than ${small} bytes without an API key`);
        }
        // not a key: 401 before the body is parsed
        ctx.state.auth = await d.accounts.authenticateKey(sniffed);
      }
      setJsonBody(ctx, bytes);
    }
    const body = (ctx.request as { body?: Record<string, unknown> }).body;
    const key = body && typeof body === 'object' ? (str(body.key) ?? str(body.api_key)) : undefined;
    if (key !== undefined) {
      if (key !== sniffed) ctx.state.auth = await d.accounts.authenticateKey(key);
      return limit(ctx, next);
    }
    if (sniffed !== undefined) throw unauthorized('the API key must be the body\'s own key or api_key field');
    if (!anonymousAllowed) throw unauthorized('an API key is required: the key or api_key parameter, or the X-Api-Key header');
    // the open endpoint's URL limit (its config limit is checked with the config)
    checkRequestTarget(ctx.url);
    await next();
  };
}

const chain =
  (...mws: Middleware[]): Middleware =>
  (ctx, next) => {
    const run = (i: number): Promise<void> => (i === mws.length ? next() : Promise.resolve(mws[i]!(ctx, () => run(i + 1))));
    return run(0);
  };

const imageError = (description: string, codes: ErrorDoc['codes'], headers?: Record<string, unknown>): ErrorDoc => ({
  description: `${description} The body is an image of the message in the requested format; the message is also in X-quickchart-error.`,
  codes,
  headers: { [ERROR_HEADER]: { description: 'The error message.', schema: { type: 'string' } }, ...(headers ?? {}) },
  content: imageContent(true),
});

const chartErrors = (anonymous: boolean): Record<string, ErrorDoc> => ({
  '400': imageError('Invalid request or config.', ['invalid_input', 'chart_required', 'invalid_dimensions', ...(anonymous ? (['config_too_large', 'url_too_long'] as const) : [])], rateLimitHeaders),
  '401': imageError(anonymous ? 'Invalid API key.' : 'Missing or invalid API key.', ['unauthorized']),
  '403': imageError('The account is suspended or cancelled.', ['forbidden']),
  '429': imageError('Rate limit, trial cap, page time spent (trial keys and keyless addresses), or (keyless) the per-address render limit reached.', ['rate_limit_exceeded', 'trial_limit_reached', 'rate_limited'], { ...retryAfter, ...rateLimitHeaders }),
  '500': imageError('Rendering failed.', ['internal_error', 'render_failed']),
  '503': imageError('Every renderer is busy.', ['service_unavailable'], retryAfter),
});

const imageOk = (description: string) => ({
  description,
  headers: { 'Cache-Control': { description: QUICKCHART_CACHE, schema: { type: 'string' } } },
  content: imageContent(true),
});

function sendImage(ctx: Context, img: { body: Buffer; contentType: string; renderer?: string }): void {
  ctx.status = 200;
  ctx.type = img.contentType;
  ctx.set('Cache-Control', QUICKCHART_CACHE);
  setImageHeaders(ctx, img.contentType, img.renderer);
  ctx.body = img.body;
}

export function quickChartRoutes(d: QuickChartRouteDeps): RouteDescriptor[] {
  const errors = quickChartErrors(d);
  const anonymous = d.config.quickchartAnonymous;
  const render = async (ctx: Context, input: QuickChartFields) => {
    const who = ctx.state.auth ? { auth: ctx.state.auth } : { anonymousIp: ctx.ip };
    sendImage(ctx, await d.quickchart.render(who, input, clientSignal(ctx)));
  };
  const renderDescription =
    'QuickChart-compatible. With a key: a generation of its account. Without one: 401, unless the operator set QUICKCHART_ANONYMOUS=true (then data configs only, the security gate, and the per-address render limit of the open endpoint).';
  return [
    route({
      method: 'GET',
      path: '/chart',
      auth: 'none',
      precheck: chain(errors, caller(d, anonymous)),
      input: { in: 'query', schema: quickChartQuerySchema },
      doc: { tags: ['QuickChart'], operationId: 'quickChartGet', summary: 'Render a chart from QuickChart-style query parameters', description: renderDescription },
      responses: { '200': imageOk('The image.') },
      errors: chartErrors(anonymous),
      handler: (ctx, input) => render(ctx, input as QuickChartFields),
    }),
    route({
      method: 'POST',
      path: '/chart',
      auth: 'none',
      precheck: chain(errors, caller(d, anonymous)),
      body: 'precheck',
      input: { in: 'body', schema: quickChartBodySchema },
      doc: { tags: ['QuickChart'], operationId: 'quickChartPost', summary: 'Render a chart from a QuickChart-style JSON body', description: renderDescription },
      responses: { '200': imageOk('The image.') },
      errors: chartErrors(anonymous),
      handler: (ctx, input) => render(ctx, input as QuickChartFields),
    }),
    route({
      method: 'POST',
      path: '/chart/create',
      auth: 'none',
      precheck: chain(errors, caller(d, false)),
      body: 'precheck',
      input: { in: 'body', schema: quickChartBodySchema },
      doc: {
        tags: ['QuickChart'],
        operationId: 'quickChartCreate',
        summary: 'Render and keep a chart behind a permanent /chart/render/{id} URL (API key required)',
        description: 'Counts as a generation, like POST /v1/chart/create; the stored chart is the same kind.',
      },
      responses: { '200': json(quickChartCreatedSchema, 'Created (X-RateLimit-* headers as on every keyed request).') },
      errors: chartErrors(false),
      handler: async (ctx, input) => {
        const chart = await d.quickchart.create(ctx.state.auth, input as QuickChartFields, clientSignal(ctx));
        ctx.status = 200;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { success: true, url: chart.url };
      },
    }),
    route({
      method: 'GET',
      path: '/chart/render/:id',
      auth: 'none',
      precheck: errors,
      input: { in: 'query', schema: templateQuerySchema },
      doc: {
        tags: ['QuickChart'],
        operationId: 'quickChartRender',
        summary: 'A chart made by POST /chart/create, with optional template overrides (no credentials)',
        description:
          'Without overrides: the stored image, never counted. With overrides (title, labels, dataN, labelN, backgroundColorN, borderColorN, width, height, backgroundColor): a variant, cached. A variant is not a generation: it spends neither the owner\'s rate limit nor allowance; new variants are limited to 60 an hour per client address and 20 an hour per chart (429 rate_limited).',
        params: { id: chartIdParam },
      },
      responses: {
        '200': { description: 'The image.', headers: shortChartHeaders, content: imageContent(true) },
        '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: shortChartHeaders },
      },
      errors: {
        '400': imageError('Invalid override.', ['invalid_input', 'invalid_dimensions']),
        '403': imageError("The chart's account is suspended: variants are disabled.", ['forbidden']),
        '404': imageError('No such chart.', ['not_found']),
        '429': imageError('Too many new variants from this address, or of this chart, in the last hour.', ['rate_limited'], retryAfter),
        '500': imageError('Rendering failed.', ['internal_error', 'render_failed']),
        '503': imageError('Every renderer is busy.', ['service_unavailable'], retryAfter),
      },
      handler: async (ctx) => sendServed(ctx, await d.quickchart.renderTemplate(ctx.params.id!, { ...ctx.query }, ctx.ip, clientSignal(ctx))),
    }),
    route({
      method: 'GET',
      path: '/qr',
      auth: 'none',
      precheck: errors,
      input: { in: 'query', schema: qrQuerySchema },
      doc: {
        tags: ['QuickChart'],
        operationId: 'qrCode',
        summary: 'A QR code (QuickChart-compatible; no credentials, not a generation)',
        description: 'Drawn in the server, not in the browser; cached by its parameters. New codes (not cached) are limited to 300 an hour per client address.',
      },
      responses: { '200': { ...imageOk('The QR code.'), content: imageContent(false) } },
      errors: {
        '400': imageError('Invalid parameter, or text too long for a QR code.', ['invalid_input']),
        '429': imageError('Too many new QR codes from this address in the last hour (300).', ['rate_limited'], retryAfter),
      },
      handler: async (ctx) => {
        const img = await d.qr.render(parseQrQuery({ ...ctx.query }), ctx.ip);
        ctx.set('ETag', img.etag);
        sendImage(ctx, img);
      },
    }),
  ];
}
