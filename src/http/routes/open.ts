// GET /v1/open/chart: no credentials, faces the whole internet. Size limits first (before
// anything is parsed further), then the query schema, then the service (gate, cache, per-IP
// window, render). Images are public and immutable; errors are never cached (error mapper).
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { AppDeps } from '../../app.js';
import { checkConfigSize, checkRequestTarget, type OpenChartQuery } from '../../chart/open.js';
import { invalidConfig } from '../../errors.js';
import type { OpenImage } from '../../services/open.js';
import { validate, type ErrorMapper } from '../validate.js';
import { openChartQuerySchema } from '../schemas/open.js';
import { etagMatches, setImageHeaders } from '../imageHeaders.js';

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
  return invalidConfig(`${field} ${e.message ?? 'is invalid'}`);
};

function sendOpenImage(ctx: Context, img: OpenImage): void {
  ctx.set('Cache-Control', OPEN_CACHE_CONTROL);
  ctx.set('ETag', img.etag);
  ctx.set('X-Cache-Tier', img.tier);
  ctx.set('X-Edit-Url', img.editUrl);
  ctx.set('Link', `<${img.editUrl}>; rel="edit"`);
  setImageHeaders(ctx, img.contentType);
  if (etagMatches(ctx.get('if-none-match'), img.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = img.contentType;
  ctx.body = img.body;
}

export function openRoutes(router: Router, deps: AppDeps): void {
  router.get('/v1/open/chart', openLimits(), validate(openChartQuerySchema, 'query', asInvalidConfig), async (ctx) => {
    const ip = ctx.ip || ctx.req.socket.remoteAddress || '';
    sendOpenImage(ctx, await deps.open.render(ctx.state.input as OpenChartQuery, ip, ctx.originalUrl));
  });
}
