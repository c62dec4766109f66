// The open endpoint's request, normalised: pure, no I/O. Every refusal here is one of the
// open endpoint's own codes (url_too_long, config_too_large, invalid_config), never the
// codes of /v1/chart, so a client of the open endpoint has one small table to handle.
//
// Order of the checks (cheapest and most general first): request target length, c size,
// query shape, then the config itself (JSON, security gate, Chart.js shape, point count).
import { nestingDepth } from './jsonDepth.js';
import { AppError, configTooLarge, invalidConfig, urlTooLong } from '../errors.js';
import { findGateViolation } from './gate.js';
import { findCapViolation } from './openCaps.js';
import { pickAlias } from './fieldAlias.js';
import { chartjs2Hint } from './configHints.js';
import { checkColor, configJsonField, parseChartConfig, SERVICE_NAME, type ChartConfig, type RenderRequest } from './request.js';
import { DEFAULT_ZONE_LOCALE, zoneLocaleOf, type ZoneLocale } from './zoneLocale.js';

export const OPEN_LIMITS = Object.freeze({
  /** Path plus query, as received. */
  maxTargetBytes: 8192,
  /** The c parameter once URL-decoded (UTF-8 bytes). */
  maxConfigBytes: 6144,
  /** Data values over all datasets. */
  maxDataPoints: 500,
  maxSide: 2000,
  defaultWidth: 500,
  defaultHeight: 300,
  defaultBackground: 'white',
});

export const SHORTCUT_TYPES = ['bar', 'line', 'pie', 'doughnut'] as const;

/** The query parameters of GET /v1/open/chart (after ajv coerced w and h). */
export interface OpenChartQuery {
  c?: string;
  type?: string;
  data?: string;
  labels?: string;
  w?: number | string;
  h?: number | string;
  format?: string;
  bkg?: string;
  /** The long names, aliases of w, h, bkg and format. */
  width?: number | string;
  height?: number | string;
  backgroundColor?: string;
  f?: string;
  /** IANA time zone and BCP 47 locale; absent: TIMEZONE and LOCALE. Part of the cache key. */
  timezone?: string;
  locale?: string;
}

export interface OpenRequest {
  /** What is rendered: open requests never run functions and always carry the watermark. */
  readonly render: RenderRequest;
  /** The config the image shows (built from the shortcut when that was used): the playground opens it. */
  readonly config: ChartConfig;
}

/** url_too_long when the request target (path + query, as received) exceeds 8192 bytes. */
export function checkRequestTarget(target: string): void {
  const bytes = Buffer.byteLength(target, 'utf8');
  if (bytes > OPEN_LIMITS.maxTargetBytes) throw urlTooLong(`the URL is ${bytes} bytes; at most ${OPEN_LIMITS.maxTargetBytes}`);
}

/** config_too_large when c (decoded) exceeds 6144 bytes. */
export function checkConfigSize(c: unknown): void {
  if (typeof c !== 'string') return;
  const bytes = Buffer.byteLength(c, 'utf8');
  if (bytes > OPEN_LIMITS.maxConfigBytes) throw configTooLarge(`c is ${bytes} bytes; at most ${OPEN_LIMITS.maxConfigBytes}`);
}

/** Validates and normalises an open request; throws url/size/config errors with their open codes.
 *  `zone`: TIMEZONE and LOCALE, for a request that names no zone or locale (the image is keyed by what it is drawn in). */
export function parseOpenQuery(q: OpenChartQuery, zone: ZoneLocale = DEFAULT_ZONE_LOCALE): OpenRequest {
  checkConfigSize(q.c);
  const hasC = q.c !== undefined && q.c !== '';
  const hasShortcut = q.type !== undefined || q.data !== undefined || q.labels !== undefined;
  if (hasC && hasShortcut) throw invalidConfig('give either c, or type with data (and labels), not both');
  if (!hasC && !hasShortcut) throw invalidConfig('c (a URL-encoded Chart.js config) or type with data is required');
  const config = hasC ? parseConfigParam(q.c!) : shortcutConfig(q.type, q.data, q.labels);
  const v2 = chartjs2Hint(config, 'c');
  if (v2) throw invalidConfig(v2);
  const violation = findGateViolation(config);
  if (violation) throw invalidConfig(violation);
  try {
    parseChartConfig(config, 'c'); // the shape /v1/chart also requires (data an object, known types)
  } catch (err) {
    throw asInvalidConfig(err);
  }
  // every option Chart.js or a plugin loops over, and every data form, within its cap
  const overCap = findCapViolation(config);
  if (overCap) throw invalidConfig(overCap);
  const named = aliasesResolved(q);
  const width = side(named.w, 'w', OPEN_LIMITS.defaultWidth);
  const height = side(named.h, 'h', OPEN_LIMITS.defaultHeight);
  const format = named.format === undefined || named.format === '' ? 'png' : named.format;
  if (format !== 'png' && format !== 'svg') throw invalidConfig('format must be png or svg');
  let backgroundColor: string | null;
  try {
    backgroundColor = checkColor(named.bkg, 'bkg') ?? OPEN_LIMITS.defaultBackground;
  } catch (err) {
    throw asInvalidConfig(err);
  }
  const { timezone, locale } = zoneLocaleOf(q, zone);
  return {
    config,
    // c's text, as it came: the digest and the page use it without serialising the config again
    render: { config, ...configJsonField(hasC ? q.c : undefined), width, height, format, backgroundColor, allowFunctions: false, watermark: SERVICE_NAME, timezone, locale },
  };
}

