// Config mistakes that would draw a blank or wrong image, named with how to fix them (pure):
// Chart.js 2 syntax sent to a Chart.js 4 endpoint. (A config with no data is drawn as Chart.js
// draws it: axes, grids, titles and legends; decision 26.)

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
