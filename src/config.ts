// The only reader of process.env: every setting is parsed, validated and frozen here, and
// a bad value stops the process at start with a message naming the variable.
import { cpus, totalmem } from 'node:os';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFontFiles } from './render/fonts.js';
import { ownMemoryLimit } from './render/cgroupLayout.js';
import { defaultHeapMb, heapFlagMb, type HeapLimit, type MemorySource } from './heapLimit.js';
import { DEFAULT_LOCALE, DEFAULT_TIMEZONE, parseLocale, parseTimezone } from './chart/zoneLocale.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** pretty: one readable line per event; json: one JSON object per line; auto: pretty on a terminal. */
export type LogFormat = 'json' | 'pretty' | 'auto';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly publicBaseUrl: string;
  readonly chromiumPath: string;
  readonly poolSize: number;
  readonly renderTimeoutMs: number;
  /** ANONYMOUS_RENDER_TIMEOUT_MS: page time of an open-endpoint or keyless render (at most renderTimeoutMs). */
  readonly anonymousRenderTimeoutMs: number;
  /** TRIAL_RENDER_TIMEOUT_MS: page time of a trial key's render (at most renderTimeoutMs). */
  readonly trialRenderTimeoutMs: number;
  readonly trustProxy: boolean;
  readonly openRendersPerHour: number;
  readonly logLevel: LogLevel;
  /** LOG_FORMAT: json (files, collectors) or pretty (a terminal); auto = pretty when stdout is a TTY. */
  readonly logFormat: LogFormat;
  readonly googleClientId: string | null;
  /** GOOGLE_CLIENT_SECRET: with GOOGLE_CLIENT_ID, the dashboard offers "Sign in with Google". */
  readonly googleClientSecret: string | null;
  /** GOOGLE_ISSUER_URL: the OpenID Connect issuer of Google sign-in (tests point it at a local provider). */
  readonly googleIssuerUrl: string;
  readonly smtpUrl: string | null;
  /** Largest JSON body accepted, bytes (authenticated routes; routes anyone may call take ANONYMOUS_BODY_BYTES). */
  readonly maxBodyBytes: number;
  /** BODY_READ_TIMEOUT_MS: a request body must arrive whole within this, from when it is first read (else 400, connection closed). */
  readonly bodyReadTimeoutMs: number;
  /** PAGE_BUDGET_MS: page time a trial account or an anonymous address may spend at once (failed renders count). */
  readonly pageBudgetMs: number;
  /** PAGE_BUDGET_REFILL_MS_PER_MIN: page time they earn back each minute. */
  readonly pageBudgetRefillMsPerMin: number;
  /** MAX_BODY_BYTES_IN_FLIGHT: request body bytes being received at once, the whole process; past it 503 with Retry-After. */
  readonly maxBodyBytesInFlight: number;
  /** How long a request may wait for a free page before 503. */
  readonly acquireTimeoutMs: number;
  /**
   * DRAIN_GRACE_MS: after SIGTERM, how long the server keeps accepting and answering new requests
   * while it reports itself not ready (GET /v1/pressure 503), so that requests a load balancer
   * routed before it noticed still land; then new requests get 503 with Retry-After.
   */
  readonly drainGraceMs: number;
  /** Requests allowed to wait for a page at once; more get 503 at once. */
  readonly maxQueue: number;
  /** A page is replaced after this many renders (staggered per page). */
  readonly pageMaxRenders: number;
  /** Bytes of images kept in the in-memory cache tier. */
  readonly memoryCacheBytes: number;
  /** OPEN_CACHE_MAX_MB: byte budget of the open endpoint's persistent cache, oldest evicted first. */
  readonly openCacheMaxBytes: number;
  /** MAX_IMAGE_BYTES: largest image a render may return (PNG decoded bytes, SVG UTF-8 bytes). */
  readonly maxImageBytes: number;
  readonly buildHash: string;
  /** Bearer token for GET /metrics; null = loopback clients only. */
  readonly metricsToken: string | null;
  /** Allow webhook targets on loopback, private and link-local addresses. */
  readonly webhookAllowPrivate: boolean;
  /** QUICKCHART_ANONYMOUS: keyless requests on /chart get the open endpoint's protections instead of 401. */
  readonly quickchartAnonymous: boolean;
  /** REMOTE_IMAGES_ALLOW: host names whose images a config may name by URL (fetched by the service); empty: none. */
  readonly remoteImagesAllow: readonly string[];
  /** DATABASE_URL: the shared PostgreSQL store; null = SQLite in dataDir. */
  readonly databaseUrl: string | null;
  /** REDIS_URL: counters, windows, leases, coalescing and the hot image tier across instances. */
  readonly redisUrl: string | null;
  /** REDIS_CACHE_MAX_MB: byte budget of the hot image tier shared in Redis (with REDIS_URL). */
  readonly redisCacheMaxBytes: number;
  /** MASTER_KEY: the secret every instance derives signing secrets from; null = dataDir/master.key. */
  readonly masterKey: Buffer | null;
  /** MAX_HEAP_MB, or a quarter of the memory the process may use: Node's heap limit (src/heapLimit.ts). */
  readonly heapLimit: HeapLimit;
  /** CHROMIUM_MEMORY_MB: the cgroup memory limit of Chromium's whole process tree; 0 = no cgroup. */
  readonly chromiumMemoryMb: number;
  /** CHROMIUM_PIDS_MAX: the cgroup's limit on Chromium's processes and threads. */
  readonly chromiumPidsMax: number;
  /** RENDER_MEMORY_MB: bytes of typed arrays, canvases and images caller code may allocate in one render. */
  readonly renderMemoryMb: number;
  /** FONTS_DIR: a folder of .ttf/.otf/.woff2 files every page can draw with; null = system fonts only. */
  readonly fontsDir: string | null;
  /** TIMEZONE: the IANA zone every page draws in when a request names none (never the host's TZ). */
  readonly timezone: string;
  /** LOCALE: the BCP 47 locale every page formats in when a request names none (never the host's LANG). */
  readonly locale: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT and friends: traces over OTLP/HTTP; null = tracing off, nothing loaded. */
  readonly otel: OtelConfig | null;
}

