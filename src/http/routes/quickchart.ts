// QuickChart's URL API: GET and POST /chart, POST /chart/create, GET /chart/render/{id}, GET /qr,
// with its parameter names, defaults, Cache-Control and error images.
import type { Context } from 'koa';
import { parseQrQuery } from '../../chart/qr.js';
import type { QuickChartFields } from '../../chart/quickchart.js';
import type { QrService } from '../../services/qr.js';
import type { QuickChartService } from '../../services/quickchart.js';
import { clientSignal } from '../clientGone.js';
import { setImageHeaders, type RendererHeader } from '../imageHeaders.js';
import { ERROR_HEADER } from '../quickchartErrors.js';
import { route, type ErrorDoc, type RouteDescriptor } from '../route.js';
import { imageContent, json, rateLimitHeaders, retryAfter } from '../routeDocs.js';
import { quickChartBodySchema, quickChartCreatedSchema, quickChartQuerySchema, qrQuerySchema, templateQuerySchema } from '../schemas/quickchart.js';
import { chartIdParam, shortChartHeaders } from '../schemas/shortCharts.js';
import { sendServed } from './shortCharts.js';

export interface QuickChartRouteDeps {
  quickchart: Pick<QuickChartService, 'render' | 'create' | 'renderTemplate'>;
  qr: Pick<QrService, 'render'>;
  config: { readonly quickchartAnonymous: boolean };
  /** X-Chartshot-Renderer of stored images and error images. */
  fingerprint?: RendererHeader;
}

/** QuickChart's clients cache a week: the same URL draws the same image. */
export const QUICKCHART_CACHE = 'public, max-age=604800';

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

/** `renderer`: X-Chartshot-Renderer when the image does not name what drew it (this instance's Chart.js 4). */
function sendImage(ctx: Context, img: { body: Buffer; contentType: string; renderer?: string; cached?: boolean }, renderer: string | undefined): void {
  ctx.status = 200;
  ctx.type = img.contentType;
  ctx.set('Cache-Control', img.cached === false ? 'no-store' : QUICKCHART_CACHE);
  setImageHeaders(ctx, img.contentType, img.renderer ?? renderer);
  ctx.body = img.body;
}

