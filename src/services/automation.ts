// Automation-style (Zapier-style) charts: simple inputs -> a Chart.js config (chart/automation.ts)
// -> a short chart, one generation, as POST /v1/chart/create -> the seven fields of the 201 body.
import { AUTOMATION_BUILDERS, type AutomationChart, type AutomationKind } from '../chart/automation.js';
import { AppError, invalidInput, notFound } from '../errors.js';
import type { Format } from '../rules/plans.js';
import type { ChartStore } from '../store/types.js';
import type { AuthContext } from './accounts.js';
import type { ServedChart, ShortChartService } from './shortCharts.js';
import { isChartId } from '../chart/chartId.js';

export interface AutomationResult {
  chart_url: string;
  chart_id: string;
  download_url: string;
  preview_url: string;
  format: 'png' | 'svg';
  width: number;
  height: number;
}

export interface ChartPreview {
  id: string;
  format: Format;
  width: number;
  height: number;
  /** The chart's own title text (plain text, not escaped), or null when it has none. */
  title: string | null;
  /** Paths, relative to the service root. */
  imageUrl: string;
  downloadUrl: string;
}

type Inputs = { [K in AutomationKind]: Parameters<(typeof AUTOMATION_BUILDERS)[K]>[0] };

export const downloadUrl = (base: string, id: string) => `${base}/v1/chart/${id}/download`;
export const previewUrl = (base: string, id: string) => `${base}/v1/chart/${id}/preview`;

export class AutomationService {
  constructor(
    private readonly shortCharts: Pick<ShortChartService, 'create' | 'serve'>,
    private readonly store: { readonly charts: Pick<ChartStore, 'find'> },
    private readonly publicBaseUrl: string,
  ) {}

  /** `signal`: the client went away (a render still queued leaves the queue). */
  async create<K extends AutomationKind>(auth: AuthContext, kind: K, input: Inputs[K], signal?: AbortSignal): Promise<AutomationResult> {
    const built = (AUTOMATION_BUILDERS[kind] as (i: Inputs[K]) => AutomationChart)(input);
    // the zone and locale go as they came: checked where every chart request's are (400 invalid_config)
    const zone = { timezone: input.timezone, locale: input.locale };
    let short;
    try {
      // Built from plain text (titles, labels): never revive function strings from it.
      short = await this.shortCharts.create(auth, { ...built, ...zone }, { allowFunctions: false, signal });
    } catch (err) {
      // These endpoints answer every bad input with invalid_input (e.g. a size over the plan's cap).
      if (err instanceof AppError && (err.code === 'invalid_dimensions' || err.code === 'chart_required')) throw invalidInput(err.detail ?? err.code);
      throw err;
    }
    return {
      chart_url: short.url,
      chart_id: short.id,
      download_url: downloadUrl(this.publicBaseUrl, short.id),
      preview_url: previewUrl(this.publicBaseUrl, short.id),
      format: built.format,
      width: built.width,
      height: built.height,
    };
  }

  /** The image of a short chart, for download (no credentials, not a generation). */
  download(id: string): Promise<ServedChart> {
    return this.shortCharts.serve(id);
  }

  /** What the preview page shows; unknown id -> 404 (without counting a hit on the image). */
  async preview(id: string): Promise<ChartPreview> {
    const rec = isChartId(id) ? await this.store.charts.find(id) : null;
    if (!rec) throw notFound('no such chart');
    return {
      id,
      format: rec.request.format,
      width: rec.request.width,
      height: rec.request.height,
      title: chartTitle(rec.request.config),
      // Relative: the page works under whatever host it was reached by.
      imageUrl: `/v1/chart/${id}`,
      downloadUrl: downloadUrl('', id),
    };
  }
}

/** options.plugins.title.text (Chart.js 3/4) or options.title.text (Chart.js 2): a string or lines of one. */
export function chartTitle(config: Record<string, unknown>): string | null {
  const options = config.options as { plugins?: { title?: { text?: unknown } }; title?: { text?: unknown } } | undefined;
  const text = options?.plugins?.title?.text ?? options?.title?.text;
  const lines = Array.isArray(text) ? text : [text];
  const joined = lines
    .filter((l): l is string | number => typeof l === 'string' || typeof l === 'number')
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return joined ? joined.slice(0, 200) : null;
}
