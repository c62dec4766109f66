// Composition root: config -> store -> browser pool -> services -> app -> listen; signals.
import { PageBudget } from './services/pageBudget.js';
import { BodyBudget } from './http/bodyBudget.js';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { describeStore, masterKeyOf, openStore } from './store/open.js';
import { startTracing } from './tracing.js';
import { openRedis } from './store/redis/index.js';
import { logStoreFailure } from './store/reachability.js';
import type { SharedFlights } from './store/redis/flights.js';
import { startPool, type Renderer } from './render/renderer.js';
import { PdfConverter } from './render/pdf.js';
import type { RendererFingerprint } from './render/fingerprint.js';
import { AccountService } from './services/accounts.js';
import { SignedImageCache } from './services/signedCache.js';
import { systemClock, type Clock } from './clock.js';
import { RenderService } from './services/render.js';
import { GalleryService } from './services/gallery.js';
import { deadlinesFor } from './render/budgets.js';
import { ChartService } from './services/charts.js';
import { ImageCache } from './services/imageCache.js';
import { OpenChartService } from './services/open.js';
import { ShortChartService } from './services/shortCharts.js';
import { ChartMetricsRecorder } from './services/chartMetrics.js';
import { Metrics } from './services/metrics.js';
import { StatusService } from './services/status.js';
import { AutomationService } from './services/automation.js';
import { BillingService } from './services/billing/index.js';
import { UsageService } from './services/usage.js';
import { TrialService } from './services/trials.js';
import { OutboxWorker, type OutboxOptions } from './services/outbox.js';
import { createApp } from './app.js';
import { DashboardService } from './services/dashboard/index.js';
import { DashboardSessions } from './services/dashboard/sessions.js';
import { GoogleSignIn } from './services/dashboard/google.js';
import { KeyUse } from './services/dashboard/keyUse.js';
import type { Store } from './store/types.js';
import type { RequestObserver } from './http/requestMetrics.js';
import { withFastPath } from './http/fastPath.js';
import { addressHash } from './services/credentials.js';
import type { OpenRenderWindows } from './store/types.js';
import { RemoteImages, type RemoteImagesOptions } from './services/remoteImages.js';
import { QuickChartService } from './services/quickchart.js';
import { ConfigTextParser } from './services/configTextParser.js';
import { QrService } from './services/qr.js';
import { ErrorImageService } from './services/errorImages.js';
import { Lifecycle } from './services/lifecycle.js';
import { PressureService } from './services/pressure.js';
import { trackConnections, withDrain } from './http/drain.js';
import { heapStatus } from './heapLimit.js';

/** The open endpoint's windows, stored under a keyed hash of the client, never its address. */
function keyedWindows(windows: OpenRenderWindows, masterKey: Buffer): OpenRenderWindows {
  return {
    take: (client, now, windowMs, limit) => windows.take(addressHash(masterKey, 'open-client', client), now, windowMs, limit),
    purge: (before) => windows.purge(before),
  };
}

/** Google sign-in is offered when both the client id and its secret are set. */
const googleConfigured = (c: Config): boolean => c.googleClientId !== null && c.googleClientSecret !== null;

/** Everything the composition root built; createApp takes the part the HTTP layer calls. */
export interface Services {
  config: Config;
  log: Logger;
  store: Store;
  pool: Renderer;
  clock: Clock;
  accounts: AccountService;
  renderer: RenderService;
  gallery: GalleryService;
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
  quickchart: QuickChartService;
  /** Large JSON5 config texts of key holders, parsed in worker threads. */
  configParser: ConfigTextParser;
  /** PDFs made from rendered PNGs, in a worker thread. */
  pdf: PdfConverter;
  /** Signed GET /v1/chart URLs' images, served again for a short while. */
  signedCache: SignedImageCache;
  qr: QrService;
  errorImages: ErrorImageService;
  fingerprint: RendererFingerprint;
  dashboard: DashboardService;
  dashboardSessions: DashboardSessions;
  googleSignIn: GoogleSignIn | null;
  keyUse: KeyUse;
  /** Request body bytes being received at once (MAX_BODY_BYTES_IN_FLIGHT), and how many were read. */
  bodyBudget: BodyBudget;
  /** Renders shared across instances through Redis (absent without REDIS_URL). */
  sharedFlights?: SharedFlights;
  /** Serving, draining or refusing (SIGTERM): what readiness and the drain go by. */
  lifecycle: Lifecycle;
  /** GET /v1/pressure's report. */
  pressure: PressureService;
}

