// The Store interface: Promise-returning, so a PostgreSQL (or Redis for counters)
// implementation can replace SQLite without touching the services.
import type { PlanName } from '../rules/plans.js';
import type { GenerationCount, MeteringStores } from './metering.js';
import type { RenderRequest } from '../chart/request.js';
import type { DashboardStore } from './dashboard.js';
import type { ReachabilityReport } from './reachability.js';

export type AccountStatus = 'active' | 'suspended' | 'cancelled' | 'terminated';
export type KeyKind = 'live' | 'trial' | 'test';

export interface Account {
  id: string;
  email: string | null;
  plan: PlanName;
  status: AccountStatus;
  createdAt: number; // ms since epoch
}

export interface ApiKey {
  id: string; // key_id: public
  accountId: string;
  kind: KeyKind;
  /** First characters of the key, for listings ("live_AbC…"); never the whole key. */
  prefix: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface Session {
  accountId: string;
  expiresAt: number;
}

export interface AccountStore {
  create(a: Account): Promise<void>;
  find(id: string): Promise<Account | null>;
  update(id: string, fields: Partial<Pick<Account, 'plan' | 'status' | 'email'>>): Promise<void>;
}

export interface KeyStore {
  create(k: ApiKey, keyHash: string): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKey | null>;
  find(id: string): Promise<ApiKey | null>;
  listByAccount(accountId: string): Promise<ApiKey[]>;
  revoke(id: string, at: number): Promise<boolean>;
}

export interface SessionStore {
  create(tokenHash: string, s: Session & { createdAt: number }): Promise<void>;
  findByHash(tokenHash: string): Promise<Session | null>;
}

export interface StoredImage {
  contentType: string;
  etag: string;
  body: Buffer;
  createdAt: number;
  /** ms since epoch; null = never expires. */
  expiresAt: number | null;
  /** X-Chartshot-Renderer of what drew it (the Chart.js version the request named, Chromium,
   *  fonts); absent or null: not recorded (stored before it was, or not a chart). */
  renderer?: string | null;
}

export interface ImageStore {
  get(key: string): Promise<StoredImage | null>;
  put(key: string, image: StoredImage): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Removes images expired before `now`, except a short chart's while the chart exists (its
   * last good image, served stale while it is re-rendered); returns how many.
   */
  purgeExpired(now: number): Promise<number>;
  /** Bytes of image bodies under keys "open:" (a running total, not a scan). */
  openCacheBytes(): Promise<number>;
  /** Evicts "open:" images, oldest first, until their bodies total at most maxBytes; returns how many. */
  trimOpenCache(maxBytes: number): Promise<number>;
}

/** A short chart (POST /v1/chart/create): the normalised request, so it can be re-rendered. */
export interface ChartRecord {
  id: string;
  accountId: string;
  keyId: string;
  request: RenderRequest;
  /** renderDigest(request) */
  digest: string;
  createdAt: number;
}

/** A short chart's last failed re-render, remembered so that later GETs are answered at once. */
export interface RerenderFailure {
  /** Consecutive failed re-renders (1 after the first). */
  failures: number;
  /** ms since epoch: no new attempt before then. */
  retryAt: number;
  /** The error the failed attempt was answered with. */
  status: number;
  code: string;
  detail: string | null;
}

/** Token buckets of short-chart re-renders (see ShortChartService for the defaults). */
export interface RerenderLimits {
  /** Per chart: attempts it may start at once, and ms to earn one more back. */
  chartBurst: number;
  chartRefillMs: number;
  /** Per account: page time (ms) its charts' re-renders may spend at once, and page ms earned back per ms. */
  accountBudgetMs: number;
  accountRefillPerMs: number;
}

export type RerenderTake = { allowed: true } | { allowed: false; limit: 'chart' | 'account'; retryAfterMs: number };

export interface ChartStore {
  /**
   * Stores a chart, its cached image and (when given) the generation that made it, in one
   * transaction: after a crash there is never a chart without its image or count, nor a count
   * without its chart. Returns the period's used count (null when nothing was counted).
   */
  createWithImage(c: ChartRecord, image: { key: string; image: StoredImage }, count: GenerationCount | null): Promise<number | null>;
  find(id: string): Promise<ChartRecord | null>;
  /** Cheap check that a chart still exists (its account may have been terminated and purged). */
  exists(id: string): Promise<boolean>;
  /** The chart's remembered failed re-render, if any (whether or not its backoff has passed). */
  rerenderFailure(id: string): Promise<RerenderFailure | null>;
  /**
   * Atomically: when the chart's bucket holds a token and its account's page-time budget is
   * positive, takes the token and allows the re-render; otherwise says which limit refused it
   * and when it would allow one.
   */
  takeRerender(id: string, accountId: string, now: number, limits: RerenderLimits): Promise<RerenderTake>;
  /** Charges the page time a re-render spent to its account's budget (which may go negative). */
  chargeRerender(accountId: string, now: number, pageMs: number, limits: RerenderLimits): Promise<void>;
  /** Remembers a failed re-render: one more consecutive failure, retry at now + backoffMs(failures). */
  recordRerenderFailure(
    id: string,
    now: number,
    error: { status: number; code: string; detail: string | null },
    backoffMs: (failures: number) => number,
  ): Promise<RerenderFailure | null>;
  /** Forgets the remembered failure (a re-render succeeded). */
  clearRerenderFailure(id: string): Promise<void>;
}

