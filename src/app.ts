// createApp(deps): middleware order and routes. It never listens itself.
import Koa, { type Middleware } from 'koa';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { AccountService } from './services/accounts.js';
import type { KeyUse } from './services/dashboard/keyUse.js';
import type { UsageService } from './services/usage.js';
import type { Clock } from './clock.js';
import { errorMapper, jsonError } from './http/errors.js';
import type { RequestObserver } from './http/requestMetrics.js';
import { envelope } from './http/envelope.js';
import { BodyReader } from './http/body.js';
import { BodyBudget } from './http/bodyBudget.js';
import { apiKeyAuth, sessionAuth } from './http/auth.js';
import { rateLimit } from './http/rateLimit.js';
import { metricsTokenAuth } from './http/metricsAuth.js';
import { buildRouter, errorFormatOf, type Guards } from './http/router.js';
import type { RendererFingerprint } from './render/fingerprint.js';
import type { ErrorImageService } from './services/errorImages.js';
import type { RouteEntry } from './http/route.js';
import { chartRoutes, type ChartRouteDeps } from './http/routes/chart.js';
import { openRoutes, type OpenRouteDeps } from './http/routes/open.js';
import { playgroundRoutes, type PlaygroundRouteDeps } from './http/routes/playground.js';
import { shortChartRoutes, type ShortChartRouteDeps } from './http/routes/shortCharts.js';
import { statusRoutes, type StatusRouteDeps } from './http/routes/status.js';
import { automationRoutes, type AutomationRouteDeps } from './http/routes/automation.js';
import { docsRoutes } from './http/routes/docs.js';
import { accountRoutes, type AccountRouteDeps } from './http/routes/account.js';
import { quickChartRoutes, type QuickChartRouteDeps } from './http/routes/quickchart.js';
import { quickChartErrorWriter } from './http/quickchartErrors.js';
import { quickChartAuth } from './http/quickchartAuth.js';
import { homeRoutes } from './http/routes/home.js';
import { galleryRoutes, type GalleryRouteDeps } from './http/routes/gallery.js';
import { dashboardRoutes, type DashboardRouteDeps } from './http/dashboard/routes.js';
import { dashboardSessionAuth } from './http/dashboard/auth.js';
import { openPage } from './http/dashboard/pageTools.js';
import { mcpRoutes, type McpRouteDeps } from './http/routes/mcp.js';
import { tracedGuards } from './http/tracing.js';
import { tracingOn } from './tracing.js';

/** What the HTTP layer calls: each route module's own deps, plus auth and rate limits. */
export type AppDeps = ChartRouteDeps &
  OpenRouteDeps &
  PlaygroundRouteDeps &
  ShortChartRouteDeps &
  McpRouteDeps &
  StatusRouteDeps &
  AutomationRouteDeps &
  AccountRouteDeps &
  Omit<QuickChartRouteDeps, 'config'> &
  ErrorImageDeps &
  Omit<DashboardRouteDeps, 'bodies'> &
  GalleryRouteDeps & {
    config: Config;
    log: Logger;
    accounts: AccountService;
    usage: UsageService;
    /** Signed URLs' expiry is judged by it. */
    clock: Clock;
    requestObserver?: RequestObserver;
    /** What draws the images: X-Chartshot-Renderer on every image response. */
    fingerprint?: Pick<RendererFingerprint, 'header'>;
    /** Notes when each key was last used (the dashboard's keys page). */
    keyUse?: Pick<KeyUse, 'seen'>;
    /** The process's budget of body bytes in flight (MAX_BODY_BYTES_IN_FLIGHT); one of its own when absent. */
    bodyBudget?: BodyBudget;
  };

/** What draws the QuickChart routes' error images. */
interface ErrorImageDeps {
  errorImages: ErrorImageService;
}

/** Every route, in registration order; /openapi.json documents them all but the dashboard's pages. */
export function routeTable(deps: AppDeps, bodies: BodyReader = bodyReaderOf(deps)): RouteEntry[] {
  const account = accountRoutes(deps);
  const before = [
    ...homeRoutes({ status: deps.status, publicBaseUrl: deps.config.publicBaseUrl }),
    ...galleryRoutes(deps),
    ...chartRoutes(deps),
    ...openRoutes(deps),
    ...playgroundRoutes(deps),
    ...shortChartRoutes(deps),
    ...statusRoutes(deps),
    ...automationRoutes(deps),
    ...quickChartRoutes(deps),
    ...mcpRoutes(deps),
  ];
  return [...before, ...docsRoutes({ publicBaseUrl: deps.config.publicBaseUrl }, [...before, ...account]), ...account, ...dashboardRoutes({ ...deps, bodies })];
}

/** After a key authenticated, notes its use (never waits for the store). */
function noteKeyUse(auth: Middleware, keyUse: AppDeps['keyUse']): Middleware {
  if (!keyUse) return auth;
  return (ctx, next) =>
    auth(ctx, () => {
      const a = ctx.state.auth;
      if (a) keyUse.seen(a.key.id, a.account.id);
      return next();
    });
}

/** The process's body reader, with its limits from the config (one per app). */
function bodyReaderOf(deps: AppDeps): BodyReader {
  return new BodyReader({
    maxBytes: deps.config.maxBodyBytes,
    readTimeoutMs: deps.config.bodyReadTimeoutMs,
    budget: deps.bodyBudget ?? new BodyBudget(deps.config.maxBodyBytesInFlight),
  });
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy, proxyIpHeader: 'X-Forwarded-For', maxIpsCount: 1 });
  app.silent = true; // errors are logged by the error mapper, once
  const bodies = bodyReaderOf(deps);
  const table = routeTable(deps, bodies);
  const guards: Guards = {
    page: openPage,
    body: bodies,
    auth: {
      apiKey: noteKeyUse(apiKeyAuth(deps.accounts), deps.keyUse),
      apiKeyOrSigned: noteKeyUse(apiKeyAuth(deps.accounts, { allowSigned: true, clock: deps.clock }), deps.keyUse),
      session: sessionAuth(deps.accounts),
      metricsToken: metricsTokenAuth(deps.config.metricsToken),
      quickchartKey: quickChartAuth(deps, bodies, false),
      quickchartKeyOptional: quickChartAuth(deps, bodies, true),
      dashboardSession: dashboardSessionAuth(deps.dashboardSessions),
    },
    rateLimit: { generation: rateLimit(deps), render: rateLimit(deps, { decideWhileRendering: true }), request: rateLimit(deps, { generation: false }) },
  };
  // auth and rate limits as spans of their own only while tracing is on: off, nothing wraps them
  const tracing = tracingOn();
  const { router, routes } = buildRouter(table, tracing ? tracedGuards(guards) : guards);
  // Outside every route, in one frame (envelope.ts): id, access log, metrics, timing, the
  // lingering close, the one error mapper (each route's errors in the format it declares),
  // no route, request analytics, the query parse; then the route -> auth -> rate limit -> body
  // chain of the request's route (router.ts)
  app.use(
    envelope({
      log: deps.log,
      observer: deps.requestObserver,
      usage: deps.usage,
      answerError: errorMapper(deps.log, { formatOf: errorFormatOf(router, table), writers: { json: jsonError, quickchart: quickChartErrorWriter(deps) } }),
      traceRoute: tracing,
    }),
  );
  app.use(routes);
  return app;
}
