// QuickChart's hosted features as its documentation shows them (pure), each on the Chart.js
// version QuickChart's docs use for it: shown on /gallery (gallery.ts) beside the built-in types.
// Why these versions: docs/decisions/0024-quickchart-hosted-features.md.

export interface QuickChartExample {
  readonly id: string;
  readonly chartjs: 2 | 3;
  readonly title: string;
  readonly config: Record<string, unknown>;
}

const DAY = 86_400_000;
const QUARTERS = ['Q1', 'Q2', 'Q3', 'Q4'];

export const QUICKCHART_EXAMPLES: readonly QuickChartExample[] = [
  {
    id: 'v2-gauge',
    chartjs: 2,
    title: 'gauge (chartjs-gauge)',
    config: { type: 'gauge', data: { datasets: [{ value: 50, data: [20, 40, 60], backgroundColor: ['green', 'orange', 'red'], borderWidth: 2 }] }, options: { valueLabel: { fontSize: 22, backgroundColor: 'transparent', color: '#000', bottomMarginPercentage: 10 } } },
  },
  {
    id: 'v2-error-bars',
    chartjs: 2,
    title: 'error bars (chartjs-plugin-error-bars)',
    config: {
      type: 'bar',
      data: { labels: ['A', 'B', 'C'], datasets: [{ label: 'Mean', data: [10, 20, 15], errorBars: { A: { plus: 3, minus: -2 }, B: { plus: 5, minus: -5 }, C: { plus: 1, minus: -4 } } }] },
      options: { scales: { yAxes: [{ ticks: { beginAtZero: true, suggestedMax: 26 } }] } },
    },
  },
  {
    id: 'v2-tickformat',
    chartjs: 2,
    title: "QuickChart's tickFormat plugin ({prefix: '$', notation: 'compact'})",
    config: {
      type: 'bar',
      data: { labels: QUARTERS, datasets: [{ label: 'Revenue', data: [50000, 60000, 70000, 1800000] }] },
      options: { plugins: { tickFormat: { prefix: '$', notation: 'compact' } } },
    },
  },
  {
    id: 'v2-roundedbars',
    chartjs: 2,
    title: "QuickChart's roundedBars plugin ({cornerRadius: 12})",
    config: {
      type: 'bar',
      data: { labels: QUARTERS, datasets: [{ label: 'Users', data: [12, 19, 7, 15] }, { label: 'Trials', data: [8, 11, 5, 9] }] },
      options: { plugins: { roundedBars: { cornerRadius: 12 } } },
    },
  },
  {
    id: 'v2-polararea-palette',
    chartjs: 2,
    title: "polarArea in QuickChart's palette (a colour per slice)",
    config: { type: 'polarArea', data: { labels: ['a', 'b', 'c', 'd', 'e'], datasets: [{ data: [11, 16, 7, 3, 14] }] } },
  },
  {
    id: 'v3-sankey',
    chartjs: 3,
    title: 'sankey on Chart.js 3 (chartjs-chart-sankey)',
    config: { type: 'sankey', data: { datasets: [{ data: [{ from: 'Step A', to: 'Step B', flow: 10 }, { from: 'Step A', to: 'Step C', flow: 5 }, { from: 'Step B', to: 'Step C', flow: 10 }, { from: 'Step D', to: 'Step C', flow: 7 }] }] } },
  },
  {
    id: 'v3-funnel',
    chartjs: 3,
    title: 'funnel on Chart.js 3 (chartjs-chart-funnel)',
    config: { type: 'funnel', data: { labels: ['Visits', 'Sign-ups', 'Orders'], datasets: [{ data: [0.9, 0.5, 0.2] }] } },
  },
  {
    id: 'v3-candlestick',
    chartjs: 3,
    title: 'candlestick on Chart.js 3 (chartjs-chart-financial 0.1)',
    config: {
      type: 'candlestick',
      data: { datasets: [{ label: 'ACME', data: [[1, 3, 0.5, 2], [2, 4, 1, 1.5], [1.5, 2, 1, 1.8], [1.8, 2.6, 1.2, 2.4]].map(([o, h, l, c], i) => ({ x: 1_600_000_000_000 + i * DAY, o, h, l, c })) }] },
    },
  },
];
