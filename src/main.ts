// Composition root: config -> store -> browser pool -> services -> app -> listen; signals.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { createSqliteStore } from './store/sqlite/index.js';
import { loadMasterKey } from './store/masterKey.js';
import { PagePool } from './render/pool.js';
import { AccountService, systemClock, type Clock } from './services/accounts.js';
import { RenderService } from './services/render.js';
import { ChartService } from './services/charts.js';
import { ImageCache } from './services/imageCache.js';
import { createApp, type AppDeps } from './app.js';

export interface Running {
  url: string;
  server: Server;
  deps: AppDeps;
  close(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  clock?: Clock;
}

/** The engine without HTTP: store, pool and services (CLI render uses the pool alone). */
export async function startPool(config: Config, log: Logger): Promise<PagePool> {
  const pool = new PagePool(
    {
      chromiumPath: config.chromiumPath,
      size: config.poolSize,
      renderTimeoutMs: config.renderTimeoutMs,
      acquireTimeoutMs: config.acquireTimeoutMs,
      maxQueue: config.maxQueue,
      pageMaxRenders: config.pageMaxRenders,
    },
    log,
  );
  await pool.start();
  return pool;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<Running> {
  const log = opts.log ?? createLogger(config.logLevel);
  const store = createSqliteStore(config.dataDir);
  let pool: PagePool | undefined;
  try {
    const masterKey = loadMasterKey(config.dataDir);
    pool = await startPool(config, log);
    const clock = opts.clock ?? systemClock;
    const accounts = new AccountService(store, masterKey, clock);
    const renderer = new RenderService(pool);
    const imageCache = new ImageCache(store.images, config.memoryCacheBytes, clock);
    const charts = new ChartService(renderer);
    const deps: AppDeps = { config, log, store, pool, clock, accounts, renderer, imageCache, charts };
    const app = createApp(deps);
    const server = createServer(app.callback());
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.requestTimeout = Math.max(30_000, config.renderTimeoutMs * 3);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const addr = server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${addr.port}`;
    log.info({ url, poolSize: config.poolSize, dataDir: config.dataDir }, 'chartshot listening');
    let closing: Promise<void> | null = null;
    const p = pool;
    return {
      url,
      server,
      deps,
      close() {
        closing ??= (async () => {
          // Stop accepting, let in-flight requests finish (bounded), then pool and store.
          const drained = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          const t = setTimeout(() => server.closeAllConnections(), Math.max(5000, config.renderTimeoutMs));
          await drained;
          clearTimeout(t);
          await p.close();
          await store.close();
          log.info('chartshot stopped');
          log.flush?.();
        })();
        return closing;
      },
    };
  } catch (err) {
    await pool?.close();
    await store.close();
    throw err;
  }
}
