// Automation-style (Zapier-style) inputs -> Chart.js configs (pure): comma-separated lists are
// parsed and checked, and every bad value becomes 400 invalid_input naming its field.
import { invalidInput } from '../errors.js';
import { checkColor, type ChartConfig } from './request.js';

export type AutomationKind = 'bar' | 'line' | 'pie' | 'multi';

interface Common {
  title: string;
  labels: string;
  width: number;
  height: number;
  format: 'png' | 'svg';
  backgroundColor: string;
  /** IANA time zone and BCP 47 locale the chart is drawn in (checked with every chart request's); absent: TIMEZONE and LOCALE. */
  timezone?: string;
  locale?: string;
}

export interface BarInput extends Common {
  values: string;
  color: string;
  showLegend: boolean;
  showGrid: boolean;
}

export interface LineInput extends BarInput {
  fillArea: boolean;
  showPoints: boolean;
  tension: number;
}

export interface PieInput extends Common {
  values: string;
  colors?: string;
  showLegend: boolean;
  legendPosition: 'top' | 'bottom' | 'left' | 'right';
}

export interface SeriesInput {
  name: string;
  values: string;
  color?: string;
}

export interface MultiSeriesInput extends Common {
  series: SeriesInput[] | string;
  type: 'bar' | 'line';
  showLegend: boolean;
  showGrid: boolean;
}

/** What the chart services take: the fields of a chart request. */
export interface AutomationChart {
  chart: ChartConfig;
  width: number;
  height: number;
  format: 'png' | 'svg';
  backgroundColor: string;
}

export const MAX_POINTS = 1000;
export const MAX_SERIES = 3;

/** Series and slice colours used when none are given (Tailwind 500s: distinct, readable on white). */
export const PALETTE = ['#3B82F6', '#10B981', '#F59E0B', '#EF4444', '#8B5CF6', '#EC4899', '#14B8A6', '#F97316', '#6366F1', '#84CC16'] as const;

// Inputs arrive already shaped by the JSON Schemas in http/schemas/automation.ts (defaults
// applied, types coerced).
/** Splits a comma-separated list; commas inside parentheses (rgb(1, 2, 3)) do not split. */
export function splitList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

export function parseLabels(text: string, field = 'labels'): string[] {
  const labels = splitPlain(text);
  if (labels.length === 0 || (labels.length === 1 && labels[0] === '')) throw invalidInput(`${field} must list at least one label`);
  if (labels.length > MAX_POINTS) throw invalidInput(`${field} has ${labels.length} entries; at most ${MAX_POINTS}`);
  return labels;
}

/** Comma-separated numbers ("1, 2.5, -3", "1e3"); anything else names the field and the entry. */
export function parseValues(text: string, field = 'values'): number[] {
  const parts = splitPlain(text);
  if (parts.length > MAX_POINTS) throw invalidInput(`${field} has ${parts.length} entries; at most ${MAX_POINTS}`);
  return parts.map((p, i) => {
    const n = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(p) ? Number(p) : NaN;
    if (!Number.isFinite(n)) throw invalidInput(`${field}: entry ${i + 1} ("${p.slice(0, 40)}") is not a number`);
    return n;
  });
}

function splitPlain(text: string): string[] {
  return text.split(',').map((s) => s.trim());
}

function pairs(labels: string[], values: number[], field = 'values'): void {
  if (values.length !== labels.length) {
    throw invalidInput(`${field} has ${values.length} entries but labels has ${labels.length}; give one value per label`);
  }
}

function color(value: string, field: string): string {
  const c = checkColor(value, field);
  if (c === null) throw invalidInput(`${field} must be a CSS colour such as #3B82F6`);
  return c;
}

