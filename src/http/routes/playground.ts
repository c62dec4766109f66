// GET /playground: the open endpoint's editor page (static files in public/playground). The
// page is self-contained: no CDN, no external request; its CSP allows only this origin.
import type Router from '@koa/router';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppDeps } from '../../app.js';
import { notFound } from '../../errors.js';

export const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface StaticFile {
  type: string;
  body: Buffer;
}

function defaultDir(): string {
  // src/http/routes -> repository root (and dist/http/routes -> root after the build)
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'public', 'playground');
}

export function playgroundRoutes(router: Router, deps: AppDeps, dir = defaultDir()): void {
  // read once at start: a missing file stops the server at once, not at the first visitor
  const load = (name: string, type: string): StaticFile => ({ type, body: readFileSync(join(dir, name)) });
  const files: Record<string, StaticFile> = {
    '/playground': load('index.html', 'text/html; charset=utf-8'),
    '/playground/playground.js': load('playground.js', 'text/javascript; charset=utf-8'),
    '/playground/playground.css': load('playground.css', 'text/css; charset=utf-8'),
  };
  // the edit state behind a short {base}/playground?id= link (X-Edit-Url of a large config)
  router.get('/playground/config/:id', async (ctx) => {
    const state = await deps.open.editState(ctx.params.id ?? '');
    if (!state) throw notFound('no stored chart with this id (it may have expired); open the image URL in the playground instead');
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = state;
  });
  for (const [path, file] of Object.entries(files)) {
    router.get(path, (ctx) => {
      ctx.set('Content-Security-Policy', PLAYGROUND_CSP);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = file.type;
      ctx.body = file.body;
    });
  }
}
