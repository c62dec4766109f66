// POST /v1/chart/create, GET /v1/chart/{id} (no credentials, never counted), GET /v1/metrics/{id}.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { AppDeps } from '../../app.js';
import { apiKeyAuth } from '../auth.js';
import { rateLimit } from '../rateLimit.js';
import { validate } from '../validate.js';
import { chartRequestBodySchema } from '../schemas/chart.js';
import type { ServedChart } from '../../services/shortCharts.js';
import { etagMatches, setImageHeaders } from '../imageHeaders.js';

// The image behind an id never changes: a re-render after expiry draws the same stored request.
export const IMMUTABLE = 'public, max-age=31536000, immutable';
// The last good image, past its expiry, served while the chart is re-rendered (or held back):
// shared caches may keep it a minute, then ask again for the fresh one.
const STALE = 'public, max-age=60';
const TIER_HEADER: Record<ServedChart['tier'], string> = { memory: 'edge', persistent: 'r2', render: 'miss', stale: 'stale' };

function sendServed(ctx: Context, served: ServedChart): void {
  const { image } = served;
  ctx.set('ETag', image.etag);
  ctx.set('Cache-Control', served.tier === 'stale' ? STALE : IMMUTABLE);
  ctx.set('X-Cache-Tier', TIER_HEADER[served.tier]);
  setImageHeaders(ctx, image.contentType);
  if (etagMatches(ctx.get('if-none-match'), image.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = image.contentType;
  ctx.body = image.body;
}

export function shortChartRoutes(router: Router, deps: AppDeps): void {
  router.post('/v1/chart/create', apiKeyAuth(deps.accounts), rateLimit(deps), validate(chartRequestBodySchema, 'body'), async (ctx) => {
    const chart = await deps.shortCharts.create(ctx.state.auth, ctx.state.input);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { url: chart.url, id: chart.id };
  });
  router.get('/v1/chart/:id', async (ctx) => {
    sendServed(ctx, await deps.shortCharts.serve(ctx.params.id!));
  });
  router.get('/v1/metrics/:id', apiKeyAuth(deps.accounts), rateLimit(deps, { generation: false }), async (ctx) => {
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = await deps.shortCharts.metrics(ctx.state.auth, ctx.params.id!);
  });
}
