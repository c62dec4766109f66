// GET / (a small front page: what this is, its status, links, the quick start with this
// server's own base URL) and GET /favicon.ico. Files in public/home; no CDN, no script.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';
import type { StatusService } from '../../services/status.js';
import { route, type RouteEntry } from '../route.js';
import { htmlPage } from '../routeDocs.js';
import { escapeHtml } from '../../escapeHtml.js';

export interface HomeRouteDeps {
  status: Pick<StatusService, 'report'>;
  /** PUBLIC_BASE_URL: used when the request's own host cannot be trusted to be a host name. */
  publicBaseUrl: string;
}

const HOME_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A host[:port] as a Host header may carry it, nothing else (the value is echoed in the page). */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The base URL the visitor reached this server by: Host and protocol (X-Forwarded-* only with TRUST_PROXY). */
export function requestBaseUrl(ctx: Context, fallback: string): string {
  const host = ctx.host;
  const proto = ctx.protocol === 'https' ? 'https' : 'http';
  return host && host.length <= 300 && HOST.test(host) ? `${proto}://${host}` : fallback;
}

const EXAMPLE = '/v1/open/chart?type=bar&data=12,19,3,5&labels=Q1,Q2,Q3,Q4&w=360&h=180';
const BODY = '{"chart":{"type":"bar","data":{"labels":["Q1","Q2","Q3","Q4"],"datasets":[{"label":"Revenue","data":[12,19,3,5]}]}},"width":600,"height":300}';

function page(base: string, status: { status: string; reason?: string; buildHash: string }): string {
  const b = escapeHtml(base);
  const reason = status.reason ? ` (${escapeHtml(status.reason)})` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>chartshot</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/playground/playground.css">
<link rel="stylesheet" href="/home.css">
</head>
<body>
<header>
<h1>chartshot <span>Chart.js charts as images</span></h1>
<p>Send a Chart.js 4 config, get back a PNG or SVG drawn by real Chromium.</p>
</header>
<main class="home">
<section aria-label="Status">
<h2>Status</h2>
<p>This server is <span class="state ${status.status === 'healthy' ? 'healthy' : 'degraded'}">${escapeHtml(status.status)}</span>${reason} · build <code>${escapeHtml(status.buildHash)}</code> · <a href="/v1/status">/v1/status</a></p>
</section>
<section aria-label="Links">
<h2>Start here</h2>
<ul class="links">
<li><a href="/playground">Playground</a> <small>edit a config, see the image</small></li>
<li><a href="/docs">API docs</a> <small>try every endpoint</small></li>
<li><a href="/openapi.json">OpenAPI 3.1</a> <small>for clients and generators</small></li>
</ul>
</section>
<section aria-label="Quick start">
<h2>Quick start</h2>
<p>No key needed for the open endpoint (rate limited per address, watermarked):</p>
<div class="example">
<img src="${escapeHtml(EXAMPLE)}" width="360" height="180" alt="A bar chart drawn by this server">
<pre class="code">curl -o chart.png '${b}${escapeHtml(EXAMPLE)}'</pre>
</div>
<p>With an API key: create an account on the server's machine (same <code>DATA_DIR</code> or <code>DATABASE_URL</code> as the server), keep its whole output, then render:</p>
<pre class="code">node dist/cli.js accounts create --plan starter --json &gt; account.json
API_KEY=$(node -p 'require("./account.json").api_key')

curl -X POST '${b}/v1/chart' \\
  -H "X-Api-Key: $API_KEY" -H 'Content-Type: application/json' \\
  -d '${escapeHtml(BODY)}' \\
  -o revenue.png</pre>
</section>
</main>
</body>
</html>
`;
}

function defaultDir(): string {
  // src/http/routes -> repository root (and dist/http/routes -> root after the build)
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'public', 'home');
}

export function homeRoutes(deps: HomeRouteDeps, dir = defaultDir()): RouteEntry[] {
  // read once at start: a missing file stops the server at once, not at the first visitor
  const css = readFileSync(join(dir, 'home.css'));
  const icon = readFileSync(join(dir, 'favicon.ico'));
  return [
    route({
      method: 'GET',
      path: '/',
      auth: 'none',
      doc: { tags: ['Operations'], operationId: 'home', summary: 'Front page: status, links and the quick start with this server\'s base URL' },
      responses: { '200': htmlPage('HTML page.') },
      errors: {},
      handler: async (ctx) => {
        const status = await deps.status.report();
        ctx.set('Content-Security-Policy', HOME_CSP);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Referrer-Policy', 'no-referrer');
        // the page shows the live status and echoes the Host it was reached by: never cached
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page(requestBaseUrl(ctx, deps.publicBaseUrl), status);
      },
    }),
    { path: '/home.css', file: { type: 'text/css; charset=utf-8', body: css, headers: { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' } } },
    {
      path: '/favicon.ico',
      file: { type: 'image/x-icon', body: icon, headers: { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=31536000' } },
    },
  ];
}
