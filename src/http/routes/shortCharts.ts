// POST /v1/chart/create, GET /v1/chart/{id} (no credentials, never counted), GET /v1/metrics/{id}.
import type { Context } from 'koa';
import { chartRequestBodySchema } from '../schemas/chart.js';
import { chartIdParam, shortChartHeaders } from '../schemas/shortCharts.js';
import type { ServedChart, ShortChartService } from '../../services/shortCharts.js';
import { etagMatches, setImageHeaders, type RendererHeader } from '../imageHeaders.js';
import { route, type RouteDescriptor } from '../route.js';
import { CHART_BAD, imageContent, json, rateLimitHeaders, renderErrors, retryAfter, schemaRef } from '../routeDocs.js';
import { clientSignal } from '../clientGone.js';
import { callerOf } from '../state.js';

export interface ShortChartRouteDeps {
  shortCharts: Pick<ShortChartService, 'create' | 'serve' | 'metrics'>;
  /** X-Chartshot-Renderer of the stored images served. */
  fingerprint?: RendererHeader;
}

// The image behind an id never changes: a re-render after expiry draws the same stored request.
export const IMMUTABLE = 'public, max-age=31536000, immutable';
// The last good image, past its expiry, served while the chart is re-rendered (or held back):
// shared caches may keep it a minute, then ask again for the fresh one.
const STALE = 'public, max-age=60';
const TIER_HEADER: Record<ServedChart['tier'], string> = { memory: 'edge', shared: 'edge', persistent: 'r2', render: 'miss', stale: 'stale' };

/** A served short chart's image: its ETag (304 on a match), its Cache-Control by tier, X-Cache-Tier; X-Chartshot-Renderer: what drew it as stored with it, else `renderer` (images stored before that was recorded). */
export function sendServed(ctx: Context, served: ServedChart, renderer: string | undefined): void {
  const { image } = served;
  ctx.set('ETag', image.etag);
  ctx.set('Cache-Control', served.tier === 'stale' ? STALE : IMMUTABLE);
  ctx.set('X-Cache-Tier', TIER_HEADER[served.tier]);
  setImageHeaders(ctx, image.contentType, image.renderer ?? renderer);
  if (etagMatches(ctx.get('if-none-match'), image.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = image.contentType;
  ctx.body = image.body;
}

export function shortChartRoutes(deps: ShortChartRouteDeps): RouteDescriptor[] {
  return [
    route({
      method: 'POST',
      path: '/v1/chart/create',
      auth: 'apiKey',
      rateLimit: 'generation',
      input: { in: 'body', schema: chartRequestBodySchema },
      doc: {
        tags: ['Short charts'],
        operationId: 'createShortChart',
        summary: 'Render and keep a chart behind a permanent short URL',
        description: 'Counts as a generation. The URL exposes no key or secret and is served without credentials.',
      },
      responses: { '201': json(schemaRef('ShortChart'), 'Created.', rateLimitHeaders) },
      errors: renderErrors(CHART_BAD),
      handler: async (ctx, input) => {
        const chart = await deps.shortCharts.create(callerOf(ctx), input, { signal: clientSignal(ctx), bodyJson: ctx.state.bodyConfigJson });
        ctx.status = 201;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { url: chart.url, id: chart.id };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/chart/:id',
      auth: 'none',
      doc: {
        tags: ['Short charts'],
        operationId: 'getShortChart',
        summary: 'The image behind a short URL (no credentials; not a generation)',
        params: { id: chartIdParam },
      },
      responses: {
        '200': { description: 'The cached image.', headers: shortChartHeaders, content: imageContent(true) },
        '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: shortChartHeaders },
      },
      errors: {
        '404': { description: 'No such chart.', codes: ['not_found'] },
        '500': { description: 'A re-render after cache expiry failed.', codes: ['internal_error', 'render_failed'] },
        '503': { description: 'Every renderer is busy.', codes: ['service_unavailable'], headers: retryAfter },
      },
      handler: async (ctx) => sendServed(ctx, await deps.shortCharts.serve(ctx.params.id!), deps.fingerprint?.header()),
    }),
    route({
      method: 'GET',
      path: '/v1/metrics/:id',
      auth: 'apiKey',
      rateLimit: 'request',
      doc: {
        tags: ['Short charts'],
        operationId: 'getChartMetrics',
        summary: "Counters of one of the caller's short charts (not a generation)",
        params: { id: chartIdParam },
      },
      responses: { '200': json(schemaRef('Metrics'), 'Chart metrics (avgRenderTime in milliseconds).', rateLimitHeaders) },
      errors: {
        '401': { description: 'Missing or invalid API key.', codes: ['unauthorized'] },
        '404': { description: "No such chart, or another account's chart.", codes: ['not_found'] },
        '429': { description: 'Rate limit reached.', codes: ['rate_limit_exceeded'], headers: { ...retryAfter, ...rateLimitHeaders } },
      },
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'private, no-store');
        ctx.body = await deps.shortCharts.metrics(callerOf(ctx), ctx.params.id!);
      },
    }),
  ];
}