export interface OtelConfig {
  /** Where spans are POSTed (OTLP/HTTP JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  readonly tracesUrl: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: key=value pairs, comma-separated, values URL-encoded. */
  readonly headers: Readonly<Record<string, string>>;
  /** OTEL_SERVICE_NAME (default chartshot). */
  readonly serviceName: string;
  /** OTEL_BSP_SCHEDULE_DELAY: ms between batch exports (default 5000). */
  readonly exportDelayMs: number;
}

export class ConfigError extends Error {}

/**
 * MAX_IMAGE_BYTES default: the largest PNG any chart can encode to at the largest plan size
 * (8000x8000 = 64M pixels x 4 bytes of RGBA, plus 1 MiB for PNG's row filters, zlib blocks and
 * chunks). Measured legitimate charts at 8000x8000 range from 1.5 MB (5,000 bars) to 81 MB
 * (a 5,000-slice doughnut): no sample gives a lower ceiling, so none is assumed. SVGs of the
 * same configs are 0.6-3.8 MB. Deployments without 8000x8000 plans may set it far lower.
 */
export const DEFAULT_MAX_IMAGE_BYTES = 8000 * 8000 * 4 + 1024 * 1024;

/**
 * CHROMIUM_MEMORY_MB default: 512 MB for the browser, GPU and utility processes plus 1.5 GB per
 * page (a 512 MB V8 heap, the largest plan's canvas at 8000x8000 (256 MB) and its PNG encoding,
 * and the in-page allocation budget), never more than three quarters of the memory the process
 * may use (its cgroup's limit, else the host's memory: processMemory).
 */
