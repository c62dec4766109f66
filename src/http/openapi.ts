// The OpenAPI 3.1 document (version 1.0.0) of every endpoint, built from the same JSON
// Schema objects that validate requests (http/schemas/*), so the description and the
// behaviour cannot drift. Pure: no I/O; GET /openapi.json serves it.
import { chartRequestBodySchema, chartRequestQuerySchema } from './schemas/chart.js';
import { openChartQuerySchema, openChartResponseHeaders } from './schemas/open.js';
import { chartIdParameterSchema, chartMetricsSchema, shortChartHeaders, shortChartSchema } from './schemas/shortCharts.js';
import { automationEndpoints } from './schemas/automation.js';
import {
  automationResultSchema, billingInfoSchema, errorObjectSchema, invoiceListSchema, statusSchema, trialKeySchema, usageAnalyticsSchema,
} from './schemas/responses.js';
import type { ErrorCode } from '../errors.js';
import { analyticsQuerySchema } from './routes/account.js';

type Json = Record<string, unknown>;

export const OPENAPI_VERSION = '1.0.0';

/** A JSON Schema as OpenAPI 3.1 embeds it: without $id (it would change how $refs resolve). */
export function toOpenApiSchema(schema: object): Json {
  const { $id: _id, ...rest } = schema as Json & { $id?: string };
  return JSON.parse(JSON.stringify(rest)) as Json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Query parameters from an object schema's properties (required ones marked). */
function queryParameters(schema: { properties: object; required?: readonly string[] }, omit: readonly string[] = []): Json[] {
  return Object.entries(schema.properties)
    .filter(([name]) => !omit.includes(name))
    .map(([name, s]) => {
      const { description, ...rest } = s as Json;
      return {
        name,
        in: 'query',
        required: schema.required?.includes(name) ?? false,
        ...(description ? { description } : {}),
        schema: JSON.parse(JSON.stringify(rest)) as Json,
      };
    });
}

/** An error response whose body is the error object with one of the given codes. */
function errorResponse(description: string, codes: readonly ErrorCode[], headers: Json = {}): Json {
  return {
    description: `${description} Codes: ${codes.join(', ')}.`,
    ...(Object.keys(headers).length ? { headers } : {}),
    content: {
      'application/json': {
        schema: { allOf: [ref('ErrorObject'), { properties: { error: { enum: [...codes] } } }] },
      },
    },
  };
}

const json = (schema: Json, description: string, headers: Json = {}): Json => ({
  description,
  ...(Object.keys(headers).length ? { headers } : {}),
  content: { 'application/json': { schema } },
});

const binary = { type: 'string', contentMediaType: 'application/octet-stream' };
const imageContent = (pdf = false) => ({
  'image/png': { schema: { ...binary, contentMediaType: 'image/png' } },
  'image/svg+xml': { schema: { type: 'string', contentMediaType: 'image/svg+xml' } },
  ...(pdf ? { 'application/pdf': { schema: { ...binary, contentMediaType: 'application/pdf' } } } : {}),
});

const rateLimitHeaders = {
  'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
};
const retryAfter = { 'Retry-After': headerRef('Retry-After') };

const keyAuth = [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }];
const sessionAuth = [{ BearerSession: [] }];
const noAuth: Json[] = [];

/** Error responses every authenticated, rendering endpoint may give. */
function renderErrors(badCodes: readonly ErrorCode[]): Json {
  return {
    '400': errorResponse('Invalid request.', badCodes, rateLimitHeaders),
    '401': errorResponse('Missing or invalid API key (or signature).', ['unauthorized']),
    '403': errorResponse('The account is suspended or cancelled: new charts are disabled.', ['forbidden'], rateLimitHeaders),
    '429': errorResponse('Rate limit or trial cap reached.', ['rate_limit_exceeded', 'trial_limit_reached'], { ...retryAfter, ...rateLimitHeaders }),
    '500': errorResponse('Server or rendering error.', ['internal_error', 'render_failed']),
    '503': errorResponse('Every renderer is busy; retry after Retry-After seconds.', ['service_unavailable'], retryAfter),
  };
}

const CHART_BAD: readonly ErrorCode[] = ['invalid_input', 'chart_required', 'invalid_dimensions'];

const chartIdParam = { name: 'id', in: 'path', required: true, description: chartIdParameterSchema.description, schema: toOpenApiSchema(chartIdParameterSchema) };

