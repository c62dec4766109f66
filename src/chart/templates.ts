// QuickChart's template overrides on a stored chart (title, labels, dataN, labelN,
// backgroundColorN, borderColorN, width, height, backgroundColor): parsed and applied. Pure.
import { invalidInput } from '../errors.js';
import { checkColor, type ChartConfig } from './request.js';

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
 * Applies overrides to a config object in place and returns it. Self-contained on purpose (no
 * imports, no outer names): its source text is also what patches a JavaScript config inside the
 * page (overrideConfigJs), so data and JavaScript configs change the same way.
 */
export function patchConfig(c: Record<string, any>, o: ConfigOverrides, chartjs: number): Record<string, any> {
  // no inner functions: a bundler may wrap named ones in helpers the page does not have
  const isObj = [c, c?.data, c?.options].map((x) => x !== null && typeof x === 'object' && !Array.isArray(x));
  if (!isObj[0]) return c;
  if (!isObj[1]) c.data = {};
  if (o.labels !== undefined) c.data.labels = o.labels;
  if (!Array.isArray(c.data.datasets)) c.data.datasets = [];
  for (const key of Object.keys(o.datasets)) {
    const i = Number(key);
    while (c.data.datasets.length <= i) c.data.datasets.push({});
    const t = c.data.datasets[i];
    if (t === null || typeof t !== 'object' || Array.isArray(t)) c.data.datasets[i] = {};
    const ds = o.datasets[key]!;
    const target = c.data.datasets[i];
    if (ds.data !== undefined) target.data = ds.data;
    if (ds.label !== undefined) target.label = ds.label;
    if (ds.backgroundColor !== undefined) target.backgroundColor = ds.backgroundColor;
    if (ds.borderColor !== undefined) target.borderColor = ds.borderColor;
  }
  if (o.title !== undefined) {
    if (!isObj[2]) c.options = {};
    // Chart.js 2 keeps the title in options.title, 3 and 4 in options.plugins.title
    let holder = c.options;
    if (chartjs !== 2) {
      const p = c.options.plugins;
      if (p === null || typeof p !== 'object' || Array.isArray(p)) c.options.plugins = {};
      holder = c.options.plugins;
    }
    const t = holder.title;
    holder.title = Object.assign(t !== null && typeof t === 'object' && !Array.isArray(t) ? t : {}, { display: true, text: o.title });
  }
  return c;
}

/** A data config with the overrides applied, on a copy (the stored record is not changed). */
export function overrideConfig(config: ChartConfig, o: ConfigOverrides, chartjs: number): ChartConfig {
  return patchConfig(structuredClone(config), o, chartjs);
}

/**
 * A JavaScript config with the overrides applied: an expression that evaluates the caller's
 * literal, then patches the object with patchConfig's own text. The overrides are JSON (data);
 * the page evaluates the whole as it evaluates any configJs.
 */
export function overrideConfigJs(configJs: string, o: ConfigOverrides, chartjs: number): string {
  return `(${patchConfig.toString()})((\n${configJs}\n), ${JSON.stringify(o)}, ${chartjs})`;
}
