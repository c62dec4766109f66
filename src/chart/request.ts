// Pure normalisation of a chart request: parse at the edge, trust inside. No I/O.
import { createHash } from 'node:crypto';
import { chartRequired, invalidDimensions, invalidInput } from '../errors.js';
import { PLANS, type Format, type Plan } from '../rules/plans.js';
import { MAX_JSON_DEPTH, nestingDepth } from './jsonDepth.js';
import { chartjs2Hint } from './configHints.js';
import { CHART_TYPES } from './chartTypes.js';
import { DEFAULT_LOCALE, DEFAULT_TIMEZONE, type ZoneLocale } from './zoneLocale.js';

export type ChartConfig = Record<string, unknown>;

export interface RenderRequest {
  readonly config: ChartConfig;
  /**
   * The config's JSON text as it arrived (a request body's span, a query parameter, a JSON
   * string), which the caller vouches parses to `config`: the digest hashes it and the page
   * receives it, so they always agree and the config is not serialised again. Absent: made once
   * per render (withConfigJson). Never stored: a kept request is storedRequest(req).
   */
  readonly configJson?: string;
  readonly width: number;
  readonly height: number;
  readonly format: Format;
  /** CSS colour painted behind the chart; null = transparent. */
  readonly backgroundColor: string | null;
  /** Function strings become functions inside the page (authenticated callers only). */
  readonly allowFunctions: boolean;
  /** Text drawn small into a corner, or null. */
  readonly watermark: string | null;
  /** Chart.js major version that draws it; absent = 4. */
  readonly chartjs?: 2 | 3 | 4;
  /** Output pixels per CSS pixel (1 to 4); absent = 1. */
  readonly devicePixelRatio?: number;
  /** A config given as JavaScript (an object literal, as QuickChart clients send it), evaluated
   *  only inside the page (allowFunctions callers only); `config` is then `{}` and unused. */
  readonly configJs?: string;
  /** Values set in the config inside the page after its functions were revived: text, never code. */
  readonly textPatches?: readonly TextPatch[];
  /** QuickChart routes only: a `png` request the page encodes as WebP or JPEG instead. */
  readonly raster?: RasterEncoding;
  /** data:image URLs drawn behind the chart in order: QuickChart's backgroundImageUrl (remote
   *  ones fetched by the service), /qr's code and center image. */
  readonly images?: readonly PlacedImage[];
  /** IANA time zone the page draws in (chart/zoneLocale.ts); absent = the instance's TIMEZONE. */
  readonly timezone?: string;
  /** BCP 47 locale the page formats in; absent = the instance's LOCALE. */
  readonly locale?: string;
}

export type RasterType = 'webp' | 'jpeg';

/** An image drawn behind the chart (the page's PlacedImage): a data:image URL in a box of CSS px. */
export interface PlacedImage {
  readonly src: string;
  readonly box?: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  readonly fit?: 'fill' | 'contain';
}

/** The page's canvas encoder: type and quality 1-100. */
export interface RasterEncoding {
  readonly type: RasterType;
  readonly quality: number;
}

/** One value set at a path of the config (template overrides); objects are created on the way. */
export interface TextPatch {
  readonly path: ReadonlyArray<string | number>;
  readonly value: string | number | boolean | null | ReadonlyArray<string | number | null>;
}

export const SERVICE_NAME = 'chartshot';

export { CHART_TYPES } from './chartTypes.js';
const TYPE_SET: ReadonlySet<string> = new Set(CHART_TYPES);