function paths(): Json {
  const chartImage = { description: 'The image.', headers: rateLimitHeaders, content: imageContent(true) };
  const out: Json = {
    '/v1/chart': {
      get: {
        tags: ['Charts'],
        operationId: 'renderChartGet',
        summary: 'Render a chart from query parameters (API key or signed URL)',
        description:
          'Counts as a generation. A signed URL carries key_id, exp and sig (last) instead of a key: sig = HMAC-SHA256 (lowercase hex) with the signing secret over the raw query string before `&sig=`.',
        security: [...keyAuth, { SignedUrl: [] }],
        parameters: queryParameters(chartRequestQuerySchema, ['api_key', 'sig']),
        responses: { '200': chartImage, ...renderErrors([...CHART_BAD]) },
      },
      post: {
        tags: ['Charts'],
        operationId: 'renderChart',
        summary: 'Render a chart: the image is the response',
        description: 'Counts as a generation. Handles large configs and function strings (run only inside the sandboxed page).',
        security: keyAuth,
        requestBody: { required: true, content: { 'application/json': { schema: ref('ChartRequest') } } },
        responses: { '200': chartImage, ...renderErrors([...CHART_BAD]) },
      },
    },
    '/v1/chart/create': {
      post: {
        tags: ['Short charts'],
        operationId: 'createShortChart',
        summary: 'Render and keep a chart behind a permanent short URL',
        description: 'Counts as a generation. The URL exposes no key or secret and is served without credentials.',
        security: keyAuth,
        requestBody: { required: true, content: { 'application/json': { schema: ref('ChartRequest') } } },
        responses: { '201': json(ref('ShortChart'), 'Created.', rateLimitHeaders), ...renderErrors([...CHART_BAD]) },
      },
    },
    '/v1/chart/{id}': {
      get: {
        tags: ['Short charts'],
        operationId: 'getShortChart',
        summary: 'The image behind a short URL (no credentials; not a generation)',
        security: noAuth,
        parameters: [chartIdParam],
        responses: {
          '200': { description: 'The cached image.', headers: shortChartHeaders, content: imageContent(true) },
          '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: shortChartHeaders },
          '404': errorResponse('No such chart.', ['not_found']),
          '500': errorResponse('A re-render after cache expiry failed.', ['internal_error', 'render_failed']),
          '503': errorResponse('Every renderer is busy.', ['service_unavailable'], retryAfter),
        },
      },
    },
    '/v1/chart/{id}/download': {
      get: {
        tags: ['Short charts'],
        operationId: 'downloadShortChart',
        summary: 'The image behind a short URL, as an attachment (download_url of the automation endpoints)',
        security: noAuth,
        parameters: [chartIdParam],
        responses: {
          '200': {
            description: 'The image, with Content-Disposition: attachment.',
            headers: { 'Content-Disposition': headerRef('Content-Disposition'), 'Cache-Control': headerRef('Cache-Control') },
            content: imageContent(true),
          },
          '404': errorResponse('No such chart.', ['not_found']),
          '500': errorResponse('A re-render after cache expiry failed.', ['internal_error', 'render_failed']),
        },
      },
    },
    '/v1/chart/{id}/preview': {
      get: {
        tags: ['Short charts'],
        operationId: 'previewShortChart',
        summary: 'An HTML page showing the chart (preview_url of the automation endpoints)',
        security: noAuth,
        parameters: [chartIdParam],
        responses: {
          '200': { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } },
          '404': errorResponse('No such chart.', ['not_found']),
        },
      },
    },
    '/v1/metrics/{id}': {
      get: {
        tags: ['Short charts'],
        operationId: 'getChartMetrics',
        summary: "Counters of one of the caller's short charts (not a generation)",
        security: keyAuth,
        parameters: [chartIdParam],
        responses: {
          '200': json(ref('Metrics'), 'Chart metrics (avgRenderTime in milliseconds).', rateLimitHeaders),
          '401': errorResponse('Missing or invalid API key.', ['unauthorized']),
          '404': errorResponse("No such chart, or another account's chart.", ['not_found']),
          '429': errorResponse('Rate limit reached.', ['rate_limit_exceeded'], { ...retryAfter, ...rateLimitHeaders }),
        },
      },
    },
    '/v1/open/chart': {
      get: {
        tags: ['Open'],
        operationId: 'renderOpenChart',
        summary: 'Render without credentials (per-IP limit, watermarked)',
        description:
          'Either c, or type with data. The whole URL at most 8192 bytes (url_too_long), c at most 6144 bytes (config_too_large). Executable-looking strings, a top-level plugins array and remote URLs outside data are refused (invalid_config). Cache misses are limited per IP and hour (rate_limited); cache hits are not.',
        security: noAuth,
        parameters: queryParameters(openChartQuerySchema),
        responses: {
          '200': { description: 'The watermarked image.', headers: openChartResponseHeaders, content: imageContent() },
          '304': { description: 'Not modified.', headers: openChartResponseHeaders },
          '400': errorResponse('Invalid request.', ['url_too_long', 'config_too_large', 'invalid_config']),
          '429': errorResponse('Per-IP cap of cache-miss renders reached.', ['rate_limited'], retryAfter),
          '500': errorResponse('Rendering failed.', ['render_failed', 'internal_error']),
          '503': errorResponse('Every renderer is busy.', ['service_unavailable'], retryAfter),
        },
      },
    },
    '/v1/status': {
      get: {
        tags: ['Operations'],
        operationId: 'getStatus',
        summary: 'Health: healthy only when the page pool can render (degraded otherwise, still 200)',
        security: noAuth,
        responses: { '200': json(ref('Status'), 'Health status.', { 'Cache-Control': headerRef('Cache-Control') }) },
      },
    },
    '/signup/anon': {
      post: {
        tags: ['Trial'],
        operationId: 'signupAnon',
        summary: 'Issue a trial API key (30 days, 100 generations; one per IP per 30 days)',
        security: noAuth,
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', description: 'Optional; an empty object.' } } } },
        responses: {
          '200': json(ref('TrialKey'), 'The trial key (shown once).'),
          '429': errorResponse('One trial per IP per 30 days.', ['rate_limit_exceeded', 'rate_limited'], retryAfter),
          '500': errorResponse('Server error.', ['internal_error']),
        },
      },
    },
    '/usage/analytics': {
      get: {
        tags: ['Account'],
        operationId: 'getUsageAnalytics',
        summary: "The account's usage in the current period and quick statistics",
        security: sessionAuth,
        parameters: queryParameters(analyticsQuerySchema),
        responses: {
          '200': json(ref('UsageAnalytics'), 'Usage analytics.'),
          '400': errorResponse('Invalid days.', ['invalid_input']),
          '401': errorResponse('Invalid or expired session token.', ['invalid_session']),
        },
      },
    },
    '/billing/info': {
      get: {
        tags: ['Account'],
        operationId: 'getBillingInfo',
        summary: 'Plan, billing cycle, period and amount due',
        security: sessionAuth,
        responses: { '200': json(ref('BillingInfo'), 'Billing info.'), '401': errorResponse('Invalid or expired session token.', ['invalid_session']) },
      },
    },
    '/billing/invoices': {
      get: {
        tags: ['Account'],
        operationId: 'listInvoices',
        summary: "The account's invoices",
        security: sessionAuth,
        responses: { '200': json(ref('InvoiceList'), 'Invoice list.'), '401': errorResponse('Invalid or expired session token.', ['invalid_session']) },
      },
    },
    '/billing/invoices/{id}/pdf': {
      get: {
        tags: ['Account'],
        operationId: 'getInvoicePdf',
        summary: 'An invoice as a PDF document (download_url of the invoice list)',
        security: sessionAuth,
        parameters: [{ name: 'id', in: 'path', required: true, description: 'Invoice id.', schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The invoice.', content: { 'application/pdf': { schema: { ...binary, contentMediaType: 'application/pdf' } } } },
          '401': errorResponse('Invalid or expired session token.', ['invalid_session']),
          '404': errorResponse("No such invoice, or another account's.", ['not_found']),
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['Operations'],
        operationId: 'getPrometheusMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        description: 'With METRICS_TOKEN set: Authorization: Bearer <METRICS_TOKEN>. Without it: loopback clients only.',
        security: [{ MetricsToken: [] }, {}],
        responses: {
          '200': { description: 'Metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': errorResponse('METRICS_TOKEN is set and the bearer token is missing or wrong.', ['unauthorized']),
          '403': errorResponse('METRICS_TOKEN is unset and the client is not on loopback.', ['forbidden']),
        },
      },
    },
    '/openapi.json': {
      get: {
        tags: ['Operations'],
        operationId: 'getOpenApi',
        summary: 'This document',
        security: noAuth,
        responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/playground': {
      get: {
        tags: ['Open'],
        operationId: 'playground',
        summary: 'Editor page for open-endpoint charts (the target of X-Edit-Url)',
        security: noAuth,
        parameters: [{ name: 'c', in: 'query', required: false, description: 'Chart.js config to open.', schema: { type: 'string' } }],
        responses: { '200': { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
  };
  for (const ep of automationEndpoints) {
    out[ep.path] = {
      post: {
        tags: ['Automation'],
        operationId: `zapier${ep.kind[0]!.toUpperCase()}${ep.kind.slice(1)}Chart`,
        summary: ep.summary,
        description:
          'Counts as one generation. The chart is kept behind a permanent short URL; chart_url serves the image, download_url serves it as an attachment, preview_url is an HTML page showing it. Every bad input is 400 invalid_input with a detail naming the field. Numbers and booleans may also be sent as strings ("800", "true").',
        security: keyAuth,
        requestBody: { required: true, content: { 'application/json': { schema: ref(ep.schema.$id) } } },
        responses: {
          '201': json(ref('AutomationResult'), 'Created.', rateLimitHeaders),
          ...renderErrors(['invalid_input']),
        },
      },
    };
  }
  return out;
}

function components(): Json {
  const schemas: Json = {
    ErrorObject: toOpenApiSchema(errorObjectSchema),
    ChartRequest: {
      ...toOpenApiSchema(chartRequestBodySchema),
      description: 'A chart request: a Chart.js config (chart or c), width and height (missing: 400 invalid_dimensions), format, backgroundColor.',
      required: ['width', 'height'],
    },
    ShortChart: toOpenApiSchema(shortChartSchema),
    Metrics: toOpenApiSchema(chartMetricsSchema),
    Status: toOpenApiSchema(statusSchema),
    AutomationResult: toOpenApiSchema(automationResultSchema),
    UsageAnalytics: toOpenApiSchema(usageAnalyticsSchema),
    BillingInfo: toOpenApiSchema(billingInfoSchema),
    InvoiceList: toOpenApiSchema(invoiceListSchema),
    TrialKey: toOpenApiSchema(trialKeySchema),
  };
  for (const ep of automationEndpoints) schemas[ep.schema.$id] = toOpenApiSchema(ep.schema);
  // Every authenticated response carries the rate-limit headers; every 429/503 carries Retry-After.
  const intHeader = (description: string) => ({ description, required: true, schema: { type: 'integer' } });
  return {
    schemas,
    securitySchemes: {
      ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'API key: live_ (paid plans), trial_ (trial), pk_test_ (test keys: watermarked, not counted).' },
      ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'The API key as a query parameter.' },
      SignedUrl: {
        type: 'apiKey',
        in: 'query',
        name: 'sig',
        description: 'GET /v1/chart only: with key_id and exp (Unix seconds, at most a year ahead); sig is HMAC-SHA256 (hex) of the raw query string before &sig=, keyed with the signing secret.',
      },
      BearerSession: { type: 'http', scheme: 'bearer', description: 'Session token (Authorization: Bearer <SESSION_TOKEN>), issued by `chartshot sessions create`.' },
      MetricsToken: { type: 'http', scheme: 'bearer', description: 'GET /metrics only: Authorization: Bearer <METRICS_TOKEN>, when the operator set one.' },
    },
    headers: {
      'X-RateLimit-Limit': intHeader('Requests allowed in the current window.'),
      'X-RateLimit-Remaining': intHeader('Requests left in the current window.'),
      'X-RateLimit-Reset': intHeader('When the window resets, Unix seconds.'),
      'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
      'Cache-Control': { description: 'Caching policy of the response.', schema: { type: 'string' } },
      'Content-Disposition': { description: 'attachment; filename="chart-<id>.<ext>"', schema: { type: 'string' } },
      'X-Cache-Tier': { description: 'edge (memory), r2 (persistent cache) or miss (rendered now).', schema: { type: 'string', enum: ['edge', 'r2', 'miss'] } },
      'X-Edit-Url': { description: 'The playground page opened on this chart.', schema: { type: 'string', format: 'uri' } },
      Link: { description: '<X-Edit-Url>; rel="edit"', schema: { type: 'string' } },
    },
  };
}

/** The whole document; `serverUrl` is PUBLIC_BASE_URL. */
export function buildOpenApi(serverUrl: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'chartshot',
      version: OPENAPI_VERSION,
      summary: 'Chart.js 4 configurations rendered to PNG and SVG in real Chromium.',
      description:
        'Authenticated endpoints take the API key in the X-Api-Key header or the api_key query parameter, and answer with X-RateLimit-Limit/-Remaining/-Reset. Errors are `{error, detail}` with the codes listed per response.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: 'Charts', description: 'Direct renders: the image is the response.' },
      { name: 'Short charts', description: 'Permanent short URLs and their counters.' },
      { name: 'Open', description: 'No credentials; rate limited per IP; watermarked.' },
      { name: 'Automation', description: 'Zapier-style endpoints: simple inputs, JSON with URLs.' },
      { name: 'Trial', description: 'Trial keys without an account.' },
      { name: 'Account', description: 'Usage and billing (session token).' },
      { name: 'Operations', description: 'Health, metrics and this document.' },
    ],
    paths: paths(),
    components: components(),
  };
}
