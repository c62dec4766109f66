// JSON Schemas of the automation-style (Zapier-style) endpoints, multi-series included. They
// are validated with type coercion and defaults (form tools send "800" and "true"), and the
// same objects build the OpenAPI document, defaults included.
import { localeSchema, timezoneSchema } from './chart.js';

const dimension = (what: string, def: number) =>
  ({
    type: 'integer',
    minimum: 1,
    maximum: 8000,
    default: def,
    description: `${what} in pixels (1-2000 on trial and starter, 4000 on growth, 8000 on enterprise).`,
  }) as const;

const common = (width: number, height: number) =>
  ({
    title: { type: 'string', minLength: 1, maxLength: 300, description: 'Chart title, also the dataset label.' },
    labels: { type: 'string', minLength: 1, description: 'Comma-separated labels, e.g. "Q1,Q2,Q3,Q4" (at most 1000).' },
    width: dimension('Width', width),
    height: dimension('Height', height),
    format: { type: 'string', enum: ['png', 'svg'], default: 'png', description: 'Image format.' },
    backgroundColor: { type: 'string', maxLength: 100, default: 'white', description: 'CSS colour behind the chart (transparent allowed).' },
    w: { description: 'Alias of width.' },
    h: { description: 'Alias of height.' },
    bkg: { description: 'Alias of backgroundColor.' },
    f: { description: 'Alias of format.' },
    timezone: timezoneSchema,
    locale: localeSchema,
  }) as const;

const values = {
  type: 'string',
  minLength: 1,
  description: 'Comma-separated numbers, one per label, e.g. "12,19,3,5".',
} as const;

const showLegend = { type: 'boolean', default: true, description: 'Show the legend.' } as const;
const showGrid = { type: 'boolean', default: true, description: 'Show the grid lines.' } as const;
const hexColor = (def: string) =>
  ({ type: 'string', maxLength: 100, default: def, description: `Colour (hex such as ${def}, or any CSS colour).` }) as const;

export const barChartSchema = {
  $id: 'ZapierBarChart',
  type: 'object',
  required: ['title', 'labels', 'values'],
  properties: {
    ...common(800, 400),
    values,
    color: hexColor('#3B82F6'),
    showLegend,
    showGrid,
  },
} as const;

export const lineChartSchema = {
  $id: 'ZapierLineChart',
  type: 'object',
  required: ['title', 'labels', 'values'],
  properties: {
    ...common(800, 400),
    values,
    color: hexColor('#10B981'),
    fillArea: { type: 'boolean', default: false, description: 'Fill the area under the line.' },
    showPoints: { type: 'boolean', default: true, description: 'Draw a point at each value.' },
    tension: { type: 'number', minimum: 0, maximum: 1, default: 0.4, description: 'Curve smoothing: 0 straight lines, 1 smoothest.' },
    showLegend,
    showGrid,
  },
} as const;

export const pieChartSchema = {
  $id: 'ZapierPieChart',
  type: 'object',
  required: ['title', 'labels', 'values'],
  properties: {
    ...common(500, 500),
    values: { ...values, description: 'Comma-separated non-negative numbers, one per label.' },
    colors: { type: 'string', description: 'Optional comma-separated slice colours, e.g. "#EF4444,#10B981"; cycled when fewer than labels.' },
    showLegend,
    legendPosition: { type: 'string', enum: ['top', 'bottom', 'left', 'right'], default: 'bottom', description: 'Where the legend goes.' },
  },
} as const;

export const seriesItemSchema = {
  type: 'object',
  required: ['name', 'values'],
  properties: {
    name: { type: 'string', minLength: 1, description: 'Series name (legend entry).' },
    values: { ...values, description: 'Comma-separated numbers, as many as labels.' },
    color: { type: 'string', maxLength: 100, description: 'Series colour; a palette colour when absent.' },
  },
} as const;

export const multiSeriesChartSchema = {
  $id: 'ZapierMultiSeriesChart',
  type: 'object',
  required: ['title', 'labels', 'series'],
  properties: {
    ...common(800, 400),
    series: {
      type: ['array', 'string'],
      minItems: 1,
      maxItems: 3,
      items: seriesItemSchema,
      description: '1 to 3 series: an array of {name, values, color?}, or a JSON string of such an array.',
    },
    type: { type: 'string', enum: ['bar', 'line'], default: 'bar', description: 'Chart type of every series.' },
    showLegend,
    showGrid,
  },
} as const;

export const automationEndpoints = [
  { path: '/v1/zapier/bar-chart', kind: 'bar', schema: barChartSchema, summary: 'Bar chart from comma-separated labels and values' },
  { path: '/v1/zapier/line-chart', kind: 'line', schema: lineChartSchema, summary: 'Line chart from comma-separated labels and values' },
  { path: '/v1/zapier/pie-chart', kind: 'pie', schema: pieChartSchema, summary: 'Pie chart from comma-separated labels and values' },
  { path: '/v1/zapier/multi-series-chart', kind: 'multi', schema: multiSeriesChartSchema, summary: 'Bar or line chart comparing up to 3 series' },
] as const;
