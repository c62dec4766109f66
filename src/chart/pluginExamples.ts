// One example config per Chart.js 4 chart type a plugin adds, with the vendored bundle that
// draws it (renderer-page/vendor/). JSON only: what a config written for the plugin in a browser
// looks like without callbacks. Pure data: the fidelity tests draw them against plain Chart.js,
// and /gallery shows them (src/chart/gallery.ts).

export interface PluginExample {
  type: string;
  bundle: string;
  config: Record<string, unknown>;
  /** Fewest non-white pixels the image must have (default 2000). */
  minInk?: number;
}

const C = ['#4dc9f6', '#f67019', '#f53794', '#537bc4', '#acc236', '#166a8f', '#00a950', '#58595b'];
const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);
const OHLC = [
  [40, 46, 38, 44], [44, 47, 41, 42], [42, 43, 36, 37], [37, 41, 35, 40], [40, 45, 39, 44],
  [44, 49, 43, 48], [48, 50, 44, 45], [45, 46, 40, 41], [41, 44, 39, 43], [43, 48, 42, 47],
].map(([o, h, l, c], i) => ({ x: T0 + i * DAY, o, h, l, c }));
const SAMPLES = [
  [1, 2, 3, 4, 5, 6, 7, 8, 9, 20],
  [3, 4, 4, 5, 5, 5, 6, 6, 7, 9],
  [2, 6, 7, 8, 8, 9, 9, 10, 11, 12],
];
const TREE_NODES = [{}, { parent: 0 }, { parent: 0 }, { parent: 1 }, { parent: 1 }, { parent: 2 }, { parent: 2 }, { parent: 2 }];
const TREE_LABELS = ['root', 'a', 'b', 'a1', 'a2', 'b1', 'b2', 'b3'];

