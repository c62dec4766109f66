// GET /openapi.json (the OpenAPI 3.1 document) and /docs/ (a readable page of it: Swagger UI
// from the swagger-ui-dist npm package, served from this process: no CDN, nothing external).
import type Router from '@koa/router';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AppDeps } from '../../app.js';
import { buildOpenApi } from '../openapi.js';

interface StaticFile {
  type: string;
  body: Buffer | string;
}

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
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
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

export function docsRoutes(router: Router, deps: Pick<AppDeps, 'config'>): void {
  // Built once: the document is a pure function of the schemas and the public base URL.
  const document = JSON.stringify(buildOpenApi(deps.config.publicBaseUrl));
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = document;
  });

  // Read at start: a missing package stops the server at once, not at the first visitor.
  const dir = swaggerUiDir();
  const files: Record<string, StaticFile> = {
    // The router ignores a trailing slash: this serves /docs and /docs/ (assets use absolute paths).
    '/docs': { type: 'text/html; charset=utf-8', body: INDEX },
    '/docs/init.js': { type: 'text/javascript; charset=utf-8', body: INIT },
    '/docs/swagger-ui.css': { type: 'text/css; charset=utf-8', body: readFileSync(join(dir, 'swagger-ui.css')) },
    '/docs/swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(join(dir, 'swagger-ui-bundle.js')) },
    '/docs/favicon-32x32.png': { type: 'image/png', body: readFileSync(join(dir, 'favicon-32x32.png')) },
  };
  for (const [path, file] of Object.entries(files)) {
    router.get(path, (ctx) => {
      ctx.set('Content-Security-Policy', DOCS_CSP);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', path === '/docs' || path === '/docs/init.js' ? 'no-cache' : 'public, max-age=86400');
      ctx.type = file.type;
      ctx.body = file.body;
    });
  }
}
