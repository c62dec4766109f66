import Router from '@koa/router';
import type { AppDeps } from '../../app.js';
import { apiKeyAuth } from '../auth.js';
import { rateLimit } from '../rateLimit.js';
import { validate } from '../validate.js';
import { chartRequestBodySchema, chartRequestQuerySchema } from '../schemas/chart.js';
import type { RenderedImage } from '../../services/render.js';
import type { Context } from 'koa';
import { setImageHeaders } from '../imageHeaders.js';
import { clientSignal } from '../clientGone.js';

export function sendImage(ctx: Context, img: RenderedImage): void {
  ctx.status = 200;
  ctx.type = img.contentType;
  ctx.set('Cache-Control', 'private, no-store');
  setImageHeaders(ctx, img.contentType);
  ctx.body = img.body;
}

export function chartRoutes(router: Router, deps: AppDeps): void {
  router.get('/v1/chart', apiKeyAuth(deps.accounts, { allowSigned: true, clock: deps.clock }), rateLimit(deps), validate(chartRequestQuerySchema, 'query'), async (ctx) => {
    sendImage(ctx, await deps.charts.renderForCaller(ctx.state.auth, ctx.state.input, clientSignal(ctx)));
  });
  router.post('/v1/chart', apiKeyAuth(deps.accounts), rateLimit(deps), validate(chartRequestBodySchema, 'body'), async (ctx) => {
    sendImage(ctx, await deps.charts.renderForCaller(ctx.state.auth, ctx.state.input, clientSignal(ctx)));
  });
}
