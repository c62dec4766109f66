// QuickChart's hosted features on the Chart.js versions its docs use for them. Third-party chart
// types and plugins (gauge and error bars on Chart.js 2; sankey, funnel and candlestick on 3) are
// drawn beside plain Chart.js on a plain <canvas> in the same Chromium, with only that plugin's
// vendored build loaded: identical pixels. QuickChart's own behaviour (tickFormat, roundedBars,
// the colorschemes order) is checked on what is drawn: tick labels against a reference whose
// labels are written out here, pixel colours at known points. The third-party ones are drawn
// through keyless GET /chart (QUICKCHART_ANONYMOUS): the open gate admits each version's types
// (decision 28). PNG_DIR keeps the images.
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, differingPixels, inkedPixels } from '../helpers/images.js';
import { FidelityOracle } from '../helpers/oracle.js';
import { PAGE_BUDGETS } from '../../src/render/budgets.js';
import { renderStoppedBy } from '../../src/services/render.js';
import { CHARTJS_PAGES } from '../../src/chart/chartjsPages.js';

/** The oracle page's hook: tick labels written out for Chart.js 2's first y axis, when a test gives them. */
const Y_TICK_LABELS = `window.oraclePrepare = function (cfg, labels) {
  if (labels) cfg.options.scales.yAxes[0].ticks.callback = function (value) { return labels[String(value)]; };
};`;
const OFF = { datalabels: { display: false } };
const DAY = 86_400_000;

/** Each example: the Chart.js version QuickChart's docs use, the plugin build, the config. */
const ORACLE_EXAMPLES: Array<{ name: string; v: 2 | 3; files: string[]; config: Record<string, unknown> }> = [
  {
    // the speedometer of QuickChart's chart-types page (its value label formatter is a function)
    name: 'gauge (chartjs-gauge 0.3.0)',
    v: 2,
    files: ['v2/chartjs-gauge.js'],
    config: {
      type: 'gauge',
      data: { datasets: [{ value: 50, data: [20, 40, 60], backgroundColor: ['green', 'orange', 'red'], borderWidth: 2 }] },
      options: { valueLabel: { fontSize: 22, backgroundColor: 'transparent', color: '#000', bottomMarginPercentage: 10 } },
    },
  },
  {
    name: 'error bars (chartjs-plugin-error-bars 1.2.2)',
    v: 2,
    files: ['v2/chartjs-plugin-error-bars.js'],
    config: {
      type: 'bar',
      data: { labels: ['A', 'B', 'C'], datasets: [{ label: 'd', data: [10, 20, 15], backgroundColor: '#4e79a7', errorBars: { A: { plus: 3, minus: -2 }, B: { plus: 5, minus: -5 }, C: { plus: 1, minus: -4 } } }] },
      options: { scales: { yAxes: [{ ticks: { beginAtZero: true, suggestedMax: 26 } }] }, plugins: { ...OFF, chartJsPluginErrorBars: { width: '40%', color: '#000', lineWidth: 2 } } },
    },
  },
  {
    // QuickChart's sankey example
    name: 'sankey on Chart.js 3 (chartjs-chart-sankey 0.19.1)',
    v: 3,
    files: ['chartjs-chart-sankey.js'],
    config: {
      type: 'sankey',
      data: { datasets: [{ data: [{ from: 'Step A', to: 'Step B', flow: 10 }, { from: 'Step A', to: 'Step C', flow: 5 }, { from: 'Step B', to: 'Step C', flow: 10 }, { from: 'Step D', to: 'Step C', flow: 7 }] }] },
    },
  },
  {
    name: 'funnel on Chart.js 3 (chartjs-chart-funnel 4.2.5)',
    v: 3,
    files: ['chartjs-chart-funnel.js'],
    config: { type: 'funnel', data: { labels: ['Visits', 'Sign-ups', 'Orders'], datasets: [{ data: [0.9, 0.5, 0.2] }] } },
  },
  {
    name: 'candlestick on Chart.js 3 (chartjs-chart-financial 0.1.1)',
    v: 3,
    files: ['chartjs-adapter-date-fns.js', 'v3/chartjs-chart-financial.js'],
    config: {
      type: 'candlestick',
      data: { datasets: [{ label: 'ACME', data: [[1, 3, 0.5, 2], [2, 4, 1, 1.5], [1.5, 2, 1, 1.8], [1.8, 2.6, 1.2, 2.4]].map(([o, h, l, c], i) => ({ x: 1_600_000_000_000 + i * DAY, o, h, l, c })) }] },
    },
  },
];

