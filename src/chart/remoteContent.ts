// What a QuickChart request asks of the network, found before anything is drawn (pure, no I/O):
// images named by URL (backgroundImageUrl), which the service fetches; and what chartshot never
// fetches (googleSheets and airtable data, the Google Image Charts form), refused with a 400 that
// says what to do instead rather than drawn as a blank chart.
import { invalidInput } from '../errors.js';
import type { ChartConfig } from './request.js';

/** The images a config names, by feature. */
export interface RemoteImageRefs {
  /** options.plugins.backgroundImageUrl: an http(s) or data:image URL. */
  backgroundImageUrl?: string;
}

const DATA_SOURCES = ['googleSheets', 'airtable'] as const;
const DATA_SOURCE_DEPTH = 3;

function dataSourceRefusal(name: string): string {
  return `${name} data is not supported: chartshot never fetches chart data; put the values in data.datasets (read the sheet or base on your side and send its rows)`;
}

/** A googleSheets or airtable key in the config's first levels (where QuickChart reads them). */
function findDataSource(v: unknown, depth: number): string | null {
  if (v === null || typeof v !== 'object' || depth > DATA_SOURCE_DEPTH) return null;
  if (Array.isArray(v)) return null;
  for (const name of DATA_SOURCES) if (Object.prototype.hasOwnProperty.call(v, name)) return name;
  for (const x of Object.values(v as Record<string, unknown>)) {
    const found = findDataSource(x, depth + 1);
    if (found) return found;
  }
  return null;
}

/** A pointStyle given as a URL: Chart.js would draw its default circle instead, silently. */
function imagePointStyle(config: ChartConfig): string | null {
  const isUrl = (v: unknown) => typeof v === 'string' && /^(?:https?:|data:|url\()/i.test(v.trim());
  const ds = (config.data as { datasets?: unknown } | undefined)?.datasets;
  if (Array.isArray(ds)) {
    for (let i = 0; i < ds.length; i++) {
      const p = (ds[i] as { pointStyle?: unknown } | null)?.pointStyle;
      if (isUrl(p) || (Array.isArray(p) && p.some(isUrl))) return `data.datasets[${i}].pointStyle`;
    }
  }
  const el = (config.options as { elements?: { point?: { pointStyle?: unknown } } } | undefined)?.elements?.point?.pointStyle;
  return isUrl(el) ? 'options.elements.point.pointStyle' : null;
}

/** The images a data config names; a data source it names is a 400. */
export function remoteContentOf(config: ChartConfig): RemoteImageRefs {
  const source = findDataSource(config, 1);
  if (source) throw invalidInput(dataSourceRefusal(source));
  const point = imagePointStyle(config);
  if (point) throw invalidInput(`${point}: image point styles are not supported; use a named style (circle, rect, triangle, star...) or options.plugins.backgroundImageUrl for a picture`);
  const options = config.options as { plugins?: { backgroundImageUrl?: unknown } } | undefined;
  const bg = options && typeof options === 'object' && options.plugins && typeof options.plugins === 'object' ? options.plugins.backgroundImageUrl : undefined;
  if (bg === undefined || bg === null || bg === '') return {};
  if (typeof bg !== 'string') throw invalidInput('options.plugins.backgroundImageUrl must be a URL string');
  return { backgroundImageUrl: bg };
}

/** A JavaScript config is never evaluated here: a data source named in its text is refused all the same. */
export function checkConfigTextSources(js: string): void {
  const m = /\b(googleSheets|airtable)\s*['"]?\s*:\s*\{/.exec(js);
  if (m) throw invalidInput(dataSourceRefusal(m[1]!));
}

/** cht= on /chart is Google Image Charts' form, which QuickChart also answers: not this service. */
export function checkNotImageCharts(fields: Record<string, unknown>): void {
  if (fields.cht !== undefined && fields.cht !== null && fields.cht !== '') {
    throw invalidInput('the Google Image Charts form (cht=...) is not supported: send a Chart.js config in c (or chart)');
  }
}

/** The config as the open endpoint's gate sees it: backgroundImageUrl is fetched (or refused) by
 *  the service against REMOTE_IMAGES_ALLOW, never by the page, so it is not a remote URL in the page. */
export function withoutImageUrls(config: ChartConfig): ChartConfig {
  const options = config.options as { plugins?: Record<string, unknown> } | undefined;
  const plugins = options && typeof options === 'object' ? options.plugins : undefined;
  if (!plugins || typeof plugins !== 'object' || typeof plugins.backgroundImageUrl !== 'string') return config;
  const { backgroundImageUrl: _url, ...rest } = plugins;
  return { ...config, options: { ...options, plugins: rest } };
}