/** A translucent version of a colour, for filled areas (hex only; other forms stay as given). */
export function translucent(c: string, alpha = 0.2): string {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(c);
  if (!m) return c;
  const hex = m[1]!.length === 3 ? [...m[1]!].map((x) => x + x).join('') : m[1]!;
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

function common(input: Common): Omit<AutomationChart, 'chart'> {
  return {
    width: input.width,
    height: input.height,
    format: input.format,
    backgroundColor: color(input.backgroundColor, 'backgroundColor'),
  };
}

function titlePlugin(title: string) {
  return { display: true, text: title, font: { size: 16 } };
}

function axes(showGrid: boolean) {
  return { x: { grid: { display: showGrid } }, y: { beginAtZero: true, grid: { display: showGrid } } };
}

export function barChart(input: BarInput): AutomationChart {
  const labels = parseLabels(input.labels);
  const values = parseValues(input.values);
  pairs(labels, values);
  const c = color(input.color, 'color');
  return {
    ...common(input),
    chart: {
      type: 'bar',
      data: { labels, datasets: [{ label: input.title, data: values, backgroundColor: c, borderColor: c, borderWidth: 1 }] },
      options: {
        plugins: { title: titlePlugin(input.title), legend: { display: input.showLegend } },
        scales: axes(input.showGrid),
      },
    },
  };
}

export function lineChart(input: LineInput): AutomationChart {
  const labels = parseLabels(input.labels);
  const values = parseValues(input.values);
  pairs(labels, values);
  if (!(input.tension >= 0 && input.tension <= 1)) throw invalidInput('tension must be between 0 and 1');
  const c = color(input.color, 'color');
  return {
    ...common(input),
    chart: {
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            label: input.title,
            data: values,
            borderColor: c,
            backgroundColor: input.fillArea ? translucent(c) : c,
            fill: input.fillArea,
            tension: input.tension,
            pointRadius: input.showPoints ? 3 : 0,
            pointHoverRadius: input.showPoints ? 4 : 0,
            borderWidth: 2,
          },
        ],
      },
      options: {
        plugins: { title: titlePlugin(input.title), legend: { display: input.showLegend } },
        scales: axes(input.showGrid),
      },
    },
  };
}

export function pieChart(input: PieInput): AutomationChart {
  const labels = parseLabels(input.labels);
  const values = parseValues(input.values);
  pairs(labels, values);
  if (values.some((v) => v < 0)) throw invalidInput('values of a pie chart must not be negative');
  const given = input.colors !== undefined && input.colors.trim() !== '' ? splitList(input.colors).map((c, i) => color(c, `colors (entry ${i + 1})`)) : [];
  const palette = given.length > 0 ? given : [...PALETTE];
  return {
    ...common(input),
    chart: {
      type: 'pie',
      data: { labels, datasets: [{ label: input.title, data: values, backgroundColor: labels.map((_, i) => palette[i % palette.length]) }] },
      options: {
        plugins: { title: titlePlugin(input.title), legend: { display: input.showLegend, position: input.legendPosition } },
      },
    },
  };
}

/** `series` as an array, or as a JSON string of one (form tools send text). */
export function parseSeries(raw: SeriesInput[] | string): SeriesInput[] {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidInput('series must be an array of {name, values, color?} or a JSON string of one');
    }
  }
  if (!Array.isArray(value)) throw invalidInput('series must be an array of {name, values, color?}');
  if (value.length < 1) throw invalidInput('series must have at least 1 entry');
  if (value.length > MAX_SERIES) throw invalidInput(`series has ${value.length} entries; at most ${MAX_SERIES}`);
  return value.map((s: unknown, i) => {
    const o = s as Partial<Record<keyof SeriesInput, unknown>> | null;
    if (!o || typeof o !== 'object' || Array.isArray(o)) throw invalidInput(`series[${i}] must be an object {name, values, color?}`);
    if (typeof o.name !== 'string' || o.name.trim() === '') throw invalidInput(`series[${i}].name must be a non-empty string`);
    const listed = Array.isArray(o.values) && o.values.every((v) => typeof v === 'number' || typeof v === 'string');
    const values = typeof o.values === 'number' ? String(o.values) : listed ? (o.values as Array<number | string>).join(',') : o.values;
    if (typeof values !== 'string') throw invalidInput(`series[${i}].values must be a comma-separated string of numbers`);
    if (o.color !== undefined && o.color !== null && typeof o.color !== 'string') throw invalidInput(`series[${i}].color must be a string`);
    return { name: o.name, values, ...(typeof o.color === 'string' && o.color !== '' ? { color: o.color } : {}) };
  });
}

export function multiSeriesChart(input: MultiSeriesInput): AutomationChart {
  const labels = parseLabels(input.labels);
  const series = parseSeries(input.series);
  const datasets = series.map((s, i) => {
    const field = `series[${i}].values`;
    const values = parseValues(s.values, field);
    pairs(labels, values, field);
    const c = s.color !== undefined ? color(s.color, `series[${i}].color`) : PALETTE[i % PALETTE.length]!;
    return input.type === 'line'
      ? { label: s.name, data: values, borderColor: c, backgroundColor: c, tension: 0.4, pointRadius: 3, borderWidth: 2, fill: false }
      : { label: s.name, data: values, borderColor: c, backgroundColor: c, borderWidth: 1 };
  });
  return {
    ...common(input),
    chart: {
      type: input.type,
      data: { labels, datasets },
      options: {
        plugins: { title: titlePlugin(input.title), legend: { display: input.showLegend } },
        scales: axes(input.showGrid),
      },
    },
  };
}

export const AUTOMATION_BUILDERS = {
  bar: barChart,
  line: lineChart,
  pie: pieChart,
  multi: multiSeriesChart,
} as const;