// Chart.js 2 lays out 0-1.8M in steps of 200K at this size: each label as QuickChart's docs show it
const COMPACT_DOLLARS: Record<number, string> = { 0: '$0' };
for (let k = 1; k <= 9; k++) COMPACT_DOLLARS[k * 200_000] = k * 200 >= 1000 ? `$${(k * 200) / 1000}M` : `$${k * 200}K`;

const TABLEAU10 = [
  [0x4e, 0x79, 0xa7],
  [0xf2, 0x8e, 0x2b],
  [0xe1, 0x57, 0x59],
  [0x76, 0xb7, 0xb2],
];

describe("QuickChart's hosted features (gauge, error bars, sankey, funnel, financial, tickFormat, roundedBars, colorschemes)", function () {
  this.timeout(180000);
  let s: TestServer;
  let oracle: FidelityOracle;
  const dumpDir = process.env.PNG_DIR;

  before(async () => {
    s = await startTestServer({ poolSize: 1, quickchartAnonymous: true, openRendersPerHour: 1_000_000 });
    oracle = await FidelityOracle.launch();
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  });
  after(async () => {
    await oracle?.close();
    await s?.stop();
  });

  /** What plain Chart.js draws with these builds; `yTickLabels` gives Chart.js 2's first y axis a
   *  callback that answers each tick value with the label written for it. */
  async function reference(v: 2 | 3, files: string[], chart: Record<string, unknown>, width: number, height: number, yTickLabels?: Record<number, string>): Promise<Buffer> {
    const page = await oracle.page([v === 2 ? 'v2/chart.js' : 'v3/chart.js', ...files], Y_TICK_LABELS);
    return oracle.draw(page, chart, { width, height, background: '#ffffff', extra: yTickLabels ?? null });
  }

  async function draw(name: string, v: 2 | 3, config: Record<string, unknown>, width: number, height: number) {
    const body = (await s.deps.renderer.render({ config: structuredClone(config), width, height, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null, chartjs: v, devicePixelRatio: 1 })).body;
    if (dumpDir) writeFileSync(join(dumpDir, `${name.replace(/\W+/g, '-')}.png`), body);
    return decodePng(body);
  }

  /** Drawn through keyless GET /chart, as QuickChart's docs send it (c as JSON, v for the version). */
  async function drawKeyless(name: string, v: 2 | 3, config: Record<string, unknown>, width: number, height: number) {
    const res = await fetch(`${s.url}/chart?v=${v}&w=${width}&h=${height}&devicePixelRatio=1&bkg=white&c=${encodeURIComponent(JSON.stringify(config))}`);
    expect(res.status, res.headers.get('x-quickchart-error') ?? '').to.equal(200);
    const body = Buffer.from(await res.arrayBuffer());
    if (dumpDir) writeFileSync(join(dumpDir, `${name.replace(/\W+/g, '-')}.png`), body);
    return decodePng(body);
  }

  function expectSame(ours: ReturnType<typeof decodePng>, ref: ReturnType<typeof decodePng>, minInk: number) {
    expect([ours.width, ours.height]).to.deep.equal([ref.width, ref.height]);
    const differing = differingPixels(ours, ref);
    expect(differing, `${differing} pixels differ`).to.equal(0);
    expect(inkedPixels(ours), 'pixels drawn').to.be.greaterThan(minInk);
  }

  const rgbAt = (img: ReturnType<typeof decodePng>, x: number, y: number) => {
    const i = (y * img.width + x) * 4;
    return [img.data[i], img.data[i + 1], img.data[i + 2]];
  };

  for (const ex of ORACLE_EXAMPLES) {
    it(`${ex.name}, keyless: identical pixels to plain Chart.js ${ex.v} with that build`, async () => {
      const ours = await drawKeyless(ex.name, ex.v, ex.config, 400, 240);
      const refBuf = await reference(ex.v, ex.files, ex.config, 400, 240);
      if (dumpDir) writeFileSync(join(dumpDir, `${ex.name.replace(/\W+/g, '-')}.oracle.png`), refBuf);
      expectSame(ours, decodePng(refBuf), 2000);
    });
  }

  it("tickFormat {prefix: '$', notation: 'compact'} labels the value axis $0 ... $1.8M, as QuickChart's docs show", async () => {
    const base = {
      type: 'bar',
      data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], datasets: [{ label: 'Revenue', data: [50000, 60000, 70000, 1800000], backgroundColor: '#3300cc' }] },
      options: { scales: { yAxes: [{ ticks: { beginAtZero: true } }] }, plugins: OFF },
    };
    const withFormat = structuredClone(base);
    (withFormat.options.plugins as Record<string, unknown>).tickFormat = { prefix: '$', notation: 'compact' };
    const ours = await draw('tickFormat', 2, withFormat, 500, 300);
    expectSame(ours, decodePng(await reference(2, [], base, 500, 300, COMPACT_DOLLARS)), 2000);
  });

  it('roundedBars {cornerRadius: 40}: the value end of a bar is rounded, its base is not', async () => {
    const img = await draw('roundedBars', 2, {
      type: 'bar',
      data: { labels: ['a'], datasets: [{ data: [10], backgroundColor: '#ff0000' }] },
      options: {
        legend: { display: false },
        scales: { xAxes: [{ display: false, barPercentage: 1, categoryPercentage: 1 }], yAxes: [{ display: false, ticks: { min: 0, max: 10 } }] },
        plugins: { ...OFF, roundedBars: { cornerRadius: 40 } },
      },
    }, 200, 200);
    const red = [255, 0, 0];
    const white = [255, 255, 255];
    // the bar fills the chart: its top edge and sides are red away from the corners
    expect(rgbAt(img, 100, 2)).to.deep.equal(red);
    expect(rgbAt(img, 2, 100)).to.deep.equal(red);
    expect(rgbAt(img, 197, 100)).to.deep.equal(red);
    // top corners cut by the radius of 40; bottom corners (the base) square
    expect(rgbAt(img, 3, 3)).to.deep.equal(white);
    expect(rgbAt(img, 196, 3)).to.deep.equal(white);
    expect(rgbAt(img, 3, 196)).to.deep.equal(red);
    expect(rgbAt(img, 196, 196)).to.deep.equal(red);
  });

  it("colorschemes as QuickChart's fork applies it: a polarArea chart's slices take tableau.Tableau10 one by one", async () => {
    const img = await draw('polarArea-palette', 2, {
      type: 'polarArea',
      data: { labels: ['a', 'b', 'c', 'd'], datasets: [{ data: [1, 1, 1, 1], borderWidth: 0 }] },
      options: { legend: { display: false }, scale: { display: false }, plugins: OFF },
    }, 200, 200);
    // slices start at 12 o'clock and go clockwise: upper right, lower right, lower left, upper left
    expect(rgbAt(img, 140, 60)).to.deep.equal(TABLEAU10[0]);
    expect(rgbAt(img, 140, 140)).to.deep.equal(TABLEAU10[1]);
    expect(rgbAt(img, 60, 140)).to.deep.equal(TABLEAU10[2]);
    expect(rgbAt(img, 60, 60)).to.deep.equal(TABLEAU10[3]);
  });

  it("a gauge's thresholds and a sankey's flows count as elements: past the anonymous budget the page refuses them", async () => {
    const n = PAGE_BUDGETS.anonymous.elements + 1;
    const many = (v: 2 | 3, config: Record<string, unknown>) =>
      s.deps.renderer.render({ config, width: 300, height: 200, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null, chartjs: v }, undefined, undefined, undefined, 'anonymous').then(
        () => 'rendered',
        (err: unknown) => renderStoppedBy(err) ?? String(err),
      );
    expect(await many(2, { type: 'gauge', data: { datasets: [{ value: 1, data: Array.from({ length: n }, (_, i) => i) }] } })).to.equal('budget');
    expect(await many(3, { type: 'sankey', data: { datasets: [{ data: Array.from({ length: n }, (_, i) => ({ from: `a${i}`, to: `b${i}`, flow: 1 })) }] } })).to.equal('budget');
  });

  it('tickFormat options Intl.NumberFormat refuses are a 400 naming the plugin, and the page draws on', async () => {
    const bar = (tickFormat: Record<string, unknown>) => ({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { tickFormat } } });
    for (const bad of [{ style: 'currency' }, { maximumFractionDigits: 1000 }, { locale: 'xx-!!' }]) {
      const err = (await s.deps.renderer.render({ config: bar(bad), width: 200, height: 100, format: 'png', backgroundColor: null, allowFunctions: false, watermark: null, chartjs: 2 }).then(
        () => null,
        (e: unknown) => e,
      )) as { status?: number; detail?: string; message?: string } | null;
      expect(err, JSON.stringify(bad)).to.not.equal(null);
      expect(err!.status).to.equal(400);
      expect(err!.detail ?? err!.message).to.match(/options\.plugins\.tickFormat: /);
    }
    await draw('tickFormat-after-refusals', 2, bar({ style: 'percent' }), 200, 100);
  });

  it("QuickChart's speedometer example as JavaScript ending in ';', through GET /chart with a key: drawn, its formatter too", async () => {
    const { api_key: key } = await s.account('starter');
    const gauge = (formatter: string) =>
      `{type:'gauge',data:{datasets:[{value:50,data:[20,40,60],backgroundColor:['green','orange','red'],borderWidth:2}]},` +
      `options:{valueLabel:{fontSize:22,backgroundColor:'transparent',color:'#000',${formatter}bottomMarginPercentage:10}}};\n`;
    const get = async (c: string) => {
      const res = await fetch(`${s.url}/chart?key=${key}&devicePixelRatio=1&bkg=white&c=${encodeURIComponent(c)}`);
      expect(res.status, res.headers.get('x-quickchart-error') ?? '').to.equal(200);
      return decodePng(Buffer.from(await res.arrayBuffer()));
    };
    const withFormatter = await get(gauge("formatter:function(value,context){return value+' mph';},"));
    const plain = await get(gauge(''));
    expect([withFormatter.width, withFormatter.height]).to.deep.equal([500, 300]);
    let differing = 0;
    for (let i = 0; i < plain.data.length; i++) if (plain.data[i] !== withFormatter.data[i]) differing++;
    // the formatter ran: '50 mph' is drawn where '50' was
    expect(differing, 'bytes that differ').to.be.greaterThan(100);
  });
  it('each page registers exactly the chart types chartjsPages.ts lists, the list the keyless gate admits per version', async () => {
    for (const [major, file] of [[2, 'harness2.html'], [3, 'harness3.html'], [4, 'harness.html']] as const) {
      const page = await oracle.newPage();
      try {
        await page.goto(pathToFileURL(join('renderer-page', file)).href);
        const registered = await page.evaluate(() => {
          const C = (window as unknown as { Chart: { registry?: { controllers: { items: object } }; controllers: object } }).Chart;
          return Object.keys(C.registry ? C.registry.controllers.items : C.controllers);
        });
        const listed = CHARTJS_PAGES.find((p) => p.major === major)!.types;
        expect(registered, `Chart.js ${major}`).to.include.members([...listed]);
        // chartjs-chart-graph also registers its old misspelling "dendogram" on 4: not offered
        expect(registered.filter((t) => !listed.includes(t)), `Chart.js ${major}`).to.deep.equal(major === 4 ? ['dendogram'] : []);
      } finally {
        await page.close();
      }
    }
  });

  it('keyless v2/v3 charts over the open caps: 400 with X-quickchart-error and an error image, never a 500; the page draws on', async () => {
    const get = (v: 2 | 3, config: Record<string, unknown>) => fetch(`${s.url}/chart?v=${v}&c=${encodeURIComponent(JSON.stringify(config))}`);
    const many = Array.from({ length: 501 }, (_, i) => i);
    const attacks: Array<[2 | 3, Record<string, unknown>, RegExp]> = [
      [2, { type: 'gauge', data: { datasets: [{ value: 1, data: many }] } }, /501 data points; at most 500/],
      [3, { type: 'funnel', data: { datasets: [{ data: many }] } }, /501 data points; at most 500/],
      [2, { type: 'violin', data: { labels: ['a'], datasets: [{ data: [[1, 2, 3]] }] }, options: { elements: { violin: { points: 1e7 } } } }, /points is 10000000; the open endpoint allows 0\.\.1000/],
    ];
    for (const [v, config, reason] of attacks) {
      const res = await get(v, config);
      expect(res.status, String(config.type)).to.equal(400);
      expect(res.headers.get('x-quickchart-error'), String(config.type)).to.match(reason);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(decodePng(Buffer.from(await res.arrayBuffer())).width).to.be.greaterThan(0);
    }
    const ok = await get(2, { type: 'gauge', data: { datasets: [{ value: 1, data: [1, 2, 3] }] } });
    expect(ok.status, ok.headers.get('x-quickchart-error') ?? '').to.equal(200);
  });

  it("Chart.js 2's boxplot values and violin density are budgeted in the page; a config cannot turn the page's own plugins off", async () => {
    const outcome = (v: 2 | 3 | 4, config: Record<string, unknown>, cls: 'anonymous' | 'paid', watermark: string | null = null) =>
      s.deps.renderer.render({ config, width: 300, height: 150, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark, chartjs: v }, undefined, undefined, undefined, cls).then(
        (img) => img.body,
        (err: unknown) => renderStoppedBy(err) ?? String(err),
      );
    const values = Array.from({ length: PAGE_BUDGETS.anonymous.elements + 1 }, (_, i) => i % 97);
    expect(await outcome(2, { type: 'boxplot', data: { labels: ['a'], datasets: [{ data: [values] }] } }, 'anonymous')).to.equal('budget');
    const points = PAGE_BUDGETS.paid.units.densityPoints + 1;
    expect(await outcome(2, { type: 'violin', data: { labels: ['a'], datasets: [{ data: [[1, 2, 3]] }] }, options: { elements: { violin: { points } } } }, 'paid')).to.equal('budget');
    // Chart.js skips a plugin whose options.plugins.<id> is false: not the page's own
    const line = { type: 'line', data: { labels: [], datasets: [{ data: values }] }, options: { plugins: { chartshotBudget: false, chartshotPluginBudgets2: false } } };
    expect(await outcome(2, structuredClone(line), 'anonymous')).to.equal('budget');
    expect(await outcome(3, structuredClone(line), 'anonymous')).to.equal('budget');
    const bar = (plugins: Record<string, unknown>) => ({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins } });
    const marked = await outcome(4, bar({}), 'anonymous', 'chartshot');
    const unmarkedAsked = await outcome(4, bar({ chartshotWatermark: false, chartshotBackground: false }), 'anonymous', 'chartshot');
    expect(Buffer.isBuffer(marked) && Buffer.isBuffer(unmarkedAsked) && marked.equals(unmarkedAsked), 'the watermark and background are drawn all the same').to.equal(true);
  });

  it('roundedBars on horizontal bars rounds the value end, left for a negative value; allCorners rounds all four (keyless)', async () => {
    const red = [255, 0, 0];
    const white = [255, 255, 255];
    const h = await drawKeyless('roundedBars-horizontal', 2, {
      type: 'horizontalBar',
      data: { labels: ['a', 'b'], datasets: [{ data: [10, -10], backgroundColor: '#ff0000' }] },
      options: {
        legend: { display: false },
        scales: { xAxes: [{ display: false, ticks: { min: -10, max: 10 } }], yAxes: [{ display: false, barPercentage: 1, categoryPercentage: 1 }] },
        plugins: { ...OFF, roundedBars: { cornerRadius: 30 } },
      },
    }, 200, 200);
    // a: from the middle to the right, its right corners rounded; b: from the middle to the left
    expect(rgbAt(h, 150, 50)).to.deep.equal(red);
    expect(rgbAt(h, 197, 3)).to.deep.equal(white);
    expect(rgbAt(h, 197, 96)).to.deep.equal(white);
    expect(rgbAt(h, 103, 3)).to.deep.equal(red);
    expect(rgbAt(h, 103, 96)).to.deep.equal(red);
    expect(rgbAt(h, 50, 150)).to.deep.equal(red);
    expect(rgbAt(h, 2, 103)).to.deep.equal(white);
    expect(rgbAt(h, 2, 196)).to.deep.equal(white);
    expect(rgbAt(h, 96, 103)).to.deep.equal(red);
    expect(rgbAt(h, 96, 196)).to.deep.equal(red);
    const all = await drawKeyless('roundedBars-allCorners', 2, {
      type: 'bar',
      data: { labels: ['a'], datasets: [{ data: [10], backgroundColor: '#ff0000' }] },
      options: {
        legend: { display: false },
        scales: { xAxes: [{ display: false, barPercentage: 1, categoryPercentage: 1 }], yAxes: [{ display: false, ticks: { min: 0, max: 10 } }] },
        plugins: { ...OFF, roundedBars: { cornerRadius: 40, allCorners: true } },
      },
    }, 200, 200);
    expect(rgbAt(all, 100, 100)).to.deep.equal(red);
    for (const [x, y] of [[3, 3], [196, 3], [3, 196], [196, 196]] as const) expect(rgbAt(all, x, y), `${x},${y}`).to.deep.equal(white);
  });
});
