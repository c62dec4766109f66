// JSON Schema of GET /v1/open/chart's query. The same object validates requests and builds the
// OpenAPI document. Sizes in bytes (c at most 6144 once decoded, the whole request target at
// most 8192) are checked before this schema, with their own codes; every other refusal on this
// endpoint is 400 invalid_config.
import { localeSchema, timezoneSchema } from './chart.js';

export const openChartQuerySchema = {
  $id: 'OpenChartQuery',
  type: 'object',
  description: 'Either c, or type with data (and optionally labels). Unknown parameters are ignored.',
  properties: {
    c: {
      type: 'string',
      maxLength: 6144,
      description:
        'URL-encoded JSON Chart.js config, at most 6144 bytes decoded (else config_too_large). Function strings, script-like strings, a top-level plugins array and remote URLs outside data are refused (invalid_config). At most 500 data points (every data form) and 500 labels, 100 datasets; options that make Chart.js or its plugins work per unit (tick counts, time ranges, polygon sides, radii, widths, dash patterns, font sizes...) are capped, and a config past a cap is refused with invalid_config naming the option and the cap.',
    },
    type: { type: 'string', enum: ['bar', 'line', 'pie', 'doughnut'], description: 'Shortcut form: the chart type, used with data.' },
    data: { type: 'string', description: 'Shortcut form: comma-separated numbers, at most 500.' },
    labels: { type: 'string', description: 'Shortcut form: comma-separated labels, paired with data by position.' },
    w: { type: 'integer', minimum: 1, maximum: 2000, default: 500, description: 'Width in pixels.' },
    h: { type: 'integer', minimum: 1, maximum: 2000, default: 300, description: 'Height in pixels.' },
    format: { type: 'string', enum: ['png', 'svg'], default: 'png', description: 'Output format.' },
    bkg: {
      type: 'string',
      maxLength: 100,
      default: 'white',
      description: 'CSS colour behind the chart (hex, rgb(), rgba(), a name, transparent).',
    },
    width: { type: 'integer', minimum: 1, maximum: 2000, description: 'Alias of w.' },
    height: { type: 'integer', minimum: 1, maximum: 2000, description: 'Alias of h.' },
    backgroundColor: { type: 'string', maxLength: 100, description: 'Alias of bkg.' },
    f: { type: 'string', enum: ['png', 'svg'], description: 'Alias of format.' },
    timezone: timezoneSchema,
    locale: localeSchema,
  },
} as const;

/** Response headers of a 200 (and, but Content-Type, of a 304), for the OpenAPI document. */
export const openChartResponseHeaders = {
  'Cache-Control': { description: 'public, max-age=86400, s-maxage=31536000, immutable', schema: { type: 'string' } },
  ETag: { description: 'Strong validator of the image bytes; send it back in If-None-Match for a 304.', schema: { type: 'string' } },
  'X-Cache-Tier': { description: 'edge (memory), r2 (persistent cache) or miss (rendered now).', schema: { type: 'string', enum: ['edge', 'r2', 'miss'] } },
  'X-Edit-Url': {
    description: 'The playground page opened on this chart: {base}/playground?c=<config>, or {base}/playground?id=<id> (the config stored with the image) when that link would pass 1 KB.',
    schema: { type: 'string', format: 'uri' },
  },
  Link: { description: '<X-Edit-Url>; rel="edit"', schema: { type: 'string' } },
} as const;
