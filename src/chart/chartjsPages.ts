// What each Chart.js version's page can draw: chart types and the plugins loaded beside it
// (renderer-page/harness*.html, scripts/vendor.mjs), as the MCP list_chart_types tool tells it.
// Chart.js 4's chart-type plugins come from chartTypes.ts (TYPE_PLUGINS); versions given here are
// checked against the installed packages (test/unit/chart-types.test.ts).
import { BUILT_IN_TYPES, CHART_TYPES, TYPE_PLUGINS } from './chartTypes.js';

export interface ChartPlugin {
  /** The npm package the page's copy comes from. */
  package: string;
  /** The pinned version (absent for Chart.js 4's chart-type plugins: package.json pins them). */
  version?: string;
  /** How a config uses it. */
  use: string;
}

export interface ChartjsPage {
  /** Chart.js major version, as `version` selects it (2, 3, 4). */
  major: 2 | 3 | 4;
  chartjs: string;
  /** How the version is asked for where a route takes one (QuickChart's v / version; MCP's version). */
  selectedBy: string;
  types: readonly string[];
  /** Types the page makes from another type (QuickChart's own names), with what they become. */
  aliases?: Readonly<Record<string, string>>;
  plugins: readonly ChartPlugin[];
}

const datalabels2: ChartPlugin = { package: 'chartjs-plugin-datalabels', version: '2.2.0', use: 'options.plugins.datalabels' };
const dateAdapter: ChartPlugin = { package: 'chartjs-adapter-date-fns', version: '3.0.0', use: "time scales: scales.x.type 'time' or 'timeseries'" };

export const CHARTJS_PAGES: readonly ChartjsPage[] = [
  {
    major: 4,
    chartjs: '4.6.1',
    selectedBy: 'the default of /v1 routes and MCP tools',
    types: CHART_TYPES,
    plugins: [
      { package: 'chartjs-plugin-annotation', version: '3.1.0', use: 'options.plugins.annotation' },
      datalabels2,
      dateAdapter,
      ...TYPE_PLUGINS.map((p) => ({ package: p.pkg, use: `type ${p.types.join(', ')}` })),
    ],
  },
  {
    major: 3,
    chartjs: '3.9.1',
    selectedBy: 'version 3 (e.g. 3.9.1)',
    types: [...BUILT_IN_TYPES, 'sankey', 'funnel', 'candlestick', 'ohlc'],
    plugins: [
      { package: 'chartjs-plugin-annotation', version: '1.4.0', use: 'options.plugins.annotation' },
      datalabels2,
      dateAdapter,
      // QuickChart's docs draw these with Chart.js 3; sankey and funnel are the Chart.js 4 page's builds
      { package: 'chartjs-chart-sankey', version: '0.19.1', use: 'type sankey' },
      { package: 'chartjs-chart-funnel', version: '4.2.5', use: 'type funnel' },
      { package: 'chartjs-chart-financial', version: '0.1.1', use: 'types candlestick, ohlc' },
    ],
  },
  {
    major: 2,
    chartjs: '2.9.4',
    selectedBy: "version 2 (e.g. 2.9.4); the default of QuickChart's /chart routes",
    types: [...BUILT_IN_TYPES, 'horizontalBar', 'radialGauge', 'gauge', 'boxplot', 'horizontalBoxplot', 'violin', 'horizontalViolin', 'outlabeledPie', 'outlabeledDoughnut'],
    aliases: { donut: 'doughnut', sparkline: 'line (no axes, no legend)', progressBar: 'horizontalBar (stacked)' },
    plugins: [
      { package: 'chartjs-plugin-datalabels', version: '0.7.0', use: 'options.plugins.datalabels' },
      { package: 'chartjs-plugin-annotation', version: '0.5.7', use: 'options.annotation' },
      { package: 'chartjs-plugin-doughnutlabel', version: '2.0.3', use: 'options.plugins.doughnutlabel' },
      { package: 'chartjs-plugin-piechart-outlabels', version: '0.1.4', use: 'types outlabeledPie, outlabeledDoughnut, or options.plugins.outlabels' },
      { package: 'chartjs-chart-radial-gauge', version: '1.1.0', use: 'type radialGauge' },
      { package: 'chartjs-chart-box-and-violin-plot', version: '4.0.0', use: 'types boxplot, horizontalBoxplot, violin, horizontalViolin' },
      { package: 'chartjs-gauge', version: '0.3.0', use: 'type gauge' },
      { package: 'chartjs-plugin-error-bars', version: '1.2.2', use: 'errorBars on a dataset (options.plugins.chartJsPluginErrorBars)' },
      { package: 'chartjs-plugin-colorschemes', version: '0.4.0', use: "options.plugins.colorschemes (scheme tables; applied as QuickChart's fork applies them)" },
    ],
  },
];

/** The type names one Chart.js version's configs may give: `chart` at the top level (the page's
 *  types and QuickChart's aliases), `dataset` in each dataset (the page's types). */
export interface VersionTypes {
  readonly chart: ReadonlySet<string>;
  readonly dataset: ReadonlySet<string>;
}

const TYPES_BY_MAJOR: ReadonlyMap<number, VersionTypes> = new Map(
  CHARTJS_PAGES.map((p) => [p.major, Object.freeze({ chart: new Set([...p.types, ...Object.keys(p.aliases ?? {})]), dataset: new Set(p.types) })]),
);

/** What a config for Chart.js `major` may name as its type: the list its page draws (this file is
 *  the one place that says so: the open gate, list_chart_types and the gallery read it). */
export function typesOf(major: 2 | 3 | 4): VersionTypes {
  return TYPES_BY_MAJOR.get(major)!;
}
