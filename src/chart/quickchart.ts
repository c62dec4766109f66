// QuickChart's request vocabulary made a RenderRequest's parts: aliases, Chart.js version, pixel
// ratio, base64 configs, and config text (JSON, JSON5-style data, or JavaScript). Pure, no I/O.
import JSON5 from 'json5';
import { checkNotImageCharts, remoteContentOf, withoutImageUrls } from './remoteContent.js';
import { absent, pickAlias } from './fieldAlias.js';
import { chartRequired, configTooLarge, invalidDimensions, invalidInput } from '../errors.js';
import { MAX_JSON_DEPTH, nestingDepth } from './jsonDepth.js';
import type { Plan } from '../rules/plans.js';
import { findGateViolation } from './gate.js';
import { findCapViolation } from './openCaps.js';
import { OPEN_LIMITS } from './open.js';
import { checkLocale, checkTimezone } from './zoneLocale.js';
import { typesOf } from './chartjsPages.js';
import { checkColor, checkDimensions, checkFormat, configJsonField, type ChartConfig, type RasterType, type RenderRequest } from './request.js';

/** QuickChart's defaults on /chart: 500 x 300 CSS pixels drawn at ratio 2, Chart.js 2.9.4. */
export const QUICKCHART_DEFAULTS = Object.freeze({ width: 500, height: 300, devicePixelRatio: 2, chartjs: 2 as const });

export type ChartjsMajor = 2 | 3 | 4;

/** v / version: "2.9.4" and "2" select 2, "3.x" 3, "4.x" 4; absent gives `def`. */
export function parseChartjsVersion(v: unknown, def: ChartjsMajor): ChartjsMajor {
  if (absent(v)) return def;
  const s = String(v).trim();
  const m = /^v?([234])(?:\.\d+){0,2}(?:[-+][0-9A-Za-z.-]*)?$/.exec(s);
  if (!m || s.length > 32) throw invalidInput('version must be a Chart.js version: 2, 3 or 4 (e.g. 2.9.4, 3.9.1, 4)');
  return Number(m[1]) as ChartjsMajor;
}

/** devicePixelRatio: a number from 1 to 4; absent gives `def`. */
export function parseDevicePixelRatio(v: unknown, def: number): number {
  if (absent(v)) return def;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 1 || n > 4) throw invalidInput('devicePixelRatio must be a number from 1 to 4');
  return n;
}

/** CSS width or height: a positive integer (QuickChart also takes "500.0"); absent gives `def`. */
export function parseSide(v: unknown, name: string, def: number | undefined): number | undefined {
  if (absent(v)) return def;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d{1,6}(?:\.0*)?\s*$/.test(v) ? Math.trunc(Number(v)) : NaN;
  if (!Number.isInteger(n) || n < 1) throw invalidInput(`${name} must be a positive integer`);
  return n;
}

/** f / format, case-insensitive as QuickChart reads it: png, svg, pdf, webp, or jpg (jpeg). */
export function parseQuickChartFormat(v: unknown): 'png' | 'svg' | 'pdf' | RasterType {
  if (absent(v)) return 'png';
  const f = String(v).trim().toLowerCase();
  if (f === 'png' || f === 'svg' || f === 'pdf' || f === 'webp') return f;
  if (f === 'jpg' || f === 'jpeg') return 'jpeg';
  if (f === 'base64') throw invalidInput('format base64 is not supported: ask for png and base64-encode the image on your side');
  throw invalidInput('format must be png, svg, pdf, webp or jpg');
}

/**
 * quality: 1-100, for webp and jpg only (QuickChart documents none; this is the encoder's own
 * scale). Absent: Chromium's defaults, 92 for JPEG and 80 for WebP; 100 gives lossless WebP.
 */
export function parseQuality(v: unknown, type: RasterType): number {
  if (absent(v)) return type === 'jpeg' ? 92 : 80;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d{1,3}\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 100) throw invalidInput('quality must be an integer 1-100 (webp and jpg only)');
  return n;
}

/**
 * The plan's caps apply to the pixels produced: width x ratio by height x ratio. The CSS size
 * itself is checked by checkDimensions; this is the output. An SVG has no pixels to multiply:
 * its callers pass ratio 1.
 */
