// The OpenAPI 3.1 document (version 1.0.0), generated from the route table: paths, methods,
// security, parameters, bodies, responses and error codes all come from the route descriptors.
import { chartRequestBodySchema } from './schemas/chart.js';
import { chartMetricsSchema, shortChartSchema } from './schemas/shortCharts.js';
import {
  automationResultSchema, billingInfoSchema, errorObjectSchema, invoiceListSchema, pressureSchema, statusSchema, trialKeySchema, usageAnalyticsSchema,
} from './schemas/responses.js';
import type { ErrorDoc, ParamDoc, RouteAuth, RouteDescriptor } from './route.js';
import { schemaRef } from './routeDocs.js';
import { ERROR_EXAMPLES, REQUEST_EXAMPLES } from './examples.js';

type Json = Record<string, unknown>;

const OPENAPI_VERSION = '1.0.0';

/** A JSON Schema as OpenAPI 3.1 embeds it: without $id (it would change how $refs resolve). */
function toOpenApiSchema(schema: object): Json {
  const { $id: _id, ...rest } = schema as Json & { $id?: string };
  return JSON.parse(JSON.stringify(rest)) as Json;
}

const keyAuth = [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }];
const quickChartKey = [...keyAuth, { QuickChartKey: [] }];
/** Each documented route's security, from the auth its descriptor declares (the router's guard); `{}`: credentials optional. */
export const SECURITY: Record<Exclude<RouteAuth, 'dashboardSession'>, Json[]> = {
  none: [],
  apiKey: keyAuth,
  apiKeyOrSigned: [...keyAuth, { SignedUrl: [] }],
  session: [{ BearerSession: [] }],
  metricsToken: [{ MetricsToken: [] }, {}],
  quickchartKey: quickChartKey,
  quickchartKeyOptional: [...quickChartKey, {}],
};

function securityOf(r: RouteDescriptor): Json[] {
  // the dashboard's pages are not in the document (route.ts isDocumented)
  if (r.auth === 'dashboardSession') throw new Error(`${r.method} ${r.path}: a page's session is not an API credential`);
  return SECURITY[r.auth];
}
/** Query parameters that carry credentials: documented by the security schemes, not as parameters. */
const CREDENTIAL_PARAMS: Partial<Record<RouteAuth, readonly string[]>> = { apiKey: ['api_key'], apiKeyOrSigned: ['api_key', 'sig'] };

/** Query parameters from an object schema's properties (required ones marked), with their example values. */
function queryParameters(schema: { properties?: object; required?: readonly string[] }, omit: readonly string[] = [], examples: Record<string, unknown> = {}): Json[] {
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => !omit.includes(name))
    .map(([name, s]) => {
      const { description, ...rest } = s as Json;
      return {
        name,
        in: 'query',
        required: schema.required?.includes(name) ?? false,
        ...(description ? { description } : {}),
        schema: JSON.parse(JSON.stringify(rest)) as Json,
        ...(examples[name] !== undefined ? { example: examples[name] } : {}),
      };
    });
}

const param = (name: string, where: 'path' | 'query', p: ParamDoc): Json => ({
  name,
  in: where,
  required: where === 'path',
  description: p.description,
  schema: toOpenApiSchema(p.schema),
});

/** An error response whose body is the error object with one of the given codes. */
function errorResponse(e: ErrorDoc): Json {
  return {
    description: `${e.description} Codes: ${e.codes.join(', ')}.`,
    ...(e.headers && Object.keys(e.headers).length ? { headers: e.headers } : {}),
    content: e.content ?? {
      'application/json': {
        schema: { allOf: [schemaRef('ErrorObject'), { properties: { error: { enum: [...e.codes] } } }] },
        // one example per code, so each status shows the codes it really answers with
        examples: Object.fromEntries(e.codes.map((code) => [code, { summary: code, value: { error: code, detail: ERROR_EXAMPLES[code] } }])),
      },
    },
  };
}