export function quickChartRoutes(d: QuickChartRouteDeps): RouteDescriptor[] {
  const anonymous = d.config.quickchartAnonymous;
  const render = async (ctx: Context, input: QuickChartFields) => {
    const who = ctx.state.auth ? { auth: ctx.state.auth } : { anonymousIp: ctx.ip };
    sendImage(ctx, await d.quickchart.render(who, input, clientSignal(ctx), ctx.state.bodyConfigJson), d.fingerprint?.header());
  };
  const renderDescription =
    'QuickChart-compatible. With a key: a generation of its account. Without one: 401, unless the operator set QUICKCHART_ANONYMOUS=true (then data configs only, the security gate, and the per-address render limit of the open endpoint).';
  return [
    route({
      method: 'GET',
      path: '/chart',
      auth: anonymous ? 'quickchartKeyOptional' : 'quickchartKey',
      errorFormat: 'quickchart',
      input: { in: 'query', schema: quickChartQuerySchema },
      doc: { tags: ['QuickChart'], operationId: 'quickChartGet', summary: 'Render a chart from QuickChart-style query parameters', description: renderDescription },
      responses: { '200': imageOk('The image.') },
      errors: chartErrors(anonymous),
      handler: (ctx, input) => render(ctx, input as QuickChartFields),
    }),
    route({
      method: 'POST',
      path: '/chart',
      auth: anonymous ? 'quickchartKeyOptional' : 'quickchartKey',
      errorFormat: 'quickchart',
      input: { in: 'body', schema: quickChartBodySchema },
      doc: { tags: ['QuickChart'], operationId: 'quickChartPost', summary: 'Render a chart from a QuickChart-style JSON body', description: renderDescription },
      responses: { '200': imageOk('The image.') },
      errors: chartErrors(anonymous),
      handler: (ctx, input) => render(ctx, input as QuickChartFields),
    }),
    route({
      method: 'POST',
      path: '/chart/create',
      auth: anonymous ? 'quickchartKeyOptional' : 'quickchartKey',
      errorFormat: 'quickchart',
      input: { in: 'body', schema: quickChartBodySchema },
      doc: {
        tags: ['QuickChart'],
        operationId: 'quickChartCreate',
        summary: 'Render and keep a chart behind a /chart/render/{id} URL',
        description:
          'With a key: counts as a generation, like POST /v1/chart/create; the stored chart is the same kind, permanent. Without one: 401, unless the operator set QUICKCHART_ANONYMOUS=true: then keyless /chart\'s rules (data configs only, the security gate, the per-address render limit), and the image lives in the open cache (OPEN_CACHE_MAX_MB): the same config gets the same URL, which answers 404 once the image is evicted.',
      },
      responses: { '200': json(quickChartCreatedSchema, 'Created (X-RateLimit-* headers as on every keyed request).') },
      errors: chartErrors(anonymous),
      handler: async (ctx, input) => {
        const who = ctx.state.auth ? { auth: ctx.state.auth } : { anonymousIp: ctx.ip };
        const chart = await d.quickchart.create(who, input as QuickChartFields, clientSignal(ctx), ctx.state.bodyConfigJson);
        ctx.status = 200;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { success: true, url: chart.url };
      },
    }),
    route({
      method: 'GET',
      path: '/chart/render/:id',
      auth: 'none',
      errorFormat: 'quickchart',
      input: { in: 'query', schema: templateQuerySchema },
      doc: {
        tags: ['QuickChart'],
        operationId: 'quickChartRender',
        summary: 'A chart made by POST /chart/create, with optional template overrides (no credentials)',
        description:
          'A chart made without a key (QUICKCHART_ANONYMOUS): its image while the open cache holds it, else 404; no overrides (400). Without overrides: the stored image, never counted. With overrides (title, labels, dataN, labelN, backgroundColorN, borderColorN, width, height, backgroundColor): a variant, cached. A variant is not a generation: it spends neither the owner\'s rate limit nor allowance; new variants are limited to 60 an hour per client address and 20 an hour per chart (429 rate_limited).',
        params: { id: chartIdParam },
      },
      responses: {
        '200': { description: 'The image.', headers: shortChartHeaders, content: imageContent(true) },
        '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: shortChartHeaders },
      },
      errors: {
        '400': imageError('Invalid override, or an override of a chart made without a key.', ['invalid_input', 'invalid_dimensions']),
        '403': imageError("The chart's account is suspended: variants are disabled.", ['forbidden']),
        '404': imageError('No such chart (or, made without a key, evicted from the open cache).', ['not_found']),
        '429': imageError('Too many new variants from this address, or of this chart, in the last hour.', ['rate_limited'], retryAfter),
        '500': imageError('Rendering failed.', ['internal_error', 'render_failed']),
        '503': imageError('Every renderer is busy.', ['service_unavailable'], retryAfter),
      },
      handler: async (ctx) => sendServed(ctx, await d.quickchart.renderTemplate(ctx.params.id!, { ...ctx.query }, ctx.ip, clientSignal(ctx)), d.fingerprint?.header()),
    }),
    route({
      method: 'GET',
      path: '/qr',
      // CONTRACT: keyless requests on the QuickChart-compatible routes only with QUICKCHART_ANONYMOUS
      auth: anonymous ? 'quickchartKeyOptional' : 'quickchartKey',
      errorFormat: 'quickchart',
      input: { in: 'query', schema: qrQuerySchema },
      doc: {
        tags: ['QuickChart'],
        operationId: 'qrCode',
        summary: 'A QR code (QuickChart-compatible; not a generation)',
        description:
          'With a key (key, api_key or X-Api-Key; the account\'s rate limit applies, the code is not a generation). Without one: 401, unless the operator set QUICKCHART_ANONYMOUS=true. Drawn in the server, not in the browser (a caption or a center image: by a renderer page); cached by its parameters. New codes (not cached) are limited to 300 an hour per client address.',
      },
      responses: { '200': { ...imageOk('The QR code.'), content: imageContent(false) } },
      errors: {
        '400': imageError('Invalid parameter, text too long for a QR code, or a center image that may not or could not be fetched.', ['invalid_input', 'invalid_config']),
        '401': imageError(anonymous ? 'Invalid API key.' : 'Missing or invalid API key.', ['unauthorized']),
        '429': imageError('Too many new QR codes from this address in the last hour (300), or the key\'s rate limit.', ['rate_limited', 'rate_limit_exceeded'], { ...retryAfter, ...rateLimitHeaders }),
        '503': imageError('Every renderer is busy (codes with a caption or a center image are drawn by a renderer).', ['service_unavailable'], retryAfter),
      },
      handler: async (ctx) => {
        const img = await d.qr.render(parseQrQuery({ ...ctx.query }), ctx.ip);
        ctx.set('ETag', img.etag);
        sendImage(ctx, img, d.fingerprint?.header());
      },
    }),
  ];
}