/** A config given as an object or as a JSON string (query parameters, form tools). */
export function parseChartConfig(raw: unknown, field = 'chart'): ChartConfig {
  if (raw === undefined || raw === null || raw === '') throw chartRequired();
  let value: unknown = raw;
  if (typeof raw === 'string') {
    // same bound as a JSON body: deeper text would overflow the digest's and the clone's stack
    if (nestingDepth(raw) > MAX_JSON_DEPTH) throw invalidInput(`${field} nests deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw invalidInput(`${field} is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput(`${field} must be a Chart.js config object`);
  }
  const config = value as ChartConfig;
  if (config.type !== undefined && typeof config.type !== 'string') throw invalidInput(`${field}.type must be a string`);
  if (config.data !== undefined && (typeof config.data !== 'object' || config.data === null || Array.isArray(config.data))) {
    throw invalidInput(`${field}.data must be an object`);
  }
  const v2 = chartjs2Hint(config, field);
  if (v2) throw invalidInput(v2);
  if (config.type === undefined && !hasDatasetTypes(config)) throw invalidInput(`${field}.type is required`);
  if (config.type !== undefined && !TYPE_SET.has(config.type as string)) {
    throw invalidInput(`${field}.type must be one of ${CHART_TYPES.join(', ')}`);
  }
  const datasets = (config.data as { datasets?: unknown } | undefined)?.datasets;
  if (Array.isArray(datasets)) {
    for (const d of datasets) {
      const t = (d as { type?: unknown } | null)?.type;
      if (t !== undefined && (typeof t !== 'string' || !TYPE_SET.has(t))) {
        throw invalidInput(`a dataset type must be one of ${CHART_TYPES.join(', ')}`);
      }
    }
  }
  return config;
}

function hasDatasetTypes(config: ChartConfig): boolean {
  const ds = (config.data as { datasets?: unknown } | undefined)?.datasets;
  return Array.isArray(ds) && ds.length > 0 && ds.every((d) => typeof (d as { type?: unknown })?.type === 'string');
}

function toInt(v: unknown): number | null {
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number(v);
  return null;
}

/** How a side out of range is refused, the same words for width and height and for every check. */
export function sideRange(side: 'width' | 'height', plan: Plan): string {
  return `${side} must be an integer 1-${plan.maxSide} on the ${plan.name} plan`;
}

/** Width and height within the plan's caps; missing or out of range -> invalid_dimensions. */
export function checkDimensions(width: unknown, height: unknown, plan: Plan = PLANS.trial): { width: number; height: number } {
  const w = toInt(width);
  const h = toInt(height);
  if (width === undefined || width === null || width === '') throw invalidDimensions('width is required');
  if (height === undefined || height === null || height === '') throw invalidDimensions('height is required');
  if (w === null || w < 1 || w > plan.maxSide) throw invalidDimensions(sideRange('width', plan));
  if (h === null || h < 1 || h > plan.maxSide) throw invalidDimensions(sideRange('height', plan));
  if (w * h > plan.maxPixels) {
    throw invalidDimensions(`width x height must be at most ${plan.maxPixels} pixels on the ${plan.name} plan`);
  }
  return { width: w, height: h };
}

export function checkFormat(format: unknown, plan: Plan = PLANS.trial): Format {
  if (format === undefined || format === null || format === '') return 'png';
  if (format === 'png' || format === 'svg') return format;
  if (format === 'pdf') {
    if (plan.formats.includes('pdf')) return 'pdf';
    throw invalidInput('format pdf is available on the enterprise plan only');
  }
  throw invalidInput('format must be png or svg');
}

/** CSS's named colours (CSS Color 4: 148 names), transparent and currentcolor, lower-cased: a
 *  word that is none of them ("zzz") is no colour, and the canvas would ignore it silently. */
export const CSS_COLOR_NAMES: ReadonlySet<string> = new Set([
  'aliceblue', 'antiquewhite', 'aqua', 'aquamarine', 'azure', 'beige', 'bisque', 'black',
  'blanchedalmond', 'blue', 'blueviolet', 'brown', 'burlywood', 'cadetblue', 'chartreuse',
  'chocolate', 'coral', 'cornflowerblue', 'cornsilk', 'crimson', 'cyan', 'darkblue', 'darkcyan',
  'darkgoldenrod', 'darkgray', 'darkgreen', 'darkgrey', 'darkkhaki', 'darkmagenta',
  'darkolivegreen', 'darkorange', 'darkorchid', 'darkred', 'darksalmon', 'darkseagreen',
  'darkslateblue', 'darkslategray', 'darkslategrey', 'darkturquoise', 'darkviolet', 'deeppink',
  'deepskyblue', 'dimgray', 'dimgrey', 'dodgerblue', 'firebrick', 'floralwhite', 'forestgreen',
  'fuchsia', 'gainsboro', 'ghostwhite', 'gold', 'goldenrod', 'gray', 'green', 'greenyellow',
  'grey', 'honeydew', 'hotpink', 'indianred', 'indigo', 'ivory', 'khaki', 'lavender',
  'lavenderblush', 'lawngreen', 'lemonchiffon', 'lightblue', 'lightcoral', 'lightcyan',
  'lightgoldenrodyellow', 'lightgray', 'lightgreen', 'lightgrey', 'lightpink', 'lightsalmon',
  'lightseagreen', 'lightskyblue', 'lightslategray', 'lightslategrey', 'lightsteelblue',
  'lightyellow', 'lime', 'limegreen', 'linen', 'magenta', 'maroon', 'mediumaquamarine',
  'mediumblue', 'mediumorchid', 'mediumpurple', 'mediumseagreen', 'mediumslateblue',
  'mediumspringgreen', 'mediumturquoise', 'mediumvioletred', 'midnightblue', 'mintcream',
  'mistyrose', 'moccasin', 'navajowhite', 'navy', 'oldlace', 'olive', 'olivedrab', 'orange',
  'orangered', 'orchid', 'palegoldenrod', 'palegreen', 'paleturquoise', 'palevioletred',
  'papayawhip', 'peachpuff', 'peru', 'pink', 'plum', 'powderblue', 'purple', 'rebeccapurple',
  'red', 'rosybrown', 'royalblue', 'saddlebrown', 'salmon', 'sandybrown', 'seagreen', 'seashell',
  'sienna', 'silver', 'skyblue', 'slateblue', 'slategray', 'slategrey', 'snow', 'springgreen',
  'steelblue', 'tan', 'teal', 'thistle', 'tomato', 'turquoise', 'violet', 'wheat', 'white',
  'whitesmoke', 'yellow', 'yellowgreen',
  'transparent', 'currentcolor',
]);
const NAMED = { test: (v: string) => CSS_COLOR_NAMES.has(v.toLowerCase()) };
const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const FUNC = /^(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(\s*[-+0-9a-z.%,\s/]{1,80}\)$/i;

/** A CSS colour string, or null when absent. Anything else -> invalid_input. */
export function checkColor(value: unknown, field = 'backgroundColor'): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > 100) throw invalidInput(`${field} must be a CSS colour`);
  const v = value.trim();
  if (HEX.test(v) || NAMED.test(v) || FUNC.test(v)) return v;
  throw invalidInput(`${field} must be a CSS colour (hex, rgb(), rgba(), hsl(), a name or transparent)`);
}