export function checkOutputPixels(width: number, height: number, ratio: number, plan: Plan): void {
  const ow = Math.floor(width * ratio);
  const oh = Math.floor(height * ratio);
  if (ow > plan.maxSide || oh > plan.maxSide || ow * oh > plan.maxPixels) {
    throw invalidDimensions(`the image would be ${ow}x${oh} pixels (width and height x devicePixelRatio ${ratio}); the ${plan.name} plan allows ${plan.maxSide} a side and ${plan.maxPixels} pixels`);
  }
}

/** encoding=base64: the config arrives base64-encoded (UTF-8 text). */
export function decodeConfigText(raw: unknown, encoding: unknown): unknown {
  const enc = absent(encoding) ? 'url' : String(encoding).trim().toLowerCase();
  if (enc === 'url') return raw;
  if (enc !== 'base64') throw invalidInput('encoding must be url or base64');
  if (typeof raw !== 'string') throw invalidInput('with encoding=base64 the chart must be a base64 string');
  // URL-safe letters too; whitespace and newlines of wrapped base64 are dropped
  const s = raw.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s)) throw invalidInput('chart is not valid base64');
  return Buffer.from(s, 'base64').toString('utf8');
}

/**
 * What a config text was found to be by a parse done elsewhere (the service parses large JSON5
 * texts off the event loop): JSON (parsed here, natively, keeping the exact text), JSON5 data
 * (its value), or neither (then JavaScript for key holders, as when parsed here).
 */
export type ParsedConfigText = { text: string } & ({ kind: 'json' } | { kind: 'invalid' } | { kind: 'data'; value: unknown });

/** Config texts up to this many characters are parsed inline: json5 costs about 0.3 µs a byte, so 8 KiB is
 *  under 3 ms on the event loop; larger ones are worth a worker's hop (about 0.1 ms). */
export const INLINE_JSON5_MAX_CHARS = 8192;

/** The config text of a /chart request, when it is large enough to be parsed off the event loop. */
export function configTextToPreparse(f: QuickChartFields): string | null {
  let raw: unknown;
  try {
    raw = decodeConfigText(pickAlias(f as Record<string, unknown>, 'chart', 'c'), f.encoding);
  } catch {
    return null; // the same error is thrown again where the request is built
  }
  if (typeof raw !== 'string' || raw.length <= INLINE_JSON5_MAX_CHARS) return null;
  const text = withoutTrailingSemicolons(raw.trim());
  // deeper than the limit is refused before any parse (parseData): nothing to do off the loop
  return nestingDepth(text) > MAX_JSON_DEPTH ? null : text;
}

/** A config as data (with its JSON text when it came as JSON: configJsonField), or as JavaScript
 *  text the page evaluates (key holders only). */
export type ConfigSource = { config: ChartConfig; configJson?: string; configJs?: undefined } | { configJs: string; config?: undefined; configJson?: undefined };

/** Values and nesting a data config may have (an iterative walk: nothing recurses over it first). */
const MAX_NODES = 2_000_000;

/**
 * The config text as QuickChart clients send it: JSON; else a JSON5-style object literal
 * (unquoted keys, single quotes, trailing commas, comments) parsed as data; else, when
 * `allowJs` (the caller has a key), JavaScript that only the sandboxed page evaluates: it is
 * never evaluated, compiled or run here. Without a key anything but data is refused.
 * `bodyJson`: an object config's JSON text as the request body held it (body.ts), kept with it.
 */
export function parseConfigSource(raw: unknown, allowJs: boolean, field = 'c', parsed?: ParsedConfigText, bodyJson?: string): ConfigSource {
  if (absent(raw)) throw chartRequired('c or chart is required (the Chart.js config)');
  if (typeof raw === 'object') {
    if (Array.isArray(raw)) throw invalidInput(`${field} must be a Chart.js config object`);
    return { config: raw as ChartConfig, ...configJsonField(bodyJson) };
  }
  if (typeof raw !== 'string') throw invalidInput(`${field} must be a Chart.js config (JSON or a JavaScript object literal)`);
  const text = withoutTrailingSemicolons(raw.trim());
  const data = parseData(text, field, parsed?.text === text ? parsed : undefined);
  if (data) return data;
  if (!allowJs) {
    throw invalidInput(`${field} is neither JSON nor a JavaScript object literal of plain data; functions and other code in a config need an API key`);
  }
  // An object literal, as javascript-stringify writes one: the page evaluates it as an expression
  if (!text.startsWith('{') || !text.endsWith('}')) throw invalidInput(`${field} must be a JavaScript object literal ({...})`);
  return { configJs: text };
}