/** /v1/chart/:id -> /v1/chart/{id} */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function operation(r: RouteDescriptor, schemas: Json): Json {
  const pathParams = [...r.path.matchAll(/:(\w+)/g)].map(([, name]) => {
    const p = r.doc.params?.[name!];
    if (!p) throw new Error(`${r.method} ${r.path}: path parameter ${name} is not described`);
    return param(name!, 'path', p);
  });
  const example = REQUEST_EXAMPLES[`${r.method} ${r.path}`];
  const query = r.input?.in === 'query' ? queryParameters(r.input.schema, CREDENTIAL_PARAMS[r.auth], example?.query) : [];
  const page = Object.entries(r.doc.pageQuery ?? {}).map(([name, p]) => param(name, 'query', p));
  const parameters = [...pathParams, ...query, ...page];
  let requestBody: Json | undefined;
  if (r.input?.in === 'body') {
    const id = (r.input.schema as { $id?: string }).$id;
    if (id) schemas[id] ??= toOpenApiSchema(r.input.schema);
    const media: Json = { schema: id ? schemaRef(id) : toOpenApiSchema(r.input.schema) };
    if (example?.body !== undefined) media.example = example.body;
    requestBody = { required: !r.input.optional, content: { 'application/json': media } };
  }
  const responses: Json = { ...r.responses };
  for (const [status, e] of Object.entries(r.errors)) responses[status] = errorResponse(e);
  return {
    tags: r.doc.tags,
    operationId: r.doc.operationId,
    summary: r.doc.summary,
    ...(r.doc.description ? { description: r.doc.description } : {}),
    security: securityOf(r),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

function paths(routes: readonly RouteDescriptor[], schemas: Json): Json {
  const out: Record<string, Json> = {};
  for (const r of routes) {
    const item = (out[openApiPath(r.path)] ??= {});
    const method = r.method.toLowerCase();
    if (item[method]) throw new Error(`${r.method} ${r.path} is in the route table twice`);
    item[method] = operation(r, schemas);
  }
  return out;
}

function componentSchemas(): Json {
  return {
    ErrorObject: toOpenApiSchema(errorObjectSchema),
    ChartRequest: {
      ...toOpenApiSchema(chartRequestBodySchema),
      description: 'A chart request: a Chart.js config (chart or c), width and height (missing: 400 invalid_dimensions), format, backgroundColor.',
      required: ['width', 'height'],
    },
    ShortChart: toOpenApiSchema(shortChartSchema),
    Metrics: toOpenApiSchema(chartMetricsSchema),
    Status: toOpenApiSchema(statusSchema),
    Pressure: toOpenApiSchema(pressureSchema),
    AutomationResult: toOpenApiSchema(automationResultSchema),
    UsageAnalytics: toOpenApiSchema(usageAnalyticsSchema),
    BillingInfo: toOpenApiSchema(billingInfoSchema),
    InvoiceList: toOpenApiSchema(invoiceListSchema),
    TrialKey: toOpenApiSchema(trialKeySchema),
  };
}

function components(schemas: Json): Json {
  // Every authenticated response carries the rate-limit headers; every 429/503 carries Retry-After.
  const intHeader = (description: string) => ({ description, required: true, schema: { type: 'integer' } });
  return {
    schemas,
    securitySchemes: {
      ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'API key: live_ (paid plans), trial_ (trial), pk_test_ (test keys: watermarked, not counted).' },
      ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'The API key as a query parameter.' },
      QuickChartKey: {
        type: 'apiKey',
        in: 'query',
        name: 'key',
        description: "QuickChart's routes only: the API key as the key parameter; on POST also the JSON body's key or api_key field (QuickChart's clients send it there).",
      },
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

/** The whole document of `routes`; `serverUrl` is PUBLIC_BASE_URL. */
export function buildOpenApi(serverUrl: string, routes: readonly RouteDescriptor[]): Json {
  // Request bodies add their schemas (by $id) to the shared ones.
  const schemas = componentSchemas();
  const documented = paths(routes, schemas);
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
    paths: documented,
    components: components(schemas),
  };
}