/** JSON with sorted keys: equal requests give equal strings, whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortedKeys);
}

// A replacer, not a recursive copy: objects whose keys are already in order (most of them, e.g.
// thousands of {x, y} points) pass through untouched. Object.fromEntries defines "__proto__" as
// an own key, so hostile keys stay data.
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      return Object.fromEntries(keys.sort().map((k) => [k, (value as Record<string, unknown>)[k]]));
    }
  }
  return value;
}

/**
 * `{ configJson: text }` when `text` is an object's JSON text (`{...}`) that the caller vouches
 * parses to the request's config (its span of a request body, a query parameter); else nothing,
 * and the config is serialised once where it is rendered.
 */
export function configJsonField(text: string | undefined): { configJson?: string } {
  return text !== undefined && text.length >= 2 && text.charCodeAt(0) === 123 && text.charCodeAt(text.length - 1) === 125 ? { configJson: text } : {};
}

/** The JSON text of the request's config: the text it arrived as, else JSON.stringify(config). */
export function configJsonOf(req: RenderRequest): string {
  return req.configJson ?? JSON.stringify(req.config);
}

/** The request with its config's JSON text, made now if it has none: a digest computed before
 *  the render and the page's copy then share one serialisation. */
export function withConfigJson(req: RenderRequest): RenderRequest {
  return req.configJson !== undefined ? req : { ...req, configJson: JSON.stringify(req.config) };
}