export interface Running {
  url: string;
  server: Server;
  deps: Services;
  /**
   * Drains, then stops: not ready at once (GET /v1/pressure 503); new requests still answered
   * for `graceMs` (default 0); then new ones get 503 with Retry-After while those already
   * connected, in flight or queued are answered; then the pool and the store close. Within
   * drainBoundMs(config, graceMs) the connections left are closed whatever they were doing.
   */
  close(opts?: { graceMs?: number }): Promise<void>;
}

/**
 * How long a drain may take in all: the grace, then the longest a request already held can
 * still take (its body arriving, a wait for a page, a render), plus room to close the pool and
 * the store. A deployment's termination grace (Kubernetes' terminationGracePeriodSeconds) must
 * be at least this.
 */
export function drainBoundMs(config: Pick<Config, 'bodyReadTimeoutMs' | 'acquireTimeoutMs' | 'renderTimeoutMs'>, graceMs: number): number {
  return graceMs + Math.max(5000, config.bodyReadTimeoutMs + config.acquireTimeoutMs + config.renderTimeoutMs) + 5000;
}

export interface StartOptions {
  log?: Logger;
  clock?: Clock;
  /** Billing scheduler period, ms (default hourly); 0 = not started (tests call runScheduler). */
  schedulerIntervalMs?: number;
  /** Outbox delivery tuning (tests: short retries; pollMs 0 = not started, tests call tick()). */
  outbox?: Partial<Omit<OutboxOptions, 'masterKey' | 'smtpUrl'>>;
  /** Remote image tuning (tests: loopback allowed, small bounds); never read from the environment. */
  remoteImages?: Partial<Omit<RemoteImagesOptions, 'allow'>>;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<Running> {
  const log = opts.log ?? createLogger(config.logLevel, undefined, config.logFormat);
  // OTEL_EXPORTER_OTLP_ENDPOINT: traces; unset, nothing of OpenTelemetry is loaded
  const tracing = await startTracing(config, log);
  const base = await openStore(config, log);
  // REDIS_URL: limits, windows and trial claims move to Redis, plus the shared tiers
  const redis = await openRedis(config, base, log);
  const untraced = redis?.store ?? base;
  const store = tracing ? tracing.traceStore(untraced) : untraced;
  let pool: Renderer | undefined;
  let configParser: ConfigTextParser | undefined;
  let pdfConverter: PdfConverter | undefined;
  try {
    const masterKey = masterKeyOf(config);
    pool = await startPool(config, log);
    const clock = opts.clock ?? systemClock;
    const accounts = new AccountService(store, masterKey, clock);
    const livePool = pool;
    const lifecycle = new Lifecycle(clock);
    const reachability = store.reachability?.bind(store);
    const pressure = new PressureService(livePool, lifecycle, { maxQueue: config.maxQueue }, undefined, undefined, reachability);
    // PDFs are made in a worker thread, never on this event loop (render/pdf.ts): bounded by the
    // render's own deadline and the largest image a render may give
    const pdf = new PdfConverter({ deadlineMs: config.renderTimeoutMs, maxOutputBytes: 2 * config.maxImageBytes });
    pdfConverter = pdf;
    const signedCache = new SignedImageCache(clock);
    const metrics = new Metrics({
      poolStats: () => livePool.stats(),
      pressure: () => pressure.report(),
      pdfs: () => ({ made: pdf.counters.made, timeout: pdf.counters.timeouts, memory: pdf.counters.overMemory, busy: pdf.counters.refused }),
      signedCache: () => ({ hit: signedCache.counters.hits, miss: signedCache.counters.misses }),
    });
    const renderer = new RenderService(pool, metrics, {
      maxImageBytes: config.maxImageBytes,
      deadlines: deadlinesFor(config.renderTimeoutMs, config.anonymousRenderTimeoutMs, config.trialRenderTimeoutMs),
      pdf,
    });
    const imageCache = new ImageCache(store.images, config.memoryCacheBytes, clock, metrics, redis?.hotTier);
    const status = new StatusService(pool, store, { buildHash: config.buildHash, googleOAuth: googleConfigured(config), nodeHeap: heapStatus(config.heapLimit) }, clock);
    const billing = new BillingService(store, clock, config.publicBaseUrl, (html, owner) => livePool.pdfFromHtml(html, owner));
    // this process's id: its usage reservations and outbox claims are its own
    const instanceId = randomUUID();
    const usage = new UsageService(store, billing, clock, { instanceId });
    // A full disk must not stop the server from starting: reads still work, writes fail per
    // request until space returns. Stale reservations then stay until their lease passes.
    await usage.start().catch((err: unknown) => log.error({ err }, 'clearing stale usage reservations failed; starting anyway'));
    const trials = new TrialService(store, accounts, clock, masterKey);
    const outbox = new OutboxWorker(store, clock, log, { masterKey, smtpUrl: config.smtpUrl, allowPrivate: config.webhookAllowPrivate, instanceId, ...opts.outbox });
    await outbox.recover().catch((err: unknown) => log.error({ err }, 'releasing stale outbox claims failed; they are retried after their lease'));
    // page time of the callers who pay nothing per render: trial accounts, anonymous addresses
    const pageBudget = new PageBudget(clock, { budgetMs: config.pageBudgetMs, refillMsPerMin: config.pageBudgetRefillMsPerMin });
    const charts = new ChartService(renderer, usage, pageBudget, signedCache);
    const windows = keyedWindows(store.openWindows, masterKey);
    const open = new OpenChartService(renderer, imageCache, windows, clock, {
      rendersPerHour: config.openRendersPerHour,
      publicBaseUrl: config.publicBaseUrl,
      cacheMaxBytes: config.openCacheMaxBytes,
      flights: redis?.flights,
      pageBudget,
    });
    const chartMetrics = new ChartMetricsRecorder(store.chartMetrics, log);
    const shortCharts = new ShortChartService({
      charts, renderer, store, cache: imageCache, clock, publicBaseUrl: config.publicBaseUrl,
      metrics: chartMetrics, log, flights: redis?.flights,
      // re-renders of stored charts may hold at most half the pool: paid renders keep the rest
      rerender: { concurrency: Math.max(1, Math.floor(config.poolSize / 2)), renderTimeoutMs: config.renderTimeoutMs },
    });
    const automation = new AutomationService(shortCharts, store, config.publicBaseUrl);
    const fingerprint = pool.fingerprint();
    configParser = new ConfigTextParser();
    const remoteImages = new RemoteImages({ allow: config.remoteImagesAllow, ...opts.remoteImages });
    const quickchart = new QuickChartService({ charts, shortCharts, open, publicBaseUrl: config.publicBaseUrl, store, cache: imageCache, metrics: chartMetrics, renderer, windows, clock, fingerprint, configParser, remoteImages });
    const qr = new QrService(windows, clock, { renderer, images: remoteImages });
    const errorImages = new ErrorImageService(renderer);
    const dashboard = new DashboardService({
      store, accounts, usage, billing, renderer, clock, masterKey, publicBaseUrl: config.publicBaseUrl, webhookAllowPrivate: config.webhookAllowPrivate,
    });
    const dashboardSessions = new DashboardSessions(store, accounts, clock, masterKey);
    const googleSignIn = googleConfigured(config)
      ? new GoogleSignIn({ clientId: config.googleClientId!, clientSecret: config.googleClientSecret!, issuer: config.googleIssuerUrl, redirectUri: `${config.publicBaseUrl}/login/google/callback` }, clock, masterKey)
      : null;
    const deps: Services = {
      config, log, store, pool, clock, accounts, renderer, pdf, signedCache, gallery: new GalleryService(renderer), imageCache, charts, open, shortCharts, status, metrics, requestObserver: metrics, automation, usage, billing, trials, outbox,
      quickchart, configParser, qr, errorImages, fingerprint, ...(redis ? { sharedFlights: redis.flights } : {}),
      lifecycle, pressure,
      dashboard, dashboardSessions, googleSignIn, bodyBudget: new BodyBudget(config.maxBodyBytesInFlight), keyUse: new KeyUse(store, clock, (err) => logStoreFailure(log, err, {}, 'noting a key\'s last use failed')),
    };
    const app = createApp(deps);
    const handler = withFastPath({ shortCharts, open, log, requestObserver: metrics, trustProxy: config.trustProxy, renderer: fingerprint.header() }, app.callback());
    // outermost: the drain counts every request and refuses new ones once the grace is over
    const drained = withDrain(lifecycle, handler);
    const server = createServer(tracing ? tracing.listener(drained) : drained);
    trackConnections(server);
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
    // the address really bound (the port the system chose for PORT=0), and a URL to open
    log.info({ address: `${host}:${addr.port}`, url, poolSize: config.poolSize, store: describeStore(config) }, 'chartshot listening');
    const schedulerMs = opts.schedulerIntervalMs ?? 3_600_000;
    if (schedulerMs > 0) billing.startScheduler(schedulerMs, (err) => logStoreFailure(log, err, {}, 'billing scheduler failed'));
    if ((opts.outbox?.pollMs ?? 1000) > 0) outbox.start();
    // Expired cache rows would otherwise stay on disk until the same chart is asked for again.
    const purgeExpired = () =>
      store.images.purgeExpired(clock.now()).then(
        (n) => n > 0 && log.info({ purged: n }, 'expired cached images removed'),
        (err: unknown) => logStoreFailure(log, err, {}, 'purging expired images failed'),
      );
    const purgeSessions = () => dashboardSessions.purgeExpired().catch((err: unknown) => logStoreFailure(log, err, {}, 'purging expired dashboard sessions failed'));
    const housekeeping = setInterval(() => {
      void purgeExpired();
      void purgeSessions();
    }, 3_600_000);
    housekeeping.unref();
    let closing: Promise<void> | null = null;
    const p = pool;
    return {
      url,
      server,
      deps,
      close(o: { graceMs?: number } = {}) {
        closing ??= (async () => {
          const graceMs = Math.max(0, o.graceMs ?? 0);
          const boundMs = drainBoundMs(config, graceMs);
          // not ready from now on; new requests still land during the grace
          lifecycle.startDraining();
          const started = Date.now();
          if (graceMs > 0) log.info({ graceMs, boundMs }, 'draining: not ready; still accepting during the grace');
          const hard = setTimeout(() => server.closeAllConnections(), Math.max(0, boundMs - 5000));
          if (graceMs > 0) await new Promise((r) => setTimeout(r, graceMs));
          // new requests get 503 with Retry-After; those already held are answered
          lifecycle.startRefusing();
          await lifecycle.whenIdle();
          // Stop listening; keep-alive connections are closed as they become idle.
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          const idle = setInterval(() => server.closeIdleConnections(), 50);
          server.closeIdleConnections();
          await closed;
          clearInterval(idle);
          clearTimeout(hard);
          if (graceMs > 0) log.info({ ms: Date.now() - started }, 'drained');
          clearInterval(housekeeping);
          await billing.stopScheduler();
          await outbox.stop();
          await configParser?.close();
          await pdf.close();
          await p.close();
          // Counters batched in memory are written before the store closes: none is lost.
          await shortCharts.close().catch((err: unknown) => log.error({ err }, 'writing chart metrics at shutdown failed'));
          await store.close();
          await tracing?.shutdown();
          log.info('chartshot stopped');
          log.flush?.();
        })();
        return closing;
      },
    };
  } catch (err) {
    await configParser?.close();
    await pdfConverter?.close();
    await pool?.close();
    await store.close();
    await tracing?.shutdown();
    throw err;
  }
}