export function defaultChromiumMemoryMb(poolSize: number, totalMb = Math.floor(totalmem() / 1048576)): number {
  return Math.max(256, Math.min(Math.floor(totalMb * 0.75), 512 + 1536 * poolSize));
}

/** The memory this process (Node and Chromium together) may use: its cgroup's limit when one is
 *  set and below the host's memory, else the host's memory. */
export function processMemory(): { mb: number; source: MemorySource } {
  const hostMb = Math.floor(totalmem() / 1048576);
  let limit: ReturnType<typeof ownMemoryLimit> = null;
  try {
    limit = ownMemoryLimit();
  } catch {
    // no /proc or cgroup filesystem to read: the host's memory is all there is to go by
  }
  const mb = limit ? Math.floor(limit.bytes / 1048576) : Infinity;
  if (!limit || mb >= hostMb) return { mb: hostMb, source: 'host memory' };
  return { mb, source: limit.version === 'v2' ? 'cgroup v2 memory.max' : 'cgroup v1 memory.limit_in_bytes' };
}

/**
 * Node's heap limit: MAX_HEAP_MB, else defaultHeapMb of the memory the process may use.
 * `nodeArgs`: Node's own flags (process.execArgv and NODE_OPTIONS); a --max-old-space-size there
 * is what is in effect, and is reported as the source unless it is the same figure.
 */
export function heapLimitFrom(env: NodeJS.ProcessEnv, memory: { mb: number; source: MemorySource }, nodeArgs: readonly string[]): HeapLimit {
  const set = env.MAX_HEAP_MB !== undefined && env.MAX_HEAP_MB.trim() !== '';
  const mb = set ? int(env, 'MAX_HEAP_MB', 0, 128, 1_048_576) : defaultHeapMb(memory.mb);
  const flag = heapFlagMb(nodeArgs);
  const base = { memoryMb: memory.mb, memorySource: memory.source };
  if (flag !== null && flag !== mb) return { ...base, mb: flag, source: 'node --max-old-space-size', applied: true };
  return { ...base, mb, source: set ? 'MAX_HEAP_MB' : memory.source, applied: flag !== null };
}

