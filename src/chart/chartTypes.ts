// The chart types the Chart.js 4 page draws (pure): Chart.js's own, and those its vendored
// chart-type plugins register (renderer-page/harness.html loads them; plugins4.js settles them).

/** Chart.js 4's built-in types. */
export const BUILT_IN_TYPES = ['bar', 'line', 'pie', 'doughnut', 'radar', 'polarArea', 'scatter', 'bubble'] as const;

/** Each plugin package (pinned in package.json) and the types it registers. */
export const TYPE_PLUGINS: ReadonlyArray<{ readonly pkg: string; readonly types: readonly string[] }> = [
  { pkg: 'chartjs-chart-matrix', types: ['matrix'] },
  { pkg: 'chartjs-chart-treemap', types: ['treemap'] },
  { pkg: 'chartjs-chart-sankey', types: ['sankey'] },
  { pkg: 'chartjs-chart-financial', types: ['candlestick', 'ohlc'] },
  { pkg: '@sgratzl/chartjs-chart-boxplot', types: ['boxplot', 'violin'] },
  { pkg: 'chartjs-chart-funnel', types: ['funnel'] },
  { pkg: 'chartjs-chart-error-bars', types: ['barWithErrorBars', 'lineWithErrorBars', 'scatterWithErrorBars', 'polarAreaWithErrorBars'] },
  { pkg: 'chartjs-chart-wordcloud', types: ['wordCloud'] },
  { pkg: 'chartjs-chart-venn', types: ['venn', 'euler'] },
  { pkg: 'chartjs-chart-graph', types: ['graph', 'forceDirectedGraph', 'dendrogram', 'tree'] },
  { pkg: 'chartjs-chart-geo', types: ['choropleth', 'bubbleMap'] },
];

export const PLUGIN_TYPES: readonly string[] = TYPE_PLUGINS.flatMap((p) => p.types);

/** Every type a Chart.js 4 config (and each of its datasets) may name. */
export const CHART_TYPES: readonly string[] = [...BUILT_IN_TYPES, ...PLUGIN_TYPES];

/** Types whose x axis is a time series by default (chartjs-chart-financial). */
export const FINANCIAL_TYPES: ReadonlySet<string> = new Set(['candlestick', 'ohlc']);
/** Types whose layout is an optimisation over the sets (chartjs-chart-venn). */
export const SET_TYPES: ReadonlySet<string> = new Set(['venn', 'euler']);
