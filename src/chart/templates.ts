// QuickChart's template overrides on a stored chart (title, labels, dataN, labelN,
// backgroundColorN, borderColorN, width, height, backgroundColor): parsed and applied. Pure.
import { invalidInput } from '../errors.js';
import { checkColor, type TextPatch } from './request.js';

/** Datasets an override may name (data1 ... data50) and values a list may carry. */
export const MAX_TEMPLATE_DATASETS = 50;
export const MAX_TEMPLATE_VALUES = 1000;
const MAX_TEXT = 500;

export interface DatasetOverride {
  data?: Array<number | null>;
  label?: string;
  backgroundColor?: string;
  borderColor?: string;
}

/** What a template URL changes in the chart's config; sizes and background are the request's. */
export interface ConfigOverrides {
  title?: string;
  labels?: string[];
  /** By dataset index (0-based: data1 is index 0). */
  datasets: Record<string, DatasetOverride>;
}

export interface TemplateOverrides {
  config: ConfigOverrides | null;
  width?: unknown;
  height?: unknown;
  backgroundColor?: unknown;
}

const PER_DATASET = /^(data|label|backgroundColor|borderColor)([1-9]\d{0,2})$/;
const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

function text(v: unknown, name: string): string {
  if (typeof v !== 'string') throw invalidInput(`${name} must be text`);
  if (v.length > MAX_TEXT) throw invalidInput(`${name} is longer than ${MAX_TEXT} characters`);
  return v;
}

function list(v: unknown, name: string): string[] {
  const items = text(v, name) === '' ? [] : (v as string).split(',');
  if (items.length > MAX_TEMPLATE_VALUES) throw invalidInput(`${name} has more than ${MAX_TEMPLATE_VALUES} values`);
  return items;
}

/** The override parameters of a query (other parameters are ignored); null when there are none. */
export function parseTemplateOverrides(q: Record<string, unknown>): TemplateOverrides | null {
  const config: ConfigOverrides = { datasets: {} };
  let changed = false;
  if (q.title !== undefined) {
    config.title = text(q.title, 'title');
    changed = true;
  }
  if (q.labels !== undefined) {
    config.labels = list(q.labels, 'labels').map((l) => l.trim());
    changed = true;
  }
  for (const [k, v] of Object.entries(q)) {
    const m = PER_DATASET.exec(k);
    if (!m) continue;
    const n = Number(m[2]);
    if (n > MAX_TEMPLATE_DATASETS) throw invalidInput(`${k}: datasets 1-${MAX_TEMPLATE_DATASETS} may be overridden`);
    const ds = (config.datasets[String(n - 1)] ??= {});
    const field = m[1] as keyof DatasetOverride;
    if (field === 'data') {
      ds.data = list(v, k).map((raw, i) => {
        const s = raw.trim();
        if (s === '' || s === 'null') return null;
        if (!NUMBER.test(s) || !Number.isFinite(Number(s))) throw invalidInput(`${k} item ${i + 1} is not a number`);
        return Number(s);
      });
    } else if (field === 'label') ds.label = text(v, k);
    else ds[field] = checkColor(text(v, k), k) ?? undefined;
    changed = true;
  }
  const out: TemplateOverrides = { config: changed ? config : null };
  if (q.width !== undefined) out.width = q.width;
  if (q.height !== undefined) out.height = q.height;
  if (q.backgroundColor !== undefined) out.backgroundColor = q.backgroundColor;
  if (!changed && out.width === undefined && out.height === undefined && out.backgroundColor === undefined) return null;
  return out;
}

/**
 * The overrides as text patches: {path, value} pairs the page applies after it has revived the
 * stored config's functions (and after evaluating a JavaScript config), so a value sent by
 * whoever holds the chart's URL is set as data and never becomes code. Chart.js 2 keeps the
 * title in options.title, 3 and 4 in options.plugins.title.
 */
export function templatePatches(o: ConfigOverrides, chartjs: number): TextPatch[] {
  const out: TextPatch[] = [];
  if (o.labels !== undefined) out.push({ path: ['data', 'labels'], value: o.labels });
  for (const key of Object.keys(o.datasets)) {
    const i = Number(key);
    const ds = o.datasets[key]!;
    for (const field of ['data', 'label', 'backgroundColor', 'borderColor'] as const) {
      const v = ds[field];
      if (v !== undefined) out.push({ path: ['data', 'datasets', i, field], value: v });
    }
  }
  if (o.title !== undefined) {
    const holder = chartjs === 2 ? ['options', 'title'] : ['options', 'plugins', 'title'];
    out.push({ path: [...holder, 'display'], value: true }, { path: [...holder, 'text'], value: o.title });
  }
  return out;
}