/** CHROMIUM_PIDS_MAX default: Chromium runs about 60 threads without pages and 20 per page. */
export function defaultChromiumPidsMax(poolSize: number): number {
  return 512 + 64 * poolSize;
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty', 'auto'];

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function defaultChromium(): string {
  // The /usr/bin/chromium wrapper adds flags and noise: launch the binary itself.
  for (const p of ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (existsSync(p)) return p;
  }
  return '/usr/lib/chromium/chromium';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const maxBodyBytes = int(env, 'MAX_BODY_BYTES', 2 * 1024 * 1024, 1024, 100 * 1024 * 1024);
  const host = (env.HOST ?? '0.0.0.0').trim() || '0.0.0.0';
  const baseRaw = env.PUBLIC_BASE_URL?.trim() || `http://localhost:${port}`;
  let publicBaseUrl: string;
  try {
    const u = new URL(baseRaw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    publicBaseUrl = baseRaw.replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an http(s) URL, got "${baseRaw}"`);
  }
  const chromiumPath = env.CHROMIUM_PATH?.trim() || defaultChromium();
  if (env.CHROMIUM_PATH && !existsSync(chromiumPath)) {
    throw new ConfigError(`CHROMIUM_PATH points to a missing file: ${chromiumPath}`);
  }
  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const logFormat = (env.LOG_FORMAT?.trim().toLowerCase() || 'auto') as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be json or pretty (unset: pretty on a terminal, else json), got "${env.LOG_FORMAT}"`);
  }
  const smtpUrl = env.SMTP_URL?.trim() || null;
  const poolSize = int(env, 'POOL_SIZE', Math.max(1, cpus().length), 1, 64);
  const memory = processMemory();
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  return Object.freeze({
    port,
    host,
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    publicBaseUrl,
    chromiumPath,
    poolSize,
    renderTimeoutMs: int(env, 'RENDER_TIMEOUT_MS', 10000, 100, 600000),
    anonymousRenderTimeoutMs: int(env, 'ANONYMOUS_RENDER_TIMEOUT_MS', 1000, 100, 600000),
    trialRenderTimeoutMs: int(env, 'TRIAL_RENDER_TIMEOUT_MS', 3000, 100, 600000),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    openRendersPerHour: int(env, 'OPEN_RENDERS_PER_HOUR', 60, 0, 1000000),
    logLevel,
    logFormat,
    ...googleSignIn(env),
    smtpUrl,
    maxBodyBytes,
    pageBudgetMs: int(env, 'PAGE_BUDGET_MS', 30_000, 1, 86_400_000),
    pageBudgetRefillMsPerMin: int(env, 'PAGE_BUDGET_REFILL_MS_PER_MIN', 3_000, 0, 3_600_000),
    bodyReadTimeoutMs: int(env, 'BODY_READ_TIMEOUT_MS', 15_000, 100, 600_000),
    maxBodyBytesInFlight: int(env, 'MAX_BODY_BYTES_IN_FLIGHT', Math.max(64 * 1024 * 1024, 8 * maxBodyBytes), maxBodyBytes, 64 * 1024 * 1024 * 1024),
    acquireTimeoutMs: int(env, 'ACQUIRE_TIMEOUT_MS', 5000, 10, 600000),
    drainGraceMs: int(env, 'DRAIN_GRACE_MS', 5000, 0, 600000),
    maxQueue: int(env, 'MAX_QUEUE', 64, 0, 100000),
    // A recycled page is cold: its first few hundred renders cost the corpus 2-3 ms more each and
    // the recycle itself a burst of browser work. At 2,000 that was 9% of the CPU per render at 4
    // in flight; a page 20,000 renders old holds no more memory than one 1,000 old
    // (docs/performance.md).
    pageMaxRenders: int(env, 'PAGE_MAX_RENDERS', 20_000, 1, 1000000),
    memoryCacheBytes: int(env, 'MEMORY_CACHE_MB', 128, 0, 65536) * 1024 * 1024,
    openCacheMaxBytes: int(env, 'OPEN_CACHE_MAX_MB', 1024, 1, 1_048_576) * 1024 * 1024,
    redisCacheMaxBytes: int(env, 'REDIS_CACHE_MAX_MB', 256, 1, 1_048_576) * 1024 * 1024,
    maxImageBytes: int(env, 'MAX_IMAGE_BYTES', DEFAULT_MAX_IMAGE_BYTES, 1024, 1024 * 1024 * 1024),
    buildHash: env.BUILD_HASH?.trim() || readBuildHash(),
    metricsToken: metricsToken(env),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    quickchartAnonymous: bool(env, 'QUICKCHART_ANONYMOUS', false),
    remoteImagesAllow: remoteImagesAllow(env),
    ...sharedState(env),
    heapLimit: heapLimitFrom(env, memory, [...process.execArgv, ...(env.NODE_OPTIONS ?? '').trim().split(/\s+/)]),
    chromiumMemoryMb: chromiumMemoryMb(env, poolSize, memory.mb),
    chromiumPidsMax: int(env, 'CHROMIUM_PIDS_MAX', defaultChromiumPidsMax(poolSize), 64, 1_000_000),
    renderMemoryMb: int(env, 'RENDER_MEMORY_MB', 256, 16, 65536),
    fontsDir: fontsDir(env),
    ...zoneLocale(env),
    otel: otelConfig(env),
  });
}

/** TIMEZONE and LOCALE, checked as a request's fields are (src/chart/zoneLocale.ts); never TZ or LANG. */
function zoneLocale(env: NodeJS.ProcessEnv): Pick<Config, 'timezone' | 'locale'> {
  const zone = parseTimezone(env.TIMEZONE?.trim() || DEFAULT_TIMEZONE);
  if ('problem' in zone) throw new ConfigError(`TIMEZONE ${zone.problem}`);
  const locale = parseLocale(env.LOCALE?.trim() || DEFAULT_LOCALE);
  if ('problem' in locale) throw new ConfigError(`LOCALE ${locale.problem}`);
  return { timezone: zone.timezone, locale: locale.locale };
}

/** REMOTE_IMAGES_ALLOW: comma-separated host names (or IP literals), no schemes, ports, paths or wildcards. */
function remoteImagesAllow(env: NodeJS.ProcessEnv): string[] {
  const raw = env.REMOTE_IMAGES_ALLOW?.trim();
  if (!raw) return [];
  const hosts = raw.split(',').map((h) => h.trim().toLowerCase().replace(/\.$/, '')).filter((h) => h !== '');
  for (const h of hosts) {
    const name = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(h);
    const ipv6 = /^\[[0-9a-f:.]+\]$/.test(h);
    if (!name && !ipv6) throw new ConfigError(`REMOTE_IMAGES_ALLOW must be host names separated by commas (no scheme, port, path or wildcard), got "${h.slice(0, 80)}"`);
  }
  if (hosts.length > 1000) throw new ConfigError('REMOTE_IMAGES_ALLOW lists more than 1000 hosts');
  return hosts;
}

/** 0 turns the cgroup off; anything else must leave Chromium room to start (256 MB). */
function chromiumMemoryMb(env: NodeJS.ProcessEnv, poolSize: number, memoryMb: number): number {
  const mb = int(env, 'CHROMIUM_MEMORY_MB', defaultChromiumMemoryMb(poolSize, memoryMb), 0, 16 * 1024 * 1024);
  if (mb !== 0 && mb < 256) throw new ConfigError(`CHROMIUM_MEMORY_MB must be 0 (no cgroup) or at least 256, got ${mb}`);
  return mb;
}

/** FONTS_DIR: an existing, readable folder with at most MAX_FONT_FILES font files. */
function fontsDir(env: NodeJS.ProcessEnv): string | null {
  const raw = env.FONTS_DIR?.trim();
  if (!raw) return null;
  const dir = resolve(raw);
  try {
    if (!statSync(dir).isDirectory()) throw new ConfigError(`FONTS_DIR must be a folder, got the file ${dir}`);
    listFontFiles(dir);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`FONTS_DIR must be a readable folder of .ttf/.otf/.woff2 files: ${(err as Error).message}`);
  }
  return dir;
}

