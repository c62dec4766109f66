// GET and POST /v1/chart: the rendered image is the response.
import type { Context } from 'koa';
import type { ChartService } from '../../services/charts.js';
import type { RenderedImage } from '../../services/render.js';
import { chartRequestBodySchema, chartRequestQuerySchema } from '../schemas/chart.js';
import { setImageHeaders, type RendererHeader } from '../imageHeaders.js';
import { clientSignal } from '../clientGone.js';
import { callerOf } from '../state.js';
import { route, type RouteDescriptor, type SuccessDoc } from '../route.js';
import { CHART_BAD, imageContent, rateLimitHeaders, renderErrors } from '../routeDocs.js';

export interface ChartRouteDeps {
  charts: Pick<ChartService, 'renderForCaller'>;
  /** X-Chartshot-Renderer when the image does not name what drew it. */
  fingerprint?: RendererHeader;
}

/** Golden tests through a server send `X-Chartshot-Parts: 1`: the image's chart part boxes come back in a header of that name. */
export const PARTS_HEADER = 'X-Chartshot-Parts';
const wantsParts = (ctx: Context) => ctx.get(PARTS_HEADER) === '1';

function sendImage(ctx: Context, img: RenderedImage & { hint?: string }, renderer: string | undefined): void {
  ctx.status = 200;
  if (img.hint) ctx.set('X-Chartshot-Hint', img.hint);
  if (img.parts) ctx.set(PARTS_HEADER, JSON.stringify(img.parts));
  ctx.type = img.contentType;
  ctx.set('Cache-Control', 'private, no-store');
  setImageHeaders(ctx, img.contentType, img.renderer ?? renderer);
  ctx.body = img.body;
}

const hintHeader = {
  'X-Chartshot-Hint': { description: 'Present when the config has no datasets or no data: the image shows what Chart.js draws then (axes, grids, titles, legend).', schema: { type: 'string' } },
  [PARTS_HEADER]: {
    description:
      'Present when the request sent `X-Chartshot-Parts: 1` (golden tests, docs/golden-tests.md): the chart parts as the page measured them from Chart.js\'s layout, JSON `{"chartArea": {"x", "y", "width", "height"}, "legend": ..., "x": ...}` in output pixels.',
    schema: { type: 'string' },
  },
};
const image: SuccessDoc = { description: 'The image.', headers: { ...rateLimitHeaders, ...hintHeader }, content: imageContent(true) };

export function chartRoutes(deps: ChartRouteDeps): RouteDescriptor[] {
  return [
    route({
      method: 'GET',
      path: '/v1/chart',
      auth: 'apiKeyOrSigned',
      rateLimit: 'render',
      input: { in: 'query', schema: chartRequestQuerySchema },
      doc: {
        tags: ['Charts'],
        operationId: 'renderChartGet',
        summary: 'Render a chart from query parameters (API key or signed URL)',
        description:
          'Counts as a generation. A signed URL carries key_id, exp and sig (last) instead of a key: sig = HMAC-SHA256 (lowercase hex) with the signing secret over the raw query string before `&sig=`. The same signed URL fetched again within a minute gets the image drawn for it then (its signature, expiry and key are checked on every request).',
      },
      responses: { '200': image },
      errors: renderErrors(CHART_BAD),
      handler: async (ctx, input, pendingRate) =>
        sendImage(
          ctx,
          await deps.charts.renderForCaller(callerOf(ctx), input, { signal: clientSignal(ctx), decided: pendingRate, bodyJson: ctx.state.bodyConfigJson, parts: wantsParts(ctx), ...(ctx.state.signed ? { signedQuery: ctx.querystring } : {}) }),
          deps.fingerprint?.header(),
        ),
    }),
    route({
      method: 'POST',
      path: '/v1/chart',
      auth: 'apiKey',
      rateLimit: 'render',
      input: { in: 'body', schema: chartRequestBodySchema },
      doc: {
        tags: ['Charts'],
        operationId: 'renderChart',
        summary: 'Render a chart: the image is the response',
        description: 'Counts as a generation. Handles large configs and function strings (run only inside the sandboxed page).',
      },
      responses: { '200': image },
      errors: renderErrors(CHART_BAD),
      handler: async (ctx, input, pendingRate) =>
        sendImage(ctx, await deps.charts.renderForCaller(callerOf(ctx), input, { signal: clientSignal(ctx), decided: pendingRate, bodyJson: ctx.state.bodyConfigJson, parts: wantsParts(ctx) }), deps.fingerprint?.header()),
    }),
  ];
}
