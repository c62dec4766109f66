// Fidelity on Chart.js 2.9.4 and 3.9.1, and at a device pixel ratio: with explicit colours and
// data labels off, a chartshot PNG is pixel-identical to what that Chart.js draws on a plain
// <canvas> in the same Chromium (responsive and animation off, the ratio as asked). The
// reference is the fidelity oracle (test/helpers/oracle.ts) with the vendored Chart.js alone.
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio, differingPixels } from '../helpers/images.js';
import { FidelityOracle } from '../helpers/oracle.js';

const CHART_FILE = { 2: 'v2/chart.js', 3: 'v3/chart.js', 4: 'chart.umd.js' } as const;

const C = ['#4dc9f6', '#f67019', '#f53794', '#537bc4', '#acc236', '#166a8f'];
const LABELS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun'];
const SERIES = [[12, 19, 3, 5, 2, 3], [7, 11, 5, 8, 3, 7]];
const OFF = { datalabels: { display: false } };

/** Chart.js 2 configs: v2 option names, explicit colours (points too, on line, radar and
 *  scatter: QuickChart's palette fills whatever colour is left unset), axes and line tension. */
const V2: Record<string, Record<string, unknown>> = {
  bar: {
    type: 'bar',
    data: { labels: LABELS, datasets: SERIES.map((d, i) => ({ label: `s${i}`, data: d, backgroundColor: C[i], borderColor: C[i + 2], borderWidth: 1 })) },
    options: { title: { display: true, text: 'Bars' }, scales: { yAxes: [{ ticks: { beginAtZero: true } }] }, plugins: OFF },
  },
  horizontalBar: {
    type: 'horizontalBar',
    data: { labels: LABELS, datasets: [{ label: 'h', data: SERIES[0], backgroundColor: C[3] }] },
    options: { scales: { xAxes: [{ ticks: { min: 0 } }] }, plugins: OFF },
  },
  line: {
    type: 'line',
    data: { labels: LABELS, datasets: SERIES.map((d, i) => ({ label: `l${i}`, data: d, borderColor: C[i], backgroundColor: C[i + 3], pointBorderColor: C[i], pointBackgroundColor: C[i + 3], fill: i === 0, lineTension: 0.4 })) },
    options: { scales: { yAxes: [{ ticks: { beginAtZero: false } }] }, plugins: OFF },
  },
  pie: {
    type: 'pie',
    data: { labels: LABELS, datasets: [{ data: SERIES[0], backgroundColor: C }] },
    options: { legend: { position: 'right' }, plugins: OFF },
  },
  doughnut: {
    type: 'doughnut',
    data: { labels: LABELS.slice(0, 3), datasets: [{ data: [3, 4, 5], backgroundColor: C.slice(0, 3) }] },
    options: { plugins: OFF },
  },
  radar: {
    type: 'radar',
    data: { labels: LABELS, datasets: [{ label: 'r', data: SERIES[1], borderColor: C[1], backgroundColor: 'rgba(246, 112, 25, 0.3)', pointBackgroundColor: C[1], pointBorderColor: C[0] }] },
    options: { plugins: OFF },
  },
  scatter: {
    type: 'scatter',
    data: { datasets: [{ label: 'p', data: [{ x: 1, y: 2 }, { x: 3, y: 7 }, { x: 6, y: 4 }], backgroundColor: C[4], borderColor: C[5], pointBackgroundColor: C[4], pointBorderColor: C[5], pointRadius: 6 }] },
    options: { scales: { yAxes: [{ ticks: { beginAtZero: true } }] }, plugins: OFF },
  },
};