/** The standard OTEL_* variables that matter here; tracing is off without an endpoint, or with OTEL_SDK_DISABLED=true / OTEL_TRACES_EXPORTER=none. */
function otelConfig(env: NodeJS.ProcessEnv): OtelConfig | null {
  if (bool(env, 'OTEL_SDK_DISABLED', false) || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return null;
  const full = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  const base = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  if (!full && !base) return null;
  const headers: Record<string, string> = {};
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    for (const pair of (env[name] ?? '').split(',')) {
      if (!pair.trim()) continue;
      const at = pair.indexOf('=');
      if (at < 1) throw new ConfigError(`${name} must be key=value pairs separated by commas`);
      try {
        headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        throw new ConfigError(`${name} has a badly URL-encoded value`);
      }
    }
  }
  return {
    tracesUrl: full ?? `${base!.replace(/\/+$/, '')}/v1/traces`,
    headers,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'chartshot',
    exportDelayMs: int(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 600000),
  };
}

/** DATABASE_URL, REDIS_URL and MASTER_KEY: instances sharing a database must share the key. */
function sharedState(env: NodeJS.ProcessEnv): Pick<Config, 'databaseUrl' | 'redisUrl' | 'masterKey'> {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const rawKey = env.MASTER_KEY?.trim() || null;
  if (rawKey !== null && !/^(?:[0-9a-fA-F]{2}){32,}$/.test(rawKey)) {
    throw new ConfigError('MASTER_KEY must be at least 32 bytes of hex (64 hex digits; e.g. openssl rand -hex 32)');
  }
  if (databaseUrl !== null && rawKey === null) {
    throw new ConfigError('MASTER_KEY is required with DATABASE_URL: every instance must derive the same signing secrets (openssl rand -hex 32)');
  }
  return { databaseUrl, redisUrl, masterKey: rawKey === null ? null : Buffer.from(rawKey, 'hex') };
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: readonly string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.map((p) => p + '//...').join(' or ')})`);
  }
  if (!protocols.includes(u.protocol)) throw new ConfigError(`${name} must start with ${protocols.map((p) => p + '//').join(' or ')}`);
  return raw;
}

/** A token short enough to guess would protect nothing: at least 16 visible characters. */
function metricsToken(env: NodeJS.ProcessEnv): string | null {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw.trim() === '') return null;
  const t = raw.trim();
  if (!/^[\x21-\x7e]{16,512}$/.test(t)) throw new ConfigError('METRICS_TOKEN must be 16-512 visible ASCII characters (no spaces)');
  return t;
}

/** dist/build-info.json, written by `npm run build` (scripts/build-info.mjs): the git commit. */
function readBuildHash(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // dist/config.js finds it beside itself; src/config.ts (tsx, tests) in ../dist.
  for (const file of [join(here, 'build-info.json'), join(here, '..', 'dist', 'build-info.json')]) {
    try {
      const hash = (JSON.parse(readFileSync(file, 'utf8')) as { buildHash?: unknown }).buildHash;
      if (typeof hash === 'string' && hash.trim() !== '') return hash.trim();
    } catch {
      /* not built yet: fall through to the next place */
    }
  }
  return process.env.npm_package_version ? `v${process.env.npm_package_version}` : 'dev';
}

/** Google sign-in needs both the client id and its secret; the issuer is Google's unless told. */
function googleSignIn(env: NodeJS.ProcessEnv): Pick<Config, 'googleClientId' | 'googleClientSecret' | 'googleIssuerUrl'> {
  const googleClientId = env.GOOGLE_CLIENT_ID?.trim() || null;
  const googleClientSecret = env.GOOGLE_CLIENT_SECRET?.trim() || null;
  const issuer = url(env, 'GOOGLE_ISSUER_URL', ['https:', 'http:']) ?? 'https://accounts.google.com';
  return { googleClientId, googleClientSecret, googleIssuerUrl: issuer.replace(/\/+$/, '') };
}

/** What `chartshot test` needs to know of the CI it runs in: CI (set by every CI system: goldens are
 *  never written without --update, and messages say so) and GITHUB_ACTIONS (annotations). Any
 *  value but empty, 0 or false counts as set. */
export interface CiEnv {
  ci: boolean;
  githubActions: boolean;
  /** CHARTSHOT_UPDATE (missing, changed or all): chartshot/testing writes goldens as --update does; unset: none. */
  update: 'none' | 'missing' | 'changed' | 'all';
}

export function loadCiEnv(env: NodeJS.ProcessEnv = process.env): CiEnv {
  const on = (v: string | undefined) => v !== undefined && !['', '0', 'false'].includes(v.trim().toLowerCase());
  const update = env.CHARTSHOT_UPDATE?.trim() || 'none';
  if (!['none', 'missing', 'changed', 'all'].includes(update)) throw new ConfigError(`CHARTSHOT_UPDATE must be missing, changed or all, got "${env.CHARTSHOT_UPDATE}"`);
  return { ci: on(env.CI), githubActions: on(env.GITHUB_ACTIONS), update: update as CiEnv['update'] };
}