/** The request with a zone and locale, `defaults`' where it names none (the same object when it names both). */
export function withZoneLocale(req: RenderRequest, defaults: ZoneLocale): RenderRequest {
  if (req.timezone !== undefined && req.locale !== undefined) return req;
  return { ...req, timezone: req.timezone ?? defaults.timezone, locale: req.locale ?? defaults.locale };
}

/** The request as a record keeps it: without the config's text (the config itself is kept). */
export function storedRequest(req: RenderRequest): RenderRequest {
  if (req.configJson === undefined) return req;
  const { configJson: _text, ...kept } = req;
  return kept;
}

/**
 * The digest of everything that decides the image's bytes, in one pass over the config's JSON
 * text as it will reach the page (key order kept: it can change the image, e.g. a data object's
 * keys are its labels in order). Keys the coalescing of renders in flight and the short-chart
 * record; a 100,000-point config hashes in about 2 ms where requestDigest takes about 45 ms.
 * Every cache and coalescing key is this digest: the image is drawn from exactly this text.
 */
export function renderDigest(req: RenderRequest): string {
  const head = JSON.stringify({ w: req.width, h: req.height, f: req.format, b: req.backgroundColor, fn: req.allowFunctions, wm: req.watermark, ...variant(req) });
  // "r1" keeps these digests apart from requestDigest's; JSON text has no raw newline, so the
  // boundary between the two parts is unambiguous (a JavaScript config is hashed under "js")
  const hash = createHash('sha256').update('r1\n').update(head).update('\n');
  if (req.configJs !== undefined) return hash.update('js\n').update(req.configJs).digest('base64url');
  return hash.update(configJsonOf(req)).digest('base64url');
}

/** The fields that only some requests set: absent ones leave the digest as it always was. */
function variant(req: RenderRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (req.chartjs !== undefined && req.chartjs !== 4) out.v = req.chartjs;
  if (req.devicePixelRatio !== undefined && req.devicePixelRatio !== 1) out.dpr = req.devicePixelRatio;
  if (req.textPatches !== undefined && req.textPatches.length > 0) out.tp = req.textPatches;
  if (req.raster !== undefined) out.rs = [req.raster.type, req.raster.quality];
  // the image's bytes, not its URL: what the URL answered is what was drawn
  if (req.images !== undefined) out.im = createHash('sha256').update(JSON.stringify(req.images)).digest('base64url');
  // UTC and en-US (the defaults' defaults) leave the digest as it was before requests had them
  if (req.timezone !== undefined && req.timezone !== DEFAULT_TIMEZONE) out.tz = req.timezone;
  if (req.locale !== undefined && req.locale !== DEFAULT_LOCALE) out.lc = req.locale;
  return out;
}

/** A digest of the normalised request with key order ignored. No cache is keyed by it (issue 25: the page draws keys in the order sent; every cache uses renderDigest). */
export function requestDigest(req: RenderRequest): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        c: req.config,
        w: req.width,
        h: req.height,
        f: req.format,
        b: req.backgroundColor,
        fn: req.allowFunctions,
        wm: req.watermark,
        ...variant(req),
        ...(req.configJs !== undefined ? { js: req.configJs } : {}),
      }),
    )
    .digest('base64url');
}
