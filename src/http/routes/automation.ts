// POST /v1/zapier/{bar,line,pie,multi-series}-chart (API key; 201 with the seven fields),
// and the two pages their URLs point to: GET /v1/chart/{id}/download (the image as an
// attachment) and GET /v1/chart/{id}/preview (an HTML page showing it). No credentials on
// the pages: like GET /v1/chart/{id}, they serve a chart someone chose to share.
import type Router from '@koa/router';
import { Ajv, type ErrorObject } from 'ajv';
import type { Middleware } from 'koa';
import type { AppDeps } from '../../app.js';
import { invalidInput } from '../../errors.js';
import { apiKeyAuth } from '../auth.js';
import { rateLimit } from '../rateLimit.js';
import { automationEndpoints } from '../schemas/automation.js';
import type { ChartPreview } from '../../services/automation.js';
import { setImageHeaders } from '../imageHeaders.js';

// Form tools send "800" and "true": coerce scalar types and fill SPEC's defaults.
const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: true });

/** "/series/0/values" -> "series[0].values"; a missing property names itself. */
export function fieldOf(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1);
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  if (missing) parts.push(missing);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || 'body';
}

function validateAutomation(schema: object): Middleware {
  const { $id: _id, ...rest } = schema as { $id?: string };
  const check = ajv.compile(rest);
  return async (ctx, next) => {
    const body = (ctx.request as { body?: unknown }).body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidInput('the body must be a JSON object');
    // Defaults are written into the object validated: work on a copy.
    const input = structuredClone(body) as Record<string, unknown>;
    if (!check(input)) {
      const e = check.errors![0]!;
      const field = fieldOf(e);
      throw invalidInput(e.keyword === 'required' ? `${field} is required` : `${field} ${e.message ?? 'is invalid'}`);
    }
    ctx.state.input = input;
    await next();
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function previewPage(p: ChartPreview): string {
  const id = escapeHtml(p.id);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chart ${id} · chartshot</title>
<style>
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:16px;background:#f3f4f6;font:15px system-ui,sans-serif;color:#111827}
img{max-width:95vw;height:auto;background:#fff;box-shadow:0 1px 4px rgba(0,0,0,.15)}
a{color:#2563eb}
</style>
</head>
<body>
<img src="${escapeHtml(p.imageUrl)}" width="${p.width}" height="${p.height}" alt="Chart ${id}">
<p><a href="${escapeHtml(p.downloadUrl)}">Download ${p.format.toUpperCase()}</a> · <a href="${escapeHtml(p.imageUrl)}">Image link</a></p>
</body>
</html>
`;
}

export function automationRoutes(router: Router, deps: AppDeps): void {
  for (const ep of automationEndpoints) {
    router.post(ep.path, apiKeyAuth(deps.accounts), rateLimit(deps), validateAutomation(ep.schema), async (ctx) => {
      ctx.body = await deps.automation.create(ctx.state.auth, ep.kind, ctx.state.input);
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
    });
  }

  router.get('/v1/chart/:id/download', async (ctx) => {
    const { image } = await deps.automation.download(ctx.params.id!);
    const ext = image.contentType.startsWith('image/svg') ? 'svg' : image.contentType === 'application/pdf' ? 'pdf' : 'png';
    ctx.status = 200;
    ctx.type = image.contentType;
    ctx.set('Content-Disposition', `attachment; filename="chart-${ctx.params.id}.${ext}"`);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('ETag', image.etag);
    setImageHeaders(ctx, image.contentType);
    ctx.body = image.body;
  });

  router.get('/v1/chart/:id/preview', async (ctx) => {
    const preview = await deps.automation.preview(ctx.params.id!);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'");
    ctx.body = previewPage(preview);
  });
}