/** Chart.js 3 configs: v3 option names (scales by id, plugins.title/legend). */
const V3: Record<string, Record<string, unknown>> = {
  bar: {
    type: 'bar',
    data: { labels: LABELS, datasets: SERIES.map((d, i) => ({ label: `s${i}`, data: d, backgroundColor: C[i], borderColor: C[i + 2], borderWidth: 1 })) },
    options: { plugins: { title: { display: true, text: 'Bars' } }, scales: { y: { beginAtZero: true } } },
  },
  horizontalBar: {
    type: 'bar',
    data: { labels: LABELS, datasets: [{ label: 'h', data: SERIES[0], backgroundColor: C[3] }] },
    options: { indexAxis: 'y' },
  },
  line: {
    type: 'line',
    data: { labels: LABELS, datasets: SERIES.map((d, i) => ({ label: `l${i}`, data: d, borderColor: C[i], backgroundColor: C[i + 3], fill: i === 0, tension: 0.4 })) },
  },
  pie: { type: 'pie', data: { labels: LABELS, datasets: [{ data: SERIES[0], backgroundColor: C }] }, options: { plugins: { legend: { position: 'right' } } } },
  polarArea: { type: 'polarArea', data: { labels: LABELS.slice(0, 4), datasets: [{ data: [3, 5, 2, 4], backgroundColor: C.slice(0, 4) }] } },
  radar: {
    type: 'radar',
    data: { labels: LABELS, datasets: [{ label: 'r', data: SERIES[1], borderColor: C[1], backgroundColor: 'rgba(246, 112, 25, 0.3)' }] },
  },
  bubble: {
    type: 'bubble',
    data: { datasets: [{ label: 'b', data: [{ x: 1, y: 2, r: 5 }, { x: 3, y: 7, r: 12 }, { x: 6, y: 4, r: 8 }], backgroundColor: C[2] }] },
  },
};

describe('fidelity with plain Chart.js 2.9.4 and 3.9.1 pages, and at a device pixel ratio', function () {
  this.timeout(180000);
  let s: TestServer;
  let oracle: FidelityOracle;

  before(async () => {
    s = await startTestServer({ poolSize: 2 });
    oracle = await FidelityOracle.launch();
  });
  after(async () => {
    await oracle?.close();
    await s?.stop();
  });

  async function expectIdentical(v: 2 | 3 | 4, chart: Record<string, unknown>, width: number, height: number, ratio = 1): Promise<void> {
    const ours = decodePng(
      (await s.deps.renderer.render({ config: chart, width, height, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null, chartjs: v, devicePixelRatio: ratio })).body,
    );
    const ref = decodePng(await oracle.draw(await oracle.page([CHART_FILE[v]]), chart, { width, height, background: '#ffffff', ratio }));
    expect([ours.width, ours.height]).to.deep.equal([ref.width, ref.height]);
    expect([ours.width, ours.height]).to.deep.equal([Math.floor(width * ratio), Math.floor(height * ratio)]);
    const differing = differingPixels(ours, ref);
    expect(differing, `${differing} pixels differ`).to.equal(0);
  }

  // SVG is drawn by a canvas-to-SVG context: anti-aliasing differs a little (at most 1% of pixels)
  for (const [v, name, chart] of [[2, 'bar', V2.bar], [2, 'pie', V2.pie], [3, 'line', V3.line]] as const) {
    it(`Chart.js ${v} ${name}: SVG rasterised matches the PNG`, async () => {
      const base = { config: chart!, width: 500, height: 300, backgroundColor: '#ffffff', allowFunctions: false, watermark: null, chartjs: v };
      const png = (await s.deps.renderer.render({ ...base, format: 'png' })).body;
      const svg = (await s.deps.renderer.render({ ...base, format: 'svg', devicePixelRatio: 2 })).body.toString('utf8');
      const ratio = diffRatio(await oracle.rasterise(svg, 500, 300), png);
      expect(ratio, `${(ratio * 100).toFixed(2)}% of pixels differ`).to.be.at.most(0.01);
    });
  }

  for (const [name, chart] of Object.entries(V2)) {
    it(`Chart.js 2.9.4 ${name}: identical pixels`, () => expectIdentical(2, chart, 500, 300));
  }
  for (const [name, chart] of Object.entries(V3)) {
    it(`Chart.js 3.9.1 ${name}: identical pixels`, () => expectIdentical(3, chart, 500, 300));
  }
  it('Chart.js 2.9.4 bar at ratio 2: identical to Chart.js drawing at devicePixelRatio 2', () => expectIdentical(2, V2.bar!, 500, 300, 2));
  it('Chart.js 3.9.1 line at ratio 2: identical to Chart.js drawing at devicePixelRatio 2', () => expectIdentical(3, V3.line!, 500, 300, 2));
  it('Chart.js 4 bar at ratio 3, odd size: identical to Chart.js drawing at devicePixelRatio 3', () => expectIdentical(4, V3.bar!, 333, 201, 3));
});
