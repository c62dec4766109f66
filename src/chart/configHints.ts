// Config mistakes that would draw a blank or wrong image, named with how to fix them (pure):
// Chart.js 2 syntax sent to a Chart.js 4 endpoint; and a hint for a config with no data, which is
// drawn as Chart.js draws it (axes, grids, titles, legends; decision 26).

/** Where Chart.js 2 configs are drawn as such (the QuickChart-compatible routes). */
const V2_ROUTES = 'or send this config to GET/POST /chart with v=2, which draws Chart.js 2 configs';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Chart.js 2 spellings in a config parsed for Chart.js 4, as an error detail; null when none. */
export function chartjs2Hint(config: Record<string, unknown>, field: string): string | null {
  if (config.type === 'horizontalBar') {
    return `${field}.type "horizontalBar" is Chart.js 2 syntax: in Chart.js 4 use "type": "bar" with "options": {"indexAxis": "y"}, ${V2_ROUTES}`;
  }
  const scales = isObject(config.options) ? config.options.scales : undefined;
  if (isObject(scales)) {
    for (const key of ['xAxes', 'yAxes']) {
      if (Array.isArray(scales[key])) {
        const axis = key[0];
        return `${field}.options.scales.${key} is Chart.js 2 syntax: in Chart.js 4 each axis is an object keyed by its id ("scales": {"${axis}": {...}}), ${V2_ROUTES}`;
      }
    }
  }
  return null;
}

/** A config with no datasets or no data: drawn (axes, legend), with this hint in a header; null when it has data. */
export function noDataHint(config: Record<string, unknown>): string | null {
  const data = config.data;
  const datasets = isObject(data) ? data.datasets : undefined;
  if (!Array.isArray(datasets) || datasets.length === 0) return 'no datasets: only the axes, grids, titles and legend are drawn, as Chart.js draws them';
  const hasData = datasets.some((d) => {
    // a treemap (chartjs-chart-treemap) draws its dataset's tree, not its data
    const values = isObject(d) ? (d.tree ?? d.data) : undefined;
    return Array.isArray(values) ? values.length > 0 : isObject(values) && Object.keys(values).length > 0;
  });
  return hasData ? null : 'no data in any dataset: only the axes, grids, titles and legend are drawn, as Chart.js draws them';
}

/**
 * date-fns refusing a moment token ("Use `yyyy` instead of `YYYY`..."): which adapter reads
 * which tokens, as a suffix for the error detail; '' for any other message.
 */
export function dateAdapterHint(pageMessage: string): string {
  if (!/Use `[^`]+` instead of `[^`]+`/.test(pageMessage)) return '';
  return ' (date-fns adapter: write yyyy, dd; moment formats like YYYY are drawn with moment on Chart.js 4 and 2)';
}
