// The short path of cache hits, in front of Koa: GET /v1/chart/{id} and GET /v1/open/chart
// answered from the memory tier (synchronously) or, when memory holds nothing for them, from the
// shared tier (one Redis read), with the same status, headers and body as their routes, plus
// the same request log line and metrics. Anything else, or any doubt (a query string on a
// chart id, HEAD, a cold tier, a chart not seen in the store lately, an open request target
// never answered before), goes to Koa unchanged: only a hit the full path would serve from
// those tiers is answered here, and Koa's middleware would add nothing to it but cost.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Logger } from '../log.js';
import type { ShortChartService } from '../services/shortCharts.js';
import type { OpenChartService, OpenImage } from '../services/open.js';
import type { StoredImage } from '../store/types.js';
import type { RequestObserver } from './requestMetrics.js';
import { logRequest } from './accessLog.js';
import { SVG_CSP, etagMatches } from './imageHeaders.js';
import { FINGERPRINT_HEADER } from '../render/fingerprint.js';
import { IMMUTABLE } from './routes/shortCharts.js';
import { OPEN_CACHE_CONTROL } from './routes/open.js';
import { isChartId } from '../chart/chartId.js';

export interface FastPathDeps {
  shortCharts: Pick<ShortChartService, 'serveFromMemory'> & Partial<Pick<ShortChartService, 'serveFromShared'>>;
  open: Pick<OpenChartService, 'serveFromMemory'> & Partial<Pick<OpenChartService, 'serveFromShared'>>;
  log: Logger;
  requestObserver?: RequestObserver;
  /** TRUST_PROXY: the logged client address is the right-most X-Forwarded-For entry, as Koa's ctx.ip. */
  trustProxy: boolean;
  /** X-Chartshot-Renderer of stored images that did not record what drew them, as the routes set it. */
  renderer?: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const CHART_PREFIX = '/v1/chart/';
const OPEN_PREFIX = '/v1/open/chart?';

/** Wraps Koa's request handler: cache hits are answered here, everything else by `app`. */
export function withFastPath(deps: FastPathDeps, app: Handler): Handler {
  return (req, res) => {
    if (req.method === 'GET') {
      const started = performance.now();
      let answered = false;
      let shared: Promise<boolean> | null = null;
      try {
        answered = tryServe(deps, req, res, started);
        if (!answered) shared = tryServeShared(deps, req, res, started);
      } catch (err) {
        // never expected; Koa answers the request properly instead (nothing was written yet)
        deps.log.error({ err }, 'cache-hit short path failed');
        answered = res.headersSent;
      }
      if (answered) return;
      if (shared) {
        shared.then(
          (done) => done || app(req, res),
          (err: unknown) => {
            deps.log.error({ err }, 'cache-hit short path failed');
            if (!res.headersSent) app(req, res);
          },
        );
        return;
      }
    }
    app(req, res);
  };
}

/** The chart id of a short-chart GET the short path may answer, or null. */
function chartIdOf(url: string): string | null {
  if (!url.startsWith(CHART_PREFIX)) return null;
  // no query string: Koa would first check it (at most 100 parameters)
  const id = url.slice(CHART_PREFIX.length);
  return isChartId(id) ? id : null;
}

function tryServe(deps: FastPathDeps, req: IncomingMessage, res: ServerResponse, started: number): boolean {
  const url = req.url ?? '';
  const id = chartIdOf(url);
  if (id !== null) {
    const image = deps.shortCharts.serveFromMemory(id);
    if (!image) return false;
    sendChart(deps, req, res, image, started);
    return true;
  }
  if (url.startsWith(OPEN_PREFIX)) {
    const img = deps.open.serveFromMemory(url);
    if (!img) return false;
    sendOpen(deps, req, res, img, started);
    return true;
  }
  return false;
}

/** tryServe() from the shared tier; null when there is nothing to ask (no shared tier, not a cacheable target). */
function tryServeShared(deps: FastPathDeps, req: IncomingMessage, res: ServerResponse, started: number): Promise<boolean> | null {
  const url = req.url ?? '';
  const id = chartIdOf(url);
  if (id !== null) {
    return deps.shortCharts.serveFromShared?.(id)?.then((image) => {
      if (!image) return false;
      sendChart(deps, req, res, image, started);
      return true;
    }) ?? null;
  }
  if (url.startsWith(OPEN_PREFIX)) {
    return deps.open.serveFromShared?.(url)?.then((img) => {
      if (!img) return false;
      sendOpen(deps, req, res, img, started);
      return true;
    }) ?? null;
  }
  return null;
}

function sendChart(deps: FastPathDeps, req: IncomingMessage, res: ServerResponse, image: StoredImage, started: number): void {
  const headers: OutgoingHttpHeaders = { 'X-Request-Id': '', ETag: image.etag, 'Cache-Control': IMMUTABLE, 'X-Cache-Tier': 'edge' };
  const status = etagMatches(header(req, 'if-none-match'), image.etag) ? 304 : 200;
  send(deps, req, res, '/v1/chart/:id', status, headers, image, started);
}

function sendOpen(deps: FastPathDeps, req: IncomingMessage, res: ServerResponse, img: OpenImage, started: number): void {
  const headers: OutgoingHttpHeaders = {
    'X-Request-Id': '',
    'Cache-Control': OPEN_CACHE_CONTROL,
    ETag: img.etag,
    'X-Cache-Tier': img.tier,
    'X-Edit-Url': img.editUrl,
    Link: `<${img.editUrl}>; rel="edit"`,
  };
  const status = etagMatches(header(req, 'if-none-match'), img.etag) ? 304 : 200;
  send(deps, req, res, '/v1/open/chart', status, headers, img, started);
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return typeof v === 'string' ? v : '';
}

/** The image response as the routes write it (setImageHeaders, then 304 or the body), the log line and the metrics as the error mapper writes them. */
function send(
  deps: FastPathDeps,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  status: number,
  headers: OutgoingHttpHeaders,
  image: Pick<StoredImage, 'body' | 'contentType' | 'renderer'>,
  started: number,
): void {
  const requestId = randomUUID();
  headers['X-Request-Id'] = requestId;
  headers['X-Content-Type-Options'] = 'nosniff';
  if (image.contentType.startsWith('image/svg')) headers['Content-Security-Policy'] = SVG_CSP;
  // what drew it, as stored with it; else this instance's Chart.js 4 (images stored before that was recorded)
  const renderer = image.renderer ?? deps.renderer;
  if (renderer) headers[FINGERPRINT_HEADER] = renderer;
  if (status === 200) {
    headers['Content-Type'] = image.contentType;
    headers['Content-Length'] = image.body.length;
    res.writeHead(200, headers);
    res.end(image.body);
  } else {
    res.writeHead(status, headers);
    res.end();
  }
  const ms = performance.now() - started;
  deps.requestObserver?.requestDone(route, 'GET', status, ms);
  if (deps.log.isLevelEnabled('info')) logRequest(deps.log, { requestId, method: 'GET', url: req.url ?? '', status, ms, ip: clientIp(req, deps.trustProxy) });
}

/** Koa's ctx.ip with proxyIpHeader X-Forwarded-For and maxIpsCount 1. */
function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = header(req, 'x-forwarded-for');
    if (xff) {
      const last = xff.split(/\s*,\s*/).pop();
      if (last) return last;
    }
  }
  return req.socket.remoteAddress ?? '';
}
