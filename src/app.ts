// createApp(deps): middleware order and routes. It never listens itself.
import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Store } from './store/types.js';
import type { AccountService, Clock } from './services/accounts.js';
import type { ImageCache } from './services/imageCache.js';
import type { ChartService } from './services/charts.js';
import type { RenderService } from './services/render.js';
import type { ShortChartService } from './services/shortCharts.js';
import type { PagePool } from './render/pool.js';
import type { OpenChartService } from './services/open.js';
import { openRoutes } from './http/routes/open.js';
import { playgroundRoutes } from './http/routes/playground.js';
import { errorMapper } from './http/errors.js';
import { requestId } from './http/requestId.js';
import { accessLog } from './http/accessLog.js';
import { requestMetrics, type RequestObserver } from './http/requestMetrics.js';
import { timing } from './http/timing.js';
import { noRoute } from './http/noRoute.js';
import { requestAnalytics } from './http/requestAnalytics.js';
import { jsonBody } from './http/body.js';
import { queryParser } from './http/query.js';
import { chartRoutes } from './http/routes/chart.js';
import { shortChartRoutes } from './http/routes/shortCharts.js';
import { statusRoutes } from './http/routes/status.js';
import { automationRoutes } from './http/routes/automation.js';
import { docsRoutes } from './http/routes/docs.js';
import type { AutomationService } from './services/automation.js';
import type { StatusService } from './services/status.js';
import type { Metrics } from './services/metrics.js';
import type { UsageService } from './services/usage.js';
import type { BillingService } from './services/billing.js';
import type { TrialService } from './services/trials.js';
import type { OutboxWorker } from './services/outbox.js';
import { accountRoutes } from './http/routes/account.js';

export interface AppDeps {
  config: Config;
  log: Logger;
  store: Store;
  pool: PagePool;
  clock: Clock;
  accounts: AccountService;
  renderer: RenderService;
  imageCache: ImageCache;
  charts: ChartService;
  open: OpenChartService;
  shortCharts: ShortChartService;
  requestObserver?: RequestObserver;
  status: StatusService;
  metrics: Metrics;
  automation: AutomationService;
  usage: UsageService;
  billing: BillingService;
  trials: TrialService;
  outbox: OutboxWorker;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy, proxyIpHeader: 'X-Forwarded-For', maxIpsCount: 1 });
  app.silent = true; // errors are logged by the error mapper, once
  const router = new Router();
  chartRoutes(router, deps);
  openRoutes(router, deps);
  playgroundRoutes(router, deps);
  shortChartRoutes(router, deps);
  statusRoutes(router, deps);
  automationRoutes(router, deps);
  docsRoutes(router, deps);
  accountRoutes(router, deps);
  // Outermost first: the id, log line and metrics see the final status of every answer,
  // errors mapped included; timing covers everything inside them.
  app.use(requestId());
  app.use(accessLog(deps.log));
  app.use(requestMetrics(deps.requestObserver));
  app.use(timing());
  app.use(errorMapper(deps.log));
  app.use(noRoute());
  app.use(requestAnalytics(deps.usage, deps.log));
  // before auth and routing: every reader of ctx.query gets one bounded, linear parse
  app.use(queryParser());
  app.use(jsonBody(deps.config.maxBodyBytes));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