/**
 * A config ending in `;` (a statement, as people paste it from their code): QuickChart evaluates
 * `return <config>` and takes it, so semicolons and blanks after the value are dropped here, for
 * data and JavaScript alike. Nothing else is: the text stays one expression.
 */
export function withoutTrailingSemicolons(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ';' || /\s/.test(text[end - 1]!))) end--;
  return end === text.length ? text : text.slice(0, end);
}

function parseData(text: string, field: string, parsed?: ParsedConfigText): { config: ChartConfig; configJson?: string } | null {
  let value: unknown;
  let json = false;
  try {
    if (nestingDepth(text) > MAX_JSON_DEPTH) throw invalidInput(`${field} nests deeper than ${MAX_JSON_DEPTH} levels`);
    if (parsed && parsed.kind !== 'json') throw new SyntaxError('not JSON (parsed elsewhere)');
    value = JSON.parse(text);
    json = true;
  } catch (err) {
    if ((err as { status?: number }).status === 400) throw err;
    if (parsed?.kind === 'invalid') return null;
    try {
      value = parsed?.kind === 'data' ? parsed.value : JSON5.parse(text);
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidInput(`${field} must be a Chart.js config object`);
  // the text's own depth count skips only double-quoted strings: measure the value itself
  if (deeperThan(value, MAX_JSON_DEPTH)) throw invalidInput(`${field} nests deeper than ${MAX_JSON_DEPTH} levels`);
  // JSON: the text it came as goes with it, so it is not serialised again
  return { config: value as ChartConfig, ...(json ? configJsonField(text) : {}) };
}

/** True when `value` nests deeper than `max` or holds more than MAX_NODES values (no recursion). */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (++nodes > MAX_NODES) return true;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    for (const x of Object.values(v as Record<string, unknown>)) if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
  }
  return false;
}

/**
 * The light shape check of a data config on these routes: Chart.js 2 and 3 and QuickChart's own
 * chart types (horizontalBar, sparkline, radialGauge...) are known to the page, not to this list,
 * so a type the page cannot draw is its answer (400), not a guess here.
 */
export function checkConfigShape(config: ChartConfig, field = 'c'): void {
  if (config.type !== undefined && (typeof config.type !== 'string' || config.type.length > 64)) throw invalidInput(`${field}.type must be a chart type name`);
  if (config.data !== undefined && (typeof config.data !== 'object' || config.data === null || Array.isArray(config.data))) {
    throw invalidInput(`${field}.data must be an object`);
  }
}

/** The parameters of /chart and /chart/create, under QuickChart's names and their aliases. */
export interface QuickChartFields {
  c?: unknown;
  chart?: unknown;
  w?: unknown;
  width?: unknown;
  h?: unknown;
  height?: unknown;
  devicePixelRatio?: unknown;
  bkg?: unknown;
  backgroundColor?: unknown;
  f?: unknown;
  format?: unknown;
  /** webp and jpg: 1-100. */
  quality?: unknown;
  v?: unknown;
  version?: unknown;
  encoding?: unknown;
  /** IANA time zone and BCP 47 locale (chartshot's own, as on /v1/chart); absent: TIMEZONE and LOCALE. */
  timezone?: unknown;
  locale?: unknown;
}

export interface QuickChartCaller {
  plan: Plan;
  /** A key holder: JavaScript configs are evaluated in the page; without a key, data only and the gate. */
  keyed: boolean;
  watermark: string | null;
}

