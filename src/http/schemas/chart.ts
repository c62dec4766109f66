// JSON Schemas of the chart request. The same objects validate requests and build the
// OpenAPI document, so the two cannot drift.
import { MAX_ZONE_LOCALE_CHARS } from '../../chart/zoneLocale.js';

export const chartConfigSchema = {
  description: 'A complete Chart.js 4 configuration, as an object or as a JSON string of one (missing, null or empty: 400 chart_required).',
  oneOf: [{ type: 'object' }, { type: 'string' }, { type: 'null' }],
} as const;

const dimension = (what: string) =>
  ({
    description: `${what} in pixels: 1-2000 (4000 on growth, 8000 on enterprise; width x height at most 4M/16M/64M pixels).`,
    type: 'integer',
    minimum: 1,
    maximum: 8000,
  }) as const;

/** A time zone field: the page's Date, Intl and time scales follow it (src/chart/zoneLocale.ts checks the name). */
export const timezoneSchema = {
  description:
    "IANA time zone the chart is drawn in: Date, Intl, toLocaleString in callbacks and Chart.js's time scales (every date adapter) follow it, DST changes included. Default: the server's TIMEZONE (UTC). An unknown zone is 400 invalid_config.",
  type: 'string',
  maxLength: MAX_ZONE_LOCALE_CHARS,
  // '' is absent (form tools send empty fields)
  pattern: '^(?:[A-Za-z][A-Za-z0-9_+\\-]*(?:/[A-Za-z0-9_+\\-]+)*)?$',
  examples: ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata'],
} as const;

/** A locale field: Intl's default locale, navigator.language and Chart.js's number formatting follow it. */
export const localeSchema = {
  description:
    "BCP 47 locale the chart is formatted in: Intl's default, toLocaleString in callbacks, navigator.language and Chart.js 3 and 4's number ticks (options.locale, unless the config sets one). Default: the server's LOCALE (en-US). A malformed tag is 400 invalid_config.",
  type: 'string',
  maxLength: MAX_ZONE_LOCALE_CHARS,
  pattern: '^(?:[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)?$',
  examples: ['de-DE', 'fr-CH', 'hi-IN'],
} as const;

/** The fields every chart request shares (the MCP tools' arguments are made of them too). */
export const commonProperties = {
  chart: chartConfigSchema,
  c: { ...chartConfigSchema, description: 'Alias for chart.' },
  format: { type: 'string', enum: ['png', 'svg', 'pdf'], default: 'png', description: 'png or svg (pdf: enterprise plan only).' },
  width: dimension('Width'),
  height: dimension('Height'),
  backgroundColor: {
    type: 'string',
    maxLength: 100,
    description: 'CSS colour painted behind the chart; transparent when absent.',
  },
  timezone: timezoneSchema,
  locale: localeSchema,
} as const;

/** Body of POST /v1/chart and POST /v1/chart/create. */
export const chartRequestBodySchema = {
  $id: 'ChartRequest',
  type: 'object',
  properties: commonProperties,
} as const;

/** Query of GET /v1/chart (values arrive as strings and are coerced). */
export const chartRequestQuerySchema = {
  $id: 'ChartRequestQuery',
  type: 'object',
  properties: {
    ...commonProperties,
    chart: { type: 'string', description: 'URL-encoded JSON Chart.js config.' },
    c: { type: 'string', description: 'Alias for chart.' },
    api_key: { type: 'string', description: 'API key (or header X-Api-Key).' },
    key_id: { type: 'string', description: 'Signed URLs: the public id of the signing key.' },
    exp: { type: 'integer', description: 'Signed URLs: expiry, Unix seconds (at most one year ahead).' },
    sig: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Signed URLs: HMAC-SHA256 (lowercase hex) of the raw query string before &sig=; must be last.' },
  },
} as const;

/** Output pixels per CSS pixel; the plan caps apply to the output (also read by POST /v1/chart). */
export const devicePixelRatioSchema = {
  description: 'Output pixels per CSS pixel, 1 to 4 (default 1): width 400 at ratio 2 gives an 800-pixel-wide PNG. The plan caps apply to the output pixels; an SVG has none.',
  type: 'number',
  minimum: 1,
  maximum: 4,
} as const;

/** The Chart.js version that draws the chart (QuickChart's v / version). */
export const chartjsVersionSchema = {
  description: 'Chart.js version that draws it: 4 (default, 4.6.1), 3 (3.9.1) or 2 (2.9.4, with QuickChart\'s chart types and plugins); "2.9.4" and "3" are read as their major version.',
  type: ['string', 'integer'],
  pattern: '^v?[234](\\.\\d+){0,2}$',
  minimum: 2,
  maximum: 4,
} as const;
