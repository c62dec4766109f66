// Schemas of the short-chart and metrics responses, for the OpenAPI document.
import { CHART_ID_PATTERN } from '../../chart/chartId.js';

const chartIdParameterSchema = {
  description: 'Chart id: the last path segment of the url returned by POST /v1/chart/create (22 URL-safe characters).',
  type: 'string',
  pattern: CHART_ID_PATTERN,
} as const;

/** The {id} path parameter of the short-chart routes. */
export const chartIdParam = { description: chartIdParameterSchema.description, schema: chartIdParameterSchema };

/** 201 body of POST /v1/chart/create. */
export const shortChartSchema = {
  $id: 'ShortChart',
  type: 'object',
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      format: 'uri',
      description: 'Permanent, cacheable URL of the image: {PUBLIC_BASE_URL}/v1/chart/<id>. Carries no key or secret.',
    },
    id: { ...chartIdParameterSchema, description: 'The chart id (the last path segment of url).' },
  },
} as const;

/** 200 body of GET /v1/metrics/{id}. */
export const chartMetricsSchema = {
  $id: 'ChartMetrics',
  type: 'object',
  required: ['hitCount', 'errorCount', 'avgRenderTime', 'lastAccessed'],
  properties: {
    hitCount: { type: 'integer', minimum: 0, description: 'Times GET /v1/chart/{id} served the image (200 or 304).' },
    errorCount: { type: 'integer', minimum: 0, description: 'Times GET /v1/chart/{id} failed for this chart, plus failed background re-renders (a failed re-render).' },
    avgRenderTime: {
      type: 'number',
      minimum: 0,
      description: 'Mean render time of this chart in milliseconds, over the render at creation and every re-render after cache expiry.',
    },
    lastAccessed: {
      type: 'string',
      format: 'date-time',
      description: 'ISO 8601 time of the last GET /v1/chart/{id}; the creation time when never fetched.',
    },
  },
} as const;

/** Response headers of GET /v1/chart/{id}. */
export const shortChartHeaders = {
  ETag: { description: 'Strong validator of the image bytes; send it back in If-None-Match for a 304.', schema: { type: 'string' } },
  'Cache-Control': {
    description:
      'public, max-age=31536000, immutable: the image behind an id never changes (a re-render after cache expiry draws the same stored request); public, max-age=60 on a stale image (X-Cache-Tier: stale).',
    schema: { type: 'string' },
  },
  'X-Cache-Tier': {
    description:
      'edge = served from memory, r2 = from the persistent cache (DATA_DIR), miss = re-rendered now, stale = the last good image past its cache duration, served while the chart is re-rendered in the background (or while a failed re-render backs off).',
    schema: { type: 'string', enum: ['edge', 'r2', 'miss', 'stale'] },
  },
} as const;