/** The requested output format, as far as it can be read (an error image is drawn in it). */
export function requestedFormat(fields: Record<string, unknown>): 'png' | 'svg' | 'pdf' {
  for (const k of ['format', 'f']) {
    const v = fields[k];
    if (typeof v === 'string') {
      const f = v.trim().toLowerCase();
      if (f === 'svg' || f === 'pdf') return f;
    }
  }
  return 'png';
}

/** Without a key a config has the open endpoint's size limit, as text or as a JSON body's object. */
export function checkKeylessConfigSize(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  const bytes = text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  if (bytes > OPEN_LIMITS.maxConfigBytes) throw configTooLarge(`the config is ${bytes} bytes; at most ${OPEN_LIMITS.maxConfigBytes} without an API key`);
}

/** What the edge already knows of a request's config text: its parse off the event loop, or its
 *  JSON text as the request body held it (body.ts). */
export interface KnownConfigText {
  parsed?: ParsedConfigText;
  bodyJson?: string;
}

/** A /chart request made a RenderRequest (QuickChart's defaults: 500x300 at ratio 2, Chart.js 2). */
export function quickChartRequest(f: QuickChartFields, caller: QuickChartCaller, defaultVersion: ChartjsMajor = QUICKCHART_DEFAULTS.chartjs, known: KnownConfigText = {}): RenderRequest {
  const fields = f as Record<string, unknown>;
  checkNotImageCharts(fields);
  const raw = decodeConfigText(pickAlias(fields, 'chart', 'c'), f.encoding);
  if (!caller.keyed) checkKeylessConfigSize(raw);
  const source = parseConfigSource(raw, caller.keyed, f.chart !== undefined ? 'chart' : 'c', known.parsed, known.bodyJson);
  const chartjs = parseChartjsVersion(pickAlias(fields, 'version', 'v'), defaultVersion);
  if (source.config) {
    checkConfigShape(source.config);
    if (!caller.keyed) {
      // googleSheets, airtable, image point styles: the 400 that names the feature, as a key holder gets
      remoteContentOf(source.config);
      // the types of the page that draws it: Chart.js 2's gauge, 3's sankey, 4's matrix
      const reason = findGateViolation(withoutImageUrls(source.config), typesOf(chartjs)) ?? findCapViolation(source.config as Parameters<typeof findCapViolation>[0]);
      if (reason) throw invalidInput(reason);
    }
  }
  const { width, height } = checkDimensions(
    parseSide(pickAlias(fields, 'width', 'w'), 'width', QUICKCHART_DEFAULTS.width),
    parseSide(pickAlias(fields, 'height', 'h'), 'height', QUICKCHART_DEFAULTS.height),
    caller.plan,
  );
  const ratio = parseDevicePixelRatio(f.devicePixelRatio, QUICKCHART_DEFAULTS.devicePixelRatio);
  const asked = parseQuickChartFormat(pickAlias(fields, 'format', 'f'));
  // webp and jpg are drawn as a PNG would be and encoded by the page in the other type
  const raster = asked === 'webp' || asked === 'jpeg' ? { type: asked, quality: parseQuality(f.quality, asked) } : undefined;
  if (!raster && !absent(f.quality)) throw invalidInput('quality applies to webp and jpg only');
  const format = checkFormat(raster ? 'png' : asked, caller.plan);
  checkOutputPixels(width, height, format === 'svg' ? 1 : ratio, caller.plan);
  let backgroundColor = checkColor(pickAlias(fields, 'backgroundColor', 'bkg'));
  // a JPEG has no alpha: a transparent background would come out black
  if (raster?.type === 'jpeg' && (backgroundColor === null || backgroundColor === 'transparent')) backgroundColor = '#ffffff';
  const timezone = checkTimezone(f.timezone);
  const locale = checkLocale(f.locale);
  return {
    config: source.config ?? {},
    ...(source.configJson !== undefined ? { configJson: source.configJson } : {}),
    ...(source.configJs !== undefined ? { configJs: source.configJs } : {}),
    width,
    height,
    format,
    ...(raster ? { raster } : {}),
    backgroundColor,
    allowFunctions: caller.keyed,
    watermark: caller.watermark,
    chartjs,
    devicePixelRatio: ratio,
    ...(timezone !== undefined ? { timezone } : {}),
    ...(locale !== undefined ? { locale } : {}),
  };
}
