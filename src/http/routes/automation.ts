// POST /v1/zapier/{bar,line,pie,multi-series}-chart (API key; 201 with the seven fields),
// and the two pages their URLs point to: GET /v1/chart/{id}/download (the image as an
// attachment) and GET /v1/chart/{id}/preview (an HTML page showing it). No credentials on
// the pages: like GET /v1/chart/{id}, they serve a chart someone chose to share.
import type { AutomationService, ChartPreview } from '../../services/automation.js';
import { automationEndpoints } from '../schemas/automation.js';
import { chartIdParam, shortChartHeaders } from '../schemas/shortCharts.js';
import { sendServed } from './shortCharts.js';
import type { RendererHeader } from '../imageHeaders.js';
import { route, type RouteDescriptor } from '../route.js';
import { headerRef, htmlPage, imageContent, json, rateLimitHeaders, renderErrors, schemaRef } from '../routeDocs.js';
import { clientSignal } from '../clientGone.js';
import { shortNames } from '../shortNames.js';
import { escapeHtml } from '../../escapeHtml.js';
import { callerOf } from '../state.js';

export interface AutomationRouteDeps {
  automation: Pick<AutomationService, 'create' | 'download' | 'preview'>;
  /** X-Chartshot-Renderer of the images served. */
  fingerprint?: RendererHeader;
}


function previewPage(p: ChartPreview): string {
  const id = escapeHtml(p.id);
  // the chart's own title names the tab (escaped: it is the caller's text); else the id
  const name = p.title ? escapeHtml(p.title) : `Chart ${id}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name} · chartshot</title>
<style>
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:16px;background:#f3f4f6;font:15px system-ui,sans-serif;color:#111827}
img{max-width:95vw;height:auto;background:#fff;box-shadow:0 1px 4px rgba(0,0,0,.15)}
a{color:#2563eb}
</style>
</head>
<body>
<img src="${escapeHtml(p.imageUrl)}" width="${p.width}" height="${p.height}" alt="${name}">
<p><a href="${escapeHtml(p.downloadUrl)}">Download ${p.format.toUpperCase()}</a> · <a href="${escapeHtml(p.imageUrl)}">Image link</a></p>
</body>
</html>
`;
}

const notFound = { '404': { description: 'No such chart.', codes: ['not_found'] } } as const;

export function automationRoutes(deps: AutomationRouteDeps): RouteDescriptor[] {
  const create = automationEndpoints.map((ep) =>
    route({
      method: 'POST',
      path: ep.path,
      auth: 'apiKey',
      rateLimit: 'generation',
      precheck: shortNames(),
      input: { in: 'body', schema: ep.schema, form: true },
      doc: {
        tags: ['Automation'],
        operationId: `zapier${ep.kind[0]!.toUpperCase()}${ep.kind.slice(1)}Chart`,
        summary: ep.summary,
        description:
          'Counts as one generation. The chart is kept behind a permanent short URL; chart_url serves the image, download_url serves it as an attachment, preview_url is an HTML page showing it. Every bad input is 400 invalid_input with a detail naming the field. Numbers and booleans may also be sent as strings ("800", "true").',
      },
      responses: { '201': json(schemaRef('AutomationResult'), 'Created.', rateLimitHeaders) },
      errors: renderErrors(['invalid_input']),
      handler: async (ctx, input) => {
        ctx.body = await deps.automation.create(callerOf(ctx), ep.kind, input, clientSignal(ctx));
        ctx.status = 201;
        ctx.set('Cache-Control', 'no-store');
      },
    }),
  );
  return [
    ...create,
    route({
      method: 'GET',
      path: '/v1/chart/:id/download',
      auth: 'none',
      doc: {
        tags: ['Short charts'],
        operationId: 'downloadShortChart',
        summary: 'The image behind a short URL, as an attachment (download_url of the automation endpoints)',
        params: { id: chartIdParam },
      },
      responses: {
        '200': {
          description: 'The image, with Content-Disposition: attachment.',
          headers: { 'Content-Disposition': headerRef('Content-Disposition'), 'Cache-Control': headerRef('Cache-Control') },
          content: imageContent(true),
        },
        '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: shortChartHeaders },
      },
      errors: { ...notFound, '500': { description: 'A re-render after cache expiry failed.', codes: ['internal_error', 'render_failed'] } },
      handler: async (ctx) => {
        const served = await deps.automation.download(ctx.params.id!);
        const type = served.image.contentType;
        const ext = type.startsWith('image/svg') ? 'svg' : type === 'application/pdf' ? 'pdf' : 'png';
        ctx.set('Content-Disposition', `attachment; filename="chart-${ctx.params.id}.${ext}"`);
        // the same caching as GET /v1/chart/{id}: a stale image is not kept for a year
        sendServed(ctx, served, deps.fingerprint?.header());
      },
    }),
    route({
      method: 'GET',
      path: '/v1/chart/:id/preview',
      auth: 'none',
      doc: {
        tags: ['Short charts'],
        operationId: 'previewShortChart',
        summary: 'An HTML page showing the chart (preview_url of the automation endpoints)',
        params: { id: chartIdParam },
      },
      responses: { '200': htmlPage('HTML page.') },
      errors: notFound,
      handler: async (ctx) => {
        const preview = await deps.automation.preview(ctx.params.id!);
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Cache-Control', 'public, max-age=3600');
        // embeddable (a preview is meant to be shown elsewhere), but nothing else: no script, base, form
        ctx.set('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'");
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Referrer-Policy', 'no-referrer');
        ctx.body = previewPage(preview);
      },
    }),
  ];
}