/** w, h, bkg and format, each given under its short or its long name (both, differing: invalid_config). */
function aliasesResolved(q: OpenChartQuery): Pick<OpenChartQuery, 'w' | 'h' | 'bkg' | 'format'> {
  const fields = q as Record<string, unknown>;
  try {
    return {
      w: pickAlias(fields, 'w', 'width') as OpenChartQuery['w'],
      h: pickAlias(fields, 'h', 'height') as OpenChartQuery['h'],
      bkg: pickAlias(fields, 'bkg', 'backgroundColor') as OpenChartQuery['bkg'],
      format: pickAlias(fields, 'format', 'f') as OpenChartQuery['format'],
    };
  } catch (err) {
    throw asInvalidConfig(err);
  }
}

/** Nesting the gate allows (it counts the config object as level 1). */
const MAX_OPEN_DEPTH = 32; // the gate walks at most 32 levels

function parseConfigParam(c: string): ChartConfig {
  // measured on the text, before JSON.parse builds (and anything recurses over) a deep value
  if (nestingDepth(c) > MAX_OPEN_DEPTH) throw invalidConfig(`c nests deeper than ${MAX_OPEN_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(c);
  } catch (err) {
    throw invalidConfig(`c is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidConfig('c must be a JSON object (a Chart.js config)');
  return value as ChartConfig;
}

const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

/** type=bar&data=1,2,3&labels=a,b,c -> a Chart.js config. */
function shortcutConfig(type: string | undefined, data: string | undefined, labels: string | undefined): ChartConfig {
  if (type === undefined || type === '') throw invalidConfig('type is required with data (bar, line, pie or doughnut)');
  if (!(SHORTCUT_TYPES as readonly string[]).includes(type)) {
    throw invalidConfig(`type must be one of ${SHORTCUT_TYPES.join(', ')} (use c for other chart types)`);
  }
  if (data === undefined || data.trim() === '') throw invalidConfig('data is required with type: comma-separated numbers');
  const items = data.split(',');
  if (items.length > OPEN_LIMITS.maxDataPoints) {
    throw invalidConfig(`${items.length} data points; at most ${OPEN_LIMITS.maxDataPoints} on the open endpoint`);
  }
  const values = items.map((raw, i) => {
    const s = raw.trim();
    const n = Number(s);
    if (!NUMBER.test(s) || !Number.isFinite(n)) throw invalidConfig(`data item ${i + 1} is not a number`);
    return n;
  });
  // labels pair with data by position; missing ones are numbered, extra ones dropped
  const given = labels === undefined || labels === '' ? [] : labels.split(',').map((l) => l.trim());
  const names = values.map((_, i) => given[i] ?? String(i + 1));
  const round = type === 'pie' || type === 'doughnut';
  return {
    type,
    data: { labels: names, datasets: [{ data: values }] },
    // one unnamed dataset: a legend helps only where it names the slices
    options: { plugins: { legend: { display: round } } },
  };
}

function side(v: number | string | undefined, name: 'w' | 'h', def: number): number {
  if (v === undefined || v === '') return def;
  const n = typeof v === 'number' ? v : /^\d{1,6}$/.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > OPEN_LIMITS.maxSide) throw invalidConfig(`${name} must be an integer 1-${OPEN_LIMITS.maxSide}`);
  return n;
}

/** The open endpoint reports every refusal of a request's content as invalid_config. */
export function asInvalidConfig(err: unknown): unknown {
  if (err instanceof AppError && err.status === 400) return invalidConfig(err.detail ?? err.code);
  return err;
}

/** Longest playground link put in X-Edit-Url and Link (each); longer ones become ?id= links. */
export const MAX_EDIT_URL_BYTES = 1024;

/** What the playground needs to reopen an image: the config and the non-default w, h, format, bkg. */
export interface EditState {
  c: ChartConfig;
  w?: number;
  h?: number;
  format?: string;
  bkg?: string;
}

export function editState(req: OpenRequest): EditState {
  const r = req.render;
  const state: EditState = { c: req.config };
  if (r.width !== OPEN_LIMITS.defaultWidth) state.w = r.width;
  if (r.height !== OPEN_LIMITS.defaultHeight) state.h = r.height;
  if (r.format !== 'png') state.format = r.format;
  if (r.backgroundColor !== OPEN_LIMITS.defaultBackground) state.bkg = r.backgroundColor ?? '';
  return state;
}

/** A stored edit state's id: the open image's request digest (base64url SHA-256). */
export const EDIT_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The playground link for an image: {base}/playground?c=<config>, plus w, h, format and bkg
 * when they differ from the defaults, so the page opens on the same image. `:`, `,` and `/`
 * are left unescaped (legal in a query) to keep the header short. A link longer than
 * MAX_EDIT_URL_BYTES would repeat a large config in two headers (past nginx's default 4 KB
 * header buffer): then it is {base}/playground?id=<digest> and `stored` is true, and the
 * caller stores the edit state under that id.
 */
export function playgroundUrl(baseUrl: string, req: OpenRequest, digest: string): { url: string; stored: boolean } {
  const enc = (s: string) => encodeURIComponent(s).replace(/%3A/gi, ':').replace(/%2C/gi, ',').replace(/%2F/gi, '/');
  const state = editState(req);
  let url = `${baseUrl}/playground?c=${enc(JSON.stringify(state.c))}`;
  if (state.w !== undefined) url += `&w=${state.w}`;
  if (state.h !== undefined) url += `&h=${state.h}`;
  if (state.format !== undefined) url += `&format=${state.format}`;
  if (state.bkg !== undefined) url += `&bkg=${enc(state.bkg)}`;
  if (Buffer.byteLength(url) <= MAX_EDIT_URL_BYTES) return { url, stored: false };
  return { url: `${baseUrl}/playground?id=${digest}`, stored: true };
}
