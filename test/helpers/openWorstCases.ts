// Configs that push per-unit options of Chart.js 4.6, chartjs-plugin-annotation 3.1 and
// chartjs-plugin-datalabels 2.2 to extremes: the worst-case bench renders them, and the
// property test in test/integration/open-caps.test.ts checks each is either rendered or refused.
type Cfg = Record<string, unknown>;
export type WorstCase = readonly [string, Cfg, Record<string, string>?];

const labels = (n: number) => Array.from({ length: n }, (_, i) => `L${i}`);
const nums = (n: number) => Array.from({ length: n }, (_, i) => (i * 37) % 101);
const bar = (options: Cfg, ds: Cfg = {}): Cfg => ({ type: 'bar', data: { labels: labels(5), datasets: [{ data: [1, 5, 3, 8, 2], ...ds }] }, options });
const line = (options: Cfg, ds: Cfg = {}, n = 5): Cfg => ({ type: 'line', data: { labels: labels(n), datasets: [{ data: nums(n), ...ds }] }, options });
const ann = (a: Cfg): Cfg => bar({ plugins: { annotation: { annotations: { a } } } });
const timeX = (x: Cfg, data: unknown[]): Cfg => ({ type: 'line', data: { datasets: [{ data }] }, options: { scales: { x: { type: 'time', ...x } } } });

