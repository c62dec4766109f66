// GET /gallery (every chart type and plugin each Chart.js version draws, each image beside its
// config) and GET /gallery/{id}.png (the image, drawn by this server once per process:
// services/gallery.ts). Static HTML in the front page's style; no script.
import type { Context } from 'koa';
import type { GalleryService } from '../../services/gallery.js';
import { GALLERY, GALLERY_HEIGHT, GALLERY_WIDTH, type GalleryExample } from '../../chart/gallery.js';
import { escapeHtml } from '../../escapeHtml.js';
import { notFound } from '../../errors.js';
import { route, type RouteEntry } from '../route.js';
import { htmlPage, imageContent } from '../routeDocs.js';
import { setImageHeaders } from '../imageHeaders.js';

export interface GalleryRouteDeps {
  gallery: Pick<GalleryService, 'image'>;
}

const GALLERY_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');

function card(ex: GalleryExample): string {
  return `<figure class="example" id="${escapeHtml(ex.id)}">
<img src="/gallery/${escapeHtml(ex.id)}.png" width="${GALLERY_WIDTH}" height="${GALLERY_HEIGHT}" loading="lazy" alt="${escapeHtml(ex.title)}, drawn by this server">
<figcaption><strong>${escapeHtml(ex.title)}</strong>
<pre class="code">${escapeHtml(JSON.stringify(ex.config, null, 1))}</pre></figcaption>
</figure>`;
}

/** Built once: the page depends on nothing but the example list. */
function page(): string {
  const sections = ([4, 3, 2] as const).map((v) => {
    const list = GALLERY.filter((e) => e.chartjs === v);
    const how = v === 4 ? 'POST /v1/chart with the config as <code>chart</code>' : `GET/POST /chart with <code>v=${v}</code>`;
    return `<section aria-label="Chart.js ${v}">
<h2>Chart.js ${v} <small>${list.length} examples · ${how}</small></h2>
${list.map(card).join('\n')}
</section>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>chartshot gallery</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/playground/playground.css">
<link rel="stylesheet" href="/home.css">
</head>
<body>
<header>
<h1>chartshot <span>gallery</span></h1>
<p>Every chart type and plugin, per Chart.js version: each image drawn by this server from the config beside it. <a href="/">Home</a> · <a href="/playground">Playground</a></p>
</header>
<main class="home gallery">
${sections.join('\n')}
</main>
</body>
</html>
`;
}

function sendHtml(ctx: Context, html: string): void {
  ctx.set('Content-Security-Policy', GALLERY_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

export function galleryRoutes(deps: GalleryRouteDeps): RouteEntry[] {
  const html = page();
  return [
    route({
      method: 'GET',
      path: '/gallery',
      auth: 'none',
      doc: { tags: ['Operations'], operationId: 'gallery', summary: 'Every chart type and plugin per Chart.js version, each image beside its config' },
      responses: { '200': htmlPage('HTML page.') },
      errors: {},
      handler: async (ctx) => sendHtml(ctx, html),
    }),
    route({
      method: 'GET',
      path: '/gallery/:image',
      auth: 'none',
      doc: {
        tags: ['Operations'],
        operationId: 'galleryImage',
        summary: 'One gallery image ({id}.png), drawn once per process',
        params: { image: { description: 'An example id and .png, as /gallery links them.', schema: { type: 'string' } } },
      },
      responses: { '200': { description: 'The image.', content: imageContent() } },
      errors: {
        '404': { description: 'No such example.', codes: ['not_found'] },
        '500': { description: 'The render failed.', codes: ['internal_error', 'render_failed'] },
        '503': { description: 'Every renderer is busy.', codes: ['service_unavailable'] },
      },
      handler: async (ctx) => {
        const name = ctx.params.image ?? '';
        const pending = name.endsWith('.png') ? deps.gallery.image(name.slice(0, -4)) : null;
        if (!pending) throw notFound('no such gallery image');
        const img = await pending;
        ctx.status = 200;
        ctx.type = img.contentType;
        // nosniff, and X-Chartshot-Renderer of the Chart.js version that drew it, as every image response
        setImageHeaders(ctx, img.contentType, img.renderer);
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = img.body;
      },
    }),
  ];
}
