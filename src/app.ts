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
import type { PagePool } from './render/pool.js';
import { errorMapper, type RequestObserver } from './http/errors.js';
import { jsonBody } from './http/body.js';
import { chartRoutes } from './http/routes/chart.js';

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
  requestObserver?: RequestObserver;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy, proxyIpHeader: 'X-Forwarded-For', maxIpsCount: 1 });
  app.silent = true; // errors are logged by the error mapper, once
  const router = new Router();
  chartRoutes(router, deps);
  app.use(errorMapper(deps.log, deps.requestObserver));
  app.use(jsonBody(deps.config.maxBodyBytes));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
