// GET /playground, the open endpoint's editor page (files in public/playground: no CDN, its CSP
// allows only this origin), and GET /playground/config/{id}, the config behind a ?id= link.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { notFound } from '../../errors.js';
import type { OpenChartService } from '../../services/open.js';
import { route, type RouteEntry, type StaticAsset } from '../route.js';
import { htmlPage } from '../routeDocs.js';
import { sendFile } from '../router.js';

export interface PlaygroundRouteDeps {
  open: Pick<OpenChartService, 'editState'>;
}

const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function defaultDir(): string {
  // src/http/routes -> repository root (and dist/http/routes -> root after the build)
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'public', 'playground');
}

const PAGE_HEADERS = {
  'Content-Security-Policy': PLAYGROUND_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

export function playgroundRoutes(deps: PlaygroundRouteDeps, dir = defaultDir()): RouteEntry[] {
  // read once at start: a missing file stops the server at once, not at the first visitor
  const load = (name: string, type: string): StaticAsset['file'] => ({ type, body: readFileSync(join(dir, name)), headers: PAGE_HEADERS });
  const page = load('index.html', 'text/html; charset=utf-8');
  return [
    // the edit state behind a short {base}/playground?id= link (X-Edit-Url of a large config)
    route({
      method: 'GET',
      path: '/playground/config/:id',
      auth: 'none',
      doc: {
        tags: ['Open'],
        operationId: 'playgroundConfig',
        summary: 'The config and options stored with an open-endpoint image (the playground opens a ?id= link with it)',
        params: { id: { description: 'The id of a {base}/playground?id= link (43 URL-safe characters).', schema: { type: 'string' } } },
      },
      responses: { '200': { description: 'The edit state: c (the Chart.js config) and the non-default w, h, format, bkg.', content: { 'application/json': { schema: editStateSchema } } } },
      errors: { '404': { description: 'No stored chart with this id (it may have expired).', codes: ['not_found'] } },
      handler: async (ctx) => {
        const state = await deps.open.editState(ctx.params.id ?? '');
        if (!state) throw notFound('no stored chart with this id (it may have expired); open the image URL in the playground instead');
        ctx.set('Cache-Control', 'no-cache');
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.body = state;
      },
    }),
    route({
      method: 'GET',
      path: '/playground',
      auth: 'none',
      doc: {
        tags: ['Open'],
        operationId: 'playground',
        summary: 'Editor page for open-endpoint charts (the target of X-Edit-Url)',
        pageQuery: {
          c: { description: 'Chart.js config to open.', schema: { type: 'string' } },
          id: { description: 'Opens the config stored with an image instead (see /playground/config/{id}).', schema: { type: 'string' } },
        },
      },
      responses: { '200': htmlPage('HTML page.') },
      errors: {},
      handler: (ctx) => sendFile(ctx, page),
    }),
    { path: '/playground/playground.js', file: load('playground.js', 'text/javascript; charset=utf-8') },
    { path: '/playground/playground.css', file: load('playground.css', 'text/css; charset=utf-8') },
  ];
}

const editStateSchema = {
  type: 'object',
  required: ['c'],
  properties: {
    c: { type: 'object', description: 'The Chart.js config the image shows.' },
    w: { type: 'integer' },
    h: { type: 'integer' },
    format: { type: 'string' },
    bkg: { type: 'string' },
  },
};