export const PLUGIN_EXAMPLES: readonly PluginExample[] = [
  {
    type: 'matrix',
    bundle: 'chartjs-chart-matrix.js',
    config: {
      type: 'matrix',
      data: {
        datasets: [{
          label: 'heat',
          data: [1, 2, 3].flatMap((x) => [1, 2].map((y) => ({ x, y, v: x * y }))),
          backgroundColor: 'rgba(83, 123, 196, 0.6)',
          borderColor: '#166a8f',
          borderWidth: 1,
          width: 100,
          height: 80,
        }],
      },
      options: { scales: { x: { type: 'linear', offset: true, min: 0.5, max: 3.5 }, y: { type: 'linear', offset: true, min: 0.5, max: 2.5 } } },
    },
  },
  {
    type: 'treemap',
    bundle: 'chartjs-chart-treemap.js',
    config: {
      type: 'treemap',
      data: {
        datasets: [{
          label: 'sizes',
          tree: [
            { team: 'Core', name: 'render', size: 40 }, { team: 'Core', name: 'pool', size: 25 },
            { team: 'Web', name: 'routes', size: 30 }, { team: 'Web', name: 'auth', size: 12 }, { team: 'Ops', name: 'deploy', size: 18 },
          ],
          key: 'size',
          groups: ['team', 'name'],
          backgroundColor: 'rgba(77, 201, 246, 0.7)',
          borderColor: '#166a8f',
          borderWidth: 1,
          spacing: 1,
          labels: { display: true, color: '#000' },
          captions: { display: true, color: '#000' },
        }],
      },
      options: { plugins: { legend: { display: false } } },
    },
  },
  {
    type: 'sankey',
    bundle: 'chartjs-chart-sankey.js',
    config: {
      type: 'sankey',
      data: {
        datasets: [{
          label: 'flows',
          data: [
            { from: 'Oil', to: 'Fossil', flow: 15 }, { from: 'Gas', to: 'Fossil', flow: 20 }, { from: 'Coal', to: 'Fossil', flow: 25 },
            { from: 'Solar', to: 'Clean', flow: 10 }, { from: 'Wind', to: 'Clean', flow: 12 },
            { from: 'Fossil', to: 'Energy', flow: 60 }, { from: 'Clean', to: 'Energy', flow: 22 },
          ],
          colorFrom: '#f67019',
          colorTo: '#537bc4',
          colorMode: 'gradient',
          borderWidth: 1,
          borderColor: '#000',
        }],
      },
    },
  },
  {
    type: 'candlestick',
    bundle: 'chartjs-chart-financial.js',
    config: { type: 'candlestick', data: { datasets: [{ label: 'ACME', data: OHLC }] } },
  },
  {
    type: 'ohlc',
    bundle: 'chartjs-chart-financial.js',
    config: { type: 'ohlc', data: { datasets: [{ label: 'ACME', data: OHLC }] } },
    minInk: 1000,
  },
  {
    type: 'boxplot',
    bundle: 'chartjs-chart-boxplot.js',
    config: {
      type: 'boxplot',
      data: { labels: ['A', 'B', 'C'], datasets: [{ label: 'runs', data: SAMPLES, backgroundColor: 'rgba(246, 112, 25, 0.4)', borderColor: '#f67019', borderWidth: 1, outlierBackgroundColor: '#f53794' }] },
    },
  },
  {
    type: 'violin',
    bundle: 'chartjs-chart-boxplot.js',
    config: {
      type: 'violin',
      data: { labels: ['A', 'B', 'C'], datasets: [{ label: 'runs', data: SAMPLES, backgroundColor: 'rgba(172, 194, 54, 0.5)', borderColor: '#166a8f', borderWidth: 1 }] },
    },
  },
  {
    type: 'funnel',
    bundle: 'chartjs-chart-funnel.js',
    config: {
      type: 'funnel',
      data: { labels: ['Visits', 'Sign-ups', 'Trials', 'Paid'], datasets: [{ label: 'funnel', data: [1, 0.6, 0.35, 0.12], backgroundColor: C.slice(0, 4) }] },
    },
  },
  {
    type: 'barWithErrorBars',
    bundle: 'chartjs-chart-error-bars.js',
    config: {
      type: 'barWithErrorBars',
      data: {
        labels: ['A', 'B', 'C', 'D'],
        datasets: [{ label: 'mean', data: [{ y: 4, yMin: 3, yMax: 5.5 }, { y: 6, yMin: 5, yMax: 7 }, { y: 3, yMin: 1.5, yMax: 4 }, { y: 5, yMin: 4.2, yMax: 6.1 }], backgroundColor: C[0] }],
      },
      options: { scales: { y: { beginAtZero: true } } },
    },
  },
  {
    type: 'lineWithErrorBars',
    bundle: 'chartjs-chart-error-bars.js',
    config: {
      type: 'lineWithErrorBars',
      data: {
        labels: ['A', 'B', 'C', 'D'],
        datasets: [{ label: 'mean', data: [{ y: 4, yMin: 3, yMax: 5.5 }, { y: 6, yMin: 5, yMax: 7 }, { y: 3, yMin: 1.5, yMax: 4 }, { y: 5, yMin: 4.2, yMax: 6.1 }], borderColor: C[1], backgroundColor: C[1] }],
      },
    },
  },
  {
    type: 'wordCloud',
    bundle: 'chartjs-chart-wordcloud.js',
    config: {
      type: 'wordCloud',
      data: {
        labels: ['chart', 'render', 'canvas', 'pool', 'sankey', 'treemap', 'matrix', 'violin', 'funnel', 'venn', 'graph', 'pixel'],
        datasets: [{ label: 'words', data: [70, 60, 50, 44, 38, 34, 30, 26, 22, 20, 18, 16], color: C }],
      },
      options: { plugins: { legend: { display: false } } },
    },
  },
  {
    type: 'venn',
    bundle: 'chartjs-chart-venn.js',
    config: {
      type: 'venn',
      data: {
        labels: ['Soccer', 'Tennis', 'Volleyball', 'Soccer ∩ Tennis', 'Soccer ∩ Volleyball', 'Tennis ∩ Volleyball', 'Soccer ∩ Tennis ∩ Volleyball'],
        datasets: [{
          label: 'Sports',
          data: [
            { sets: ['Soccer'], value: 2 }, { sets: ['Tennis'], value: 0 }, { sets: ['Volleyball'], value: 1 },
            { sets: ['Soccer', 'Tennis'], value: 1 }, { sets: ['Soccer', 'Volleyball'], value: 0 }, { sets: ['Tennis', 'Volleyball'], value: 1 },
            { sets: ['Soccer', 'Tennis', 'Volleyball'], value: 1 },
          ],
          backgroundColor: ['rgba(77, 201, 246, 0.4)', 'rgba(246, 112, 25, 0.4)', 'rgba(245, 55, 148, 0.4)', 'rgba(83, 123, 196, 0.4)', 'rgba(172, 194, 54, 0.4)', 'rgba(22, 106, 143, 0.4)', 'rgba(0, 169, 80, 0.4)'],
        }],
      },
    },
  },
  {
    type: 'euler',
    bundle: 'chartjs-chart-venn.js',
    config: {
      type: 'euler',
      data: {
        labels: ['A', 'B', 'C', 'A ∩ B', 'A ∩ C', 'B ∩ C', 'A ∩ B ∩ C'],
        datasets: [{
          label: 'sets',
          data: [
            { sets: ['A'], value: 12 }, { sets: ['B'], value: 8 }, { sets: ['C'], value: 5 },
            { sets: ['A', 'B'], value: 3 }, { sets: ['A', 'C'], value: 2 }, { sets: ['B', 'C'], value: 1 }, { sets: ['A', 'B', 'C'], value: 1 },
          ],
          backgroundColor: 'rgba(83, 123, 196, 0.3)',
          borderColor: '#166a8f',
        }],
      },
    },
  },
  {
    type: 'forceDirectedGraph',
    bundle: 'chartjs-chart-graph.js',
    config: {
      type: 'forceDirectedGraph',
      data: {
        labels: TREE_LABELS,
        datasets: [{
          label: 'graph',
          data: TREE_NODES.map(() => ({})),
          edges: [[0, 1], [0, 2], [1, 3], [1, 4], [2, 5], [2, 6], [2, 7], [3, 4]].map(([source, target]) => ({ source, target })),
          pointBackgroundColor: C[1],
          pointRadius: 6,
          edgeLineBorderColor: '#537bc4',
        }],
      },
      options: { plugins: { legend: { display: false } } },
    },
    minInk: 1000,
  },
  {
    type: 'dendrogram',
    bundle: 'chartjs-chart-graph.js',
    config: {
      type: 'dendrogram',
      data: { labels: TREE_LABELS, datasets: [{ label: 'tree', data: TREE_NODES, pointBackgroundColor: C[3], pointRadius: 5 }] },
      options: { plugins: { legend: { display: false } } },
    },
    minInk: 1000,
  },
  {
    type: 'tree',
    bundle: 'chartjs-chart-graph.js',
    config: {
      type: 'tree',
      data: { labels: TREE_LABELS, datasets: [{ label: 'tree', data: TREE_NODES, pointBackgroundColor: C[4], pointRadius: 5 }] },
      options: { tree: { orientation: 'vertical' }, plugins: { legend: { display: false } } },
    },
    minInk: 1000,
  },
  {
    type: 'choropleth',
    bundle: 'chartjs-chart-geo.js',
    config: {
      type: 'choropleth',
      data: {
        labels: ['Germany', 'France', 'Brazil', 'India', 'Australia', 'United States of America', 'China', 'South Africa'],
        datasets: [{
          label: 'Countries',
          topology: 'world-atlas/countries-110m',
          data: [['Germany', 5], ['France', 3], ['Brazil', 8], ['India', 9], ['Australia', 2], ['United States of America', 7], ['China', 6], ['South Africa', 4]].map(([feature, value]) => ({ feature, value })),
        }],
      },
      options: { showOutline: true, showGraticule: true, plugins: { legend: { display: false } }, scales: { projection: { axis: 'x', projection: 'equalEarth' } } },
    },
  },
  {
    type: 'choropleth (US states)',
    bundle: 'chartjs-chart-geo.js',
    config: {
      type: 'choropleth',
      data: {
        labels: ['California', 'Texas', 'New York', 'Florida', 'Illinois', 'Washington', 'Alaska', 'Hawaii'],
        datasets: [{
          label: 'States',
          topology: 'us-atlas/states-10m',
          outline: 'us-atlas/states-10m:nation',
          showOutline: true,
          data: [['California', 39], ['Texas', 29], ['New York', 20], ['Florida', 21], ['Illinois', 13], ['53', 8], ['Alaska', 1], ['Hawaii', 1]].map(([feature, value]) => ({ feature, value })),
        }],
      },
      options: { plugins: { legend: { display: false } }, scales: { projection: { axis: 'x', projection: 'albersUsa' }, color: { axis: 'x', quantize: 5 } } },
    },
  },
  {
    type: 'bubbleMap',
    bundle: 'chartjs-chart-geo.js',
    config: {
      type: 'bubbleMap',
      data: {
        labels: ['San Francisco', 'New York', 'Chicago', 'Houston', 'Seattle'],
        datasets: [{
          label: 'Cities',
          outline: 'us-atlas/states-10m:nation',
          showOutline: true,
          backgroundColor: 'rgba(83, 123, 196, 0.6)',
          data: [[-122.42, 37.77, 8], [-74.0, 40.71, 20], [-87.63, 41.88, 10], [-95.37, 29.76, 7], [-122.33, 47.61, 5]].map(([longitude, latitude, value]) => ({ longitude, latitude, value })),
        }],
      },
      options: { plugins: { legend: { display: false } }, scales: { projection: { axis: 'x', projection: 'albersUsa' }, size: { axis: 'x', size: [2, 30] } } },
    },
    minInk: 1000,
  },
];