/** Per-chart counters, as stored and as added by one batched write. */
export interface ChartMetricsRow {
  chartId: string;
  hitCount: number;
  errorCount: number;
  renderCount: number;
  /** Sum of render times, ms. */
  renderMsTotal: number;
  /** ms since epoch; null = never. */
  lastAccessed: number | null;
}

export interface ChartMetricsStore {
  /** Adds each row's counters to the chart's (lastAccessed: the later wins); rows of unknown charts are ignored. */
  addBatch(rows: readonly ChartMetricsRow[]): Promise<void>;
  find(chartId: string): Promise<ChartMetricsRow | null>;
}

/** Outcome of one OpenRenderWindows.take(). */
export interface WindowTake {
  allowed: boolean;
  /** Renders counted in the window, this one included when allowed. */
  used: number;
  /** When refused: ms until a slot frees; 0 when allowed. */
  retryAfterMs: number;
}

/** Sliding windows of the open endpoint's cache-miss renders, per client (IP or IPv6 /64). */
export interface OpenRenderWindows {
  /** Atomically: when fewer than `limit` renders of `client` fall in (now - windowMs, now], records one at `now`. */
  take(client: string, now: number, windowMs: number, limit: number): Promise<WindowTake>;
  /** Forgets every render at or before `before`; returns how many. */
  purge(before: number): Promise<number>;
}

/** Whose analytics a retention purge deletes: every account on a plan, or one account. */
export type RetentionScope = { plan: PlanName } | { accountId: string };

/** Where a retention window ends: `day` is the first day number kept, `at` the first ms kept. */
export interface RetentionCutoff {
  day: number;
  at: number;
}

/**
 * Deletes what has outlived its retention, in bounded batches: each call deletes at most `limit`
 * rows, each statement on its own, so no call holds the database for long. Returns how many were
 * deleted: fewer than `limit` means nothing more is due. Deleting what is past a cut-off is
 * idempotent, so calls from several instances at once only share the work.
 */
export interface RetentionStore {
  /**
   * Analytics of the accounts in scope older than the cut-off: daily usage rows before `day`;
   * per-chart metrics last accessed (or, never accessed, created) before `at`; usage counters
   * and thresholds of billing periods that started before `at` and are closed (never a trial's
   * lifetime count, never the open period's).
   */
  purgeAnalytics(scope: RetentionScope, cutoff: RetentionCutoff, limit: number): Promise<number>;
  /** Accounts now on the enterprise plan that keep analytics for a set number of days. */
  customRetention(): Promise<Array<{ accountId: string; days: number }>>;
  /**
   * Billing records stamped before `before`: invoices (issued) with their stored PDF documents,
   * billing events (payments, dunning, plan changes), and invoice lines of closed periods.
   */
  purgeBilling(before: number, limit: number): Promise<number>;
}

export interface Store extends MeteringStores {
  /**
   * True when one serving process uses the store alone (SQLite in DATA_DIR): what an earlier
   * process left leased (usage reservations, outbox claims) can be dropped at start. False for a
   * store shared by several instances: each drops only its own, others' expire by lease.
   */
  readonly exclusive: boolean;
  readonly images: ImageStore;
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly sessions: SessionStore;
  readonly openWindows: OpenRenderWindows;
  readonly charts: ChartStore;
  readonly chartMetrics: ChartMetricsStore;
  readonly retention: RetentionStore;
  /** The web dashboard's sign-in sessions and the reads of its pages. */
  readonly dashboard: DashboardStore;
  /**
   * A terminated account's data, in one transaction: each table family deletes its own rows of
   * the account (keys, sessions, charts and their images, usage, rate windows, trial sign-ups),
   * the e-mail address and webhook URL are forgotten; the account row, billing records,
   * invoices, billing events and the outbox are kept (7-year billing retention, the last e-mail).
   */
  purgeAccountData(accountId: string): Promise<void>;
  /** Round trip to the store, ms (status endpoint's kvLatency). */
  ping(): Promise<number>;
  /**
   * A number that changes whenever an account or an API key may have changed: a write to them
   * through this store, or any commit by another process (the CLI revoking a key). Synchronous
   * and cheap: caches of authentication results compare it on every use. Absent: no such signal.
   */
  authVersion?(): number;
  /**
   * Whether a store on another server (PostgreSQL) answered its last call, and since when not.
   * Absent: a store in this process (SQLite), which cannot be away.
   */
  reachability?(): ReachabilityReport;
  close(): Promise<void>;
}
