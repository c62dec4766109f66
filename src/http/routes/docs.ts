// GET /openapi.json (the OpenAPI 3.1 document) and /docs/ (a readable page of it: Swagger UI
// from the swagger-ui-dist npm package, served from this process: no CDN, nothing external).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildOpenApi } from '../openapi.js';
import { isDocumented, route, type RouteEntry } from '../route.js';

const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  // "Try it out" shows an image response through a blob: URL of the bytes it fetched
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const INDEX = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>chartshot API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// Loads the document from this service; "Try it out" calls go to the same origin.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
    validatorUrl: null,
    // The document names PUBLIC_BASE_URL; this page may have been reached by another name
    // (127.0.0.1, a proxy's host), and its CSP lets it call only its own origin: call that.
    requestInterceptor: function (req) {
      var u = new URL(req.url, window.location.href);
      if (u.origin !== window.location.origin) req.url = window.location.origin + u.pathname + u.search;
      return req;
    },
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

export interface DocsRouteDeps {
  publicBaseUrl: string;
}

/** /openapi.json documents `routes` and itself; /docs shows it. */
export function docsRoutes(deps: DocsRouteDeps, routes: readonly RouteEntry[]): RouteEntry[] {
  const openapi = route({
    method: 'GET',
    path: '/openapi.json',
    auth: 'none',
    doc: { tags: ['Operations'], operationId: 'getOpenApi', summary: 'This document' },
    responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
    errors: {},
    handler: (ctx) => {
      ctx.type = 'application/json';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = document;
    },
  });
  // Built once: the document is a pure function of the route table and the public base URL.
  const documented = [...routes, openapi].filter(isDocumented);
  const document = JSON.stringify(buildOpenApi(deps.publicBaseUrl, documented));

  // Read at start: a missing package stops the server at once, not at the first visitor.
  const dir = swaggerUiDir();
  const file = (type: string, body: Buffer | string, cacheControl: string) => ({
    type,
    body,
    headers: { 'Content-Security-Policy': DOCS_CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': cacheControl },
  });
  const day = 'public, max-age=86400';
  return [
    openapi,
    // The router ignores a trailing slash: this serves /docs and /docs/ (assets use absolute paths).
    { path: '/docs', file: file('text/html; charset=utf-8', INDEX, 'no-cache') },
    { path: '/docs/init.js', file: file('text/javascript; charset=utf-8', INIT, 'no-cache') },
    { path: '/docs/swagger-ui.css', file: file('text/css; charset=utf-8', readFileSync(join(dir, 'swagger-ui.css')), day) },
    { path: '/docs/swagger-ui-bundle.js', file: file('text/javascript; charset=utf-8', readFileSync(join(dir, 'swagger-ui-bundle.js')), day) },
    { path: '/docs/favicon-32x32.png', file: file('image/png', readFileSync(join(dir, 'favicon-32x32.png')), day) },
  ];
}
