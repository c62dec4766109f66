// The MCP tools: names, descriptions and input schemas, made of the same JSON Schemas as the
// HTTP routes (src/http/schemas/chart.ts), and the check of a call's arguments against them,
// worded as the HTTP routes word a schema failure.
import { Ajv, type ValidateFunction } from 'ajv';
import { chartjsVersionSchema, commonProperties, devicePixelRatioSchema } from '../http/schemas/chart.js';
import { schemaMessage } from '../http/validate.js';
import { chartRequired, invalidDimensions, invalidInput } from '../errors.js';
import { sideRange } from '../chart/request.js';
import { malformedZoneField } from '../chart/zoneLocale.js';
import type { Plan } from '../rules/plans.js';

export const TOOL_NAMES = ['render_chart', 'create_short_url', 'validate_config', 'list_chart_types'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** The arguments of a chart request, as render_chart, create_short_url and validate_config take them. */
export interface ChartArgs {
  chart?: unknown;
  width?: unknown;
  height?: unknown;
  format?: unknown;
  backgroundColor?: unknown;
  devicePixelRatio?: unknown;
  version?: unknown;
  timezone?: unknown;
  locale?: unknown;
  shortUrl?: unknown;
}

const chartArgProperties = {
  chart: { ...commonProperties.chart, description: `${commonProperties.chart.description} Chart.js 2 and 3 configs with version 2 or 3.` },
  width: commonProperties.width,
  height: commonProperties.height,
  // PDF has no MCP content type: png or svg here
  format: { type: 'string', enum: ['png', 'svg'], default: 'png', description: 'png (an image content block, base64) or svg (an embedded image/svg+xml resource holding the SVG text).' },
  backgroundColor: commonProperties.backgroundColor,
  devicePixelRatio: devicePixelRatioSchema,
  version: chartjsVersionSchema,
  timezone: commonProperties.timezone,
  locale: commonProperties.locale,
} as const;

const chartArgs = (extra: object = {}) => ({
  type: 'object',
  properties: { ...chartArgProperties, ...extra },
  required: ['chart', 'width', 'height'],
});

export interface ToolDefinition {
  name: ToolName;
  description: string;
  inputSchema: { type: 'object'; properties?: Record<string, object>; required?: string[] };
}

export const TOOLS: Readonly<Record<ToolName, ToolDefinition>> = {
  render_chart: {
    name: 'render_chart',
    description:
      'Render a Chart.js config to an image (as POST /v1/chart). PNG comes back as an image content block; SVG as an embedded resource (image/svg+xml) holding the SVG text. With shortUrl true the chart is also kept behind a permanent short URL (as POST /v1/chart/create), returned beside the image. Over HTTP it counts as one generation of the API key\'s plan.',
    inputSchema: chartArgs({
      shortUrl: { type: 'boolean', default: false, description: 'Also keep the chart behind a permanent short URL, served without credentials (HTTP transport only).' },
    }) as ToolDefinition['inputSchema'],
  },
  create_short_url: {
    name: 'create_short_url',
    description:
      'Render a Chart.js config and keep it behind a permanent short URL served without credentials (as POST /v1/chart/create); returns the URL and id, not the image. Counts as one generation. HTTP transport only (it needs the server\'s store).',
    inputSchema: chartArgs() as ToolDefinition['inputSchema'],
  },
  validate_config: {
    name: 'validate_config',
    description:
      'Check a chart request as a render would, without drawing or counting it: the same error codes, details and hints (a Chart.js 2 config sent to version 4, a bare config without the chart wrapper, sizes over the plan\'s caps...). Answers {"valid": true, ...the request as it would be drawn} or {"valid": false, "error": code, "detail": text}.',
    inputSchema: chartArgs() as ToolDefinition['inputSchema'],
  },
  list_chart_types: {
    name: 'list_chart_types',
    description: 'The chart types and plugins each Chart.js version can draw here (4 is the default; 2 carries QuickChart\'s own types: radialGauge, boxplot, violin, sparkline...).',
    inputSchema: {
      type: 'object',
      properties: { version: { ...chartjsVersionSchema, description: 'Only this Chart.js version (2, 3 or 4); all of them when absent.' } },
    },
  },
};

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
const checks = new Map<ToolName, ValidateFunction>(TOOL_NAMES.map((n) => [n, ajv.compile(TOOLS[n].inputSchema)]));

/**
 * The arguments, once they passed the tool's schema; else the error the HTTP route would answer
 * (width and height worded for the caller's plan, as the route words them).
 */
export function checkArguments(tool: ToolName, args: unknown, plan: Plan): Record<string, unknown> {
  const input = args === undefined || args === null ? {} : args;
  if (typeof input !== 'object' || Array.isArray(input)) throw invalidInput('the arguments must be an object');
  const check = checks.get(tool)!;
  if (check(input)) return input as Record<string, unknown>;
  const e = check.errors![0]!;
  const field = (e.instancePath.replace(/^\//, '').split('/')[0] || (e.params as { missingProperty?: string }).missingProperty) ?? '';
  return fail(field, e.keyword === 'required' ? 'is required' : schemaMessage(e), e.keyword, plan);
}

function fail(field: string, message: string, keyword: string, plan: Plan): never {
  if (field === 'chart' && keyword === 'required') throw chartRequired('chart is required');
  if (field === 'timezone' || field === 'locale') throw malformedZoneField(field);
  if (field === 'width' || field === 'height') throw invalidDimensions(keyword === 'required' ? `${field} is required` : sideRange(field, plan));
  throw invalidInput(`${field || 'arguments'} ${message}`);
}
