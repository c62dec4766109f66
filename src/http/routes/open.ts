// GET /v1/open/chart: no credentials, faces the whole internet. Size limits first (before
// anything is parsed further), then the query schema, then the service (gate, cache, per-IP
// window, render). Images are public and immutable; errors are never cached (error mapper).
import type { Context, Middleware } from 'koa';
import { checkConfigSize, checkRequestTarget } from '../../chart/open.js';
import { invalidConfig } from '../../errors.js';
import type { OpenChartService, OpenImage } from '../../services/open.js';
import { openChartQuerySchema, openChartResponseHeaders } from '../schemas/open.js';
import { malformedZoneField } from '../../chart/zoneLocale.js';
import { etagMatches, setImageHeaders, type RendererHeader } from '../imageHeaders.js';
import { route, type ErrorMapper, type RouteDescriptor } from '../route.js';
import { imageContent, retryAfter } from '../routeDocs.js';
import { clientSignal } from '../clientGone.js';
import { schemaMessage } from '../validate.js';

export interface OpenRouteDeps {
  open: Pick<OpenChartService, 'render'>;
  /** X-Chartshot-Renderer of the images served. */
  fingerprint?: RendererHeader;
}

export const OPEN_CACHE_CONTROL = 'public, max-age=86400, s-maxage=31536000, immutable';

/** url_too_long, repeated parameters and config_too_large, in that order, before the schema. */
function openLimits(): Middleware {
  return async (ctx, next) => {
    checkRequestTarget(ctx.originalUrl);
    for (const [k, v] of Object.entries(ctx.query)) {
      if (Array.isArray(v)) throw invalidConfig(`${k.slice(0, 20)} is given more than once`);
    }
    checkConfigSize(ctx.query.c);
    await next();
  };
}

const asInvalidConfig: ErrorMapper = (e) => {
  const field = e.instancePath.replace(/^\//, '') || 'query';
  if (field === 'timezone' || field === 'locale') return malformedZoneField(field);
  return invalidConfig(`${field} ${schemaMessage(e)}`);
};

function sendOpenImage(ctx: Context, img: OpenImage, renderer: string | undefined): void {
  ctx.set('Cache-Control', img.cached === false ? 'no-store' : OPEN_CACHE_CONTROL);
  ctx.set('ETag', img.etag);
  ctx.set('X-Cache-Tier', img.tier);
  ctx.set('X-Edit-Url', img.editUrl);
  ctx.set('Link', `<${img.editUrl}>; rel="edit"`);
  setImageHeaders(ctx, img.contentType, img.renderer ?? renderer);
  if (etagMatches(ctx.get('if-none-match'), img.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = img.contentType;
  ctx.body = img.body;
}

export function openRoutes(deps: OpenRouteDeps): RouteDescriptor[] {
  return [
    route({
      method: 'GET',
      path: '/v1/open/chart',
      auth: 'none',
      precheck: openLimits(),
      input: { in: 'query', schema: openChartQuerySchema, mapError: asInvalidConfig },
      doc: {
        tags: ['Open'],
        operationId: 'renderOpenChart',
        summary: 'Render without credentials (per-IP limit, watermarked)',
        description:
          'Either c, or type with data. The whole URL at most 8192 bytes (url_too_long), c at most 6144 bytes (config_too_large). Executable-looking strings, a top-level plugins array and remote URLs outside data are refused (invalid_config). Cache misses are limited per IP and hour (rate_limited); cache hits are not.',
      },
      responses: {
        '200': { description: 'The watermarked image.', headers: openChartResponseHeaders, content: imageContent() },
        '304': { description: 'Not modified.', headers: openChartResponseHeaders },
      },
      errors: {
        '400': { description: 'Invalid request.', codes: ['url_too_long', 'config_too_large', 'invalid_config'] },
        '429': { description: 'Per-IP cap of cache-miss renders reached, or the address has spent its page time (PAGE_BUDGET_MS; failed renders count).', codes: ['rate_limited'], headers: retryAfter },
        '500': { description: 'Rendering failed.', codes: ['render_failed', 'internal_error'] },
        '503': { description: 'Every renderer is busy.', codes: ['service_unavailable'], headers: retryAfter },
      },
      handler: async (ctx, input) => {
        const ip = ctx.ip || ctx.req.socket.remoteAddress || '';
        sendOpenImage(ctx, await deps.open.render(input, ip, ctx.originalUrl, clientSignal(ctx)), deps.fingerprint?.header());
      },
    }),
  ];
}
