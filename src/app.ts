// createApp(deps): middleware order and routes. It never listens itself.
import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Store } from './store/types.js';
import type { AccountService } from './services/accounts.js';
import type { Clock } from './clock.js';
import type { ImageCache } from './services/imageCache.js';
import type { ChartService } from './services/charts.js';
import type { RenderService } from './services/render.js';
import type { ShortChartService } from './services/shortCharts.js';
import type { PagePool } from './render/pool.js';
import type { OpenChartService } from './services/open.js';
import { openRoutes } from './http/routes/open.js';
import { playgroundRoutes } from './http/routes/playground.js';
import { errorMapper, type RequestObserver } from './http/errors.js';
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
import type { BillingService } from './services/billing/index.js';
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
  app.use(errorMapper(deps.log, deps.requestObserver));
  // before auth and routing: every reader of ctx.query gets one bounded, linear parse
  app.use(queryParser());
  app.use(jsonBody(deps.config.maxBodyBytes));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