export const WORST_CASES: WorstCase[] = [
  ['ticks.count 1e8', bar({ scales: { y: { ticks: { count: 1e8 } } } })],
  ['ticks.count at cap', bar({ scales: { y: { ticks: { count: 100 } } } })],
  ['ticks.maxTicksLimit 1e8 with stepSize tiny', bar({ scales: { y: { ticks: { maxTicksLimit: 1e8, stepSize: 1e-6 } } } })],
  ['ticks.stepSize tiny (Chart.js stops at 1000 ticks)', bar({ scales: { y: { ticks: { stepSize: 0.008 } } } })],
  ['ticks.stepSize tiny, radar', { type: 'radar', data: { labels: labels(5), datasets: [{ data: [1, 5, 3, 8, 2] }] }, options: { scales: { r: { ticks: { stepSize: 0.008 } } } } }],
  ['ticks.count at cap, radar', { type: 'radar', data: { labels: labels(5), datasets: [{ data: [1, 5, 3, 8, 2] }] }, options: { scales: { r: { ticks: { count: 100 } } } } }],
  ['grace 1e300 with stepSize 1 (Chart.js stops at 1000 ticks)', bar({ scales: { y: { grace: 1e300, ticks: { stepSize: 1 } } } })],
  ['doughnut circumference/rotation 1e8', { type: 'doughnut', data: { labels: labels(5), datasets: [{ data: [1, 5, 3, 8, 2], circumference: 1e8, rotation: 1e8 }] } }],
  ['log scale at cap (100 decades)', bar({ scales: { y: { type: 'logarithmic', min: 1e-50, max: 1e50 } } })],
  ['polarArea angle 1e8', { type: 'polarArea', data: { labels: labels(5), datasets: [{ data: [1, 5, 3, 8, 2], angle: 1e8 }] } }],
  ['log scale 1e-300..1e300', bar({ scales: { y: { type: 'logarithmic' } } }, { data: [1e-300, 1e300, 1, 2, 3] })],
  ['log scale min/max 1e-300..1e300', bar({ scales: { y: { type: 'logarithmic', min: 1e-300, max: 1e300 } } })],
  ['time unit millisecond over a day', timeX({ time: { unit: 'millisecond' } }, [{ x: 0, y: 1 }, { x: 86_400_000, y: 2 }])],
  ['time unit millisecond 99999 ms', timeX({ time: { unit: 'millisecond' } }, [{ x: 0, y: 1 }, { x: 99_999, y: 2 }])],
  ['time unit second min/max strings', timeX({ time: { unit: 'second' }, min: '2020-01-01', max: '2020-01-02' }, [{ x: '2020-01-01', y: 1 }])],
  ['time auto unit over 270,000 years', timeX({}, [{ x: -8.5e15, y: 1 }, { x: 8.5e15, y: 2 }])],
  ['time auto unit 90,000 years', timeX({}, [{ x: 0, y: 1 }, { x: 2.84e15, y: 2 }])],
  ['time unit day, fractional stepSize (date-fns never advances)', timeX({ time: { unit: 'day' }, ticks: { stepSize: 0.5 } }, [{ x: '2020-01-01', y: 1 }, { x: '2020-01-10', y: 2 }])],
  ['time unit hour at cap (1000 ticks)', timeX({ time: { unit: 'hour' } }, [{ x: 0, y: 1 }, { x: 3_600_000_000, y: 2 }])],
  ['time auto unit at cap (1000 years)', timeX({}, [{ x: 0, y: 1 }, { x: 3.1e13, y: 2 }])],
  ['timeseries labels ms', { type: 'line', data: { labels: [0, 99_999], datasets: [{ data: [1, 2] }] }, options: { scales: { x: { type: 'timeseries', time: { unit: 'millisecond' } } } } }],
  ['annotation polygon sides 1e8', ann({ type: 'polygon', xValue: 1, yValue: 3, sides: 1e8, radius: 50 })],
  ['annotation polygon sides at cap', ann({ type: 'polygon', xValue: 1, yValue: 3, sides: 64, radius: 50 })],
  ['annotation point radius 1e8', ann({ type: 'point', xValue: 1, yValue: 3, radius: 1e8 })],
  ['annotation shadowBlur 1e6', ann({ type: 'box', xMin: 0, xMax: 3, yMin: 1, yMax: 5, shadowBlur: 1e6, backgroundShadowColor: 'black' })],
  ['annotation label huge font', ann({ type: 'label', xValue: 1, yValue: 3, content: ['x'], font: { size: 1e6 } })],
  ['pointRadius 1e8', line({}, { pointRadius: 1e8 })],
  ['pointHitRadius/hoverRadius 1e8', line({}, { pointHitRadius: 1e8, pointHoverRadius: 1e8 })],
  ['bubble r 1e8', { type: 'bubble', data: { datasets: [{ data: [{ x: 1, y: 1, r: 1e8 }] }] } }],
  ['borderDash tiny on 500 points', line({}, { borderDash: [1e-3, 1e-3] }, 500)],
  ['grid borderDash tiny', bar({ scales: { y: { grid: { tickBorderDash: [1e-3], borderDash: [1e-3] } }, x: { border: { dash: [1e-3, 1e-3] } } } })],
  ['borderDashOffset 1e300', line({}, { borderDash: [4, 4], borderDashOffset: 1e300 })],
  ['font size 1e6 ticks', bar({ scales: { y: { ticks: { font: { size: 1e6 } } } } })],
  ['title font 1e5 long text', bar({ plugins: { title: { display: true, text: 'W'.repeat(3000), font: { size: 1e5 } } } })],
  ['borderWidth 1e8', line({}, { borderWidth: 1e8 })],
  ['bar borderWidth 1e8 borderRadius 1e8', bar({}, { borderWidth: 1e8, borderRadius: 1e8 })],
  ['padding 1e8', bar({ layout: { padding: 1e8 } })],
  ['padding -1e8', bar({ layout: { padding: -1e8 } })],
  ['tension 1e8', line({}, { tension: 1e8 }, 500)],
  ['barThickness 1e8', bar({}, { barThickness: 1e8 })],
  ['datalabels 20 labels x 500 points', { type: 'line', data: { labels: labels(250), datasets: [{ data: nums(250) }] }, options: { plugins: { datalabels: { display: 'auto', labels: Object.fromEntries(labels(20).map((k) => [k, {}])) } } } }],
  ['datalabels huge font/padding/shadow', bar({ plugins: { datalabels: { display: true, font: { size: 1e6 }, padding: 1e8, textShadowBlur: 1e6, borderWidth: 1e8, textStrokeWidth: 1e8 } } })],
  ['1000 empty datasets', { type: 'bar', data: { datasets: Array.from({ length: 1000 }, () => ({})) } }],
  ['100 datasets at cap, 5 points each', { type: 'bar', data: { labels: labels(5), datasets: Array.from({ length: 100 }, () => ({ data: [1, 2, 3, 4, 5] })) } }],
  ['object-form data 560 points', { type: 'bar', data: { datasets: [{ data: Object.fromEntries(Array.from({ length: 560 }, (_, i) => [i.toString(36), i % 10])) }] } }],
  ['object-form data 500 points', { type: 'bar', data: { datasets: [{ data: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [i.toString(36), i % 10])) }] } }],
  ['250 labels multi-line', { type: 'bar', data: { labels: labels(200).map((l) => [l, l]), datasets: [{ data: nums(200) }] } }],
  ['grid dash at cap, 2000x2000', bar({ scales: { y: { ticks: { count: 1000 }, grid: { borderDash: [1, 1] } } } }), { w: '2000', h: '2000' }],
  ['1000 ticks radar 2000x2000', { type: 'radar', data: { labels: labels(50), datasets: [{ data: nums(50) }] }, options: { scales: { r: { ticks: { count: 1000 } } } } }, { w: '2000', h: '2000' }],
  ['legend labels huge boxWidth/padding', bar({ plugins: { legend: { labels: { boxWidth: 1e8, padding: 1e8 } } } })],
  ['decimation samples 1e9', { type: 'line', data: { datasets: [{ data: nums(100).map((y, x) => ({ x, y })) }] }, options: { parsing: false, scales: { x: { type: 'linear' } }, plugins: { decimation: { enabled: true, algorithm: 'lttb', samples: 1e9, threshold: 1 } } } }],
  ['radar pointLabels font 1e5', { type: 'radar', data: { labels: labels(100), datasets: [{ data: nums(100) }] }, options: { scales: { r: { pointLabels: { font: { size: 1e5 } } } } } }],
  ['500-point line, datalabels 10 labels, 2000x2000', { type: 'line', data: { datasets: [{ data: nums(500) }] }, options: { scales: { x: { type: 'linear' } }, plugins: { datalabels: { display: 'auto', labels: Object.fromEntries(labels(10).map((k) => [k, {}])) } } } }, { w: '2000', h: '2000' }],
  ['500 points, 1e8 tension dash radius, 2000x2000', { type: 'line', data: { datasets: [{ data: nums(500), tension: 1e8, borderDash: [1, 1], pointRadius: 2000, borderWidth: 2000 }] }, options: { scales: { x: { type: 'linear' } } } }, { w: '2000', h: '2000' }],
  // the Chart.js 4 chart-type plugins, each at its caps (the URL's 8192 bytes bind the data first)
  ['plugin: force-directed graph 150 nodes, 150 edges, 300 ticks, 2000x2000', { type: 'forceDirectedGraph', data: { labels: labels(150), datasets: [{ data: labels(150).map(() => ({})), edges: labels(150).map((_, i) => ({ source: i, target: (i * 7 + 1) % 150 })), simulation: { initialIterations: 300 } }] } }, { w: '2000', h: '2000' }],
  // refused: 100 words of 100 px on 500x300 took 4 s, 200 px with 3 regrowths 5-13 s
  ['plugin: word cloud 100 words of 100 px', { type: 'wordCloud', data: { labels: labels(100), datasets: [{ data: labels(100).map(() => 100) }] } }],
  ['plugin: euler 31 areas', { type: 'euler', data: { labels: labels(31), datasets: [{ data: Array.from({ length: 31 }, (_, i) => ({ sets: ['A', 'B', 'C', 'D', 'E'].filter((_, b) => ((i + 1) >> b) & 1), value: (i * 7) % 13 + 1 })) }] } }],
  ['plugin: violin 1000 density points x 40 boxes of 10, 2000x2000', { type: 'violin', data: { labels: labels(40), datasets: [{ data: labels(40).map((_, i) => nums(10).map((v) => v + i)), points: 1000 }] } }, { w: '2000', h: '2000' }],
  ['plugin: treemap 500 leaves, 2000x2000', { type: 'treemap', data: { datasets: [{ tree: nums(500).map((v) => v + 1), labels: { display: true } }] } }, { w: '2000', h: '2000' }],
  ['plugin: dendrogram 200 nodes, radial, 2000x2000', { type: 'dendrogram', data: { labels: labels(200), datasets: [{ data: labels(200).map((_, i) => (i === 0 ? {} : { parent: Math.floor((i - 1) / 3) })), tree: { orientation: 'radial' } }] } }, { w: '2000', h: '2000' }],
];
