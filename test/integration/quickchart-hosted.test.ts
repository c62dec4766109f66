// QuickChart's hosted features on the Chart.js versions its docs use for them. Third-party chart
// types and plugins (gauge and error bars on Chart.js 2; sankey, funnel and candlestick on 3) are
// drawn beside plain Chart.js on a plain <canvas> in the same Chromium, with only that plugin's
// vendored build loaded: identical pixels. QuickChart's own behaviour (tickFormat, roundedBars,
// the colorschemes order) is checked on what is drawn: tick labels against a reference whose
// labels are written out here, pixel colours at known points. PNG_DIR keeps the images.
import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng } from '../helpers/images.js';
import { PAGE_BUDGETS } from '../../src/render/budgets.js';
import { renderStoppedBy } from '../../src/services/render.js';

const vendor = (f: string) => readFileSync(join('renderer-page/vendor', f), 'utf8').replace(/<\/script/gi, '<\\/script');
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
  let lb: LaunchedBrowser;
  const oracles = new Map<string, Page>();
  const dumpDir = process.env.PNG_DIR;

  before(async () => {
    s = await startTestServer({ poolSize: 1 });
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  });
  after(async () => {
    await lb?.close();
    await s?.stop();
  });

  async function oracleFor(v: 2 | 3, files: string[]): Promise<Page> {
    const key = `${v}:${files.join(',')}`;
    let page = oracles.get(key);
    if (page) return page;
    page = await lb.browser.newPage();
    const scripts = [v === 2 ? 'v2/chart.js' : 'v3/chart.js', ...files].map((f) => `<script>${vendor(f)}</script>`).join('');
    await page.setContent(`<!doctype html><html><body style="margin:0">${scripts}</body></html>`);
    oracles.set(key, page);
    return page;
  }

  /** What plain Chart.js draws; `yTickLabels` gives Chart.js 2's first y axis a callback that
   *  answers each tick value with the label written for it. */
  async function reference(v: 2 | 3, files: string[], chart: Record<string, unknown>, width: number, height: number, yTickLabels?: Record<number, string>): Promise<Buffer> {
    const page = await oracleFor(v, files);
    const b64 = await page.evaluate(
      (cfgText: string, w: number, h: number, labelsText: string) => {
        const cfg = JSON.parse(cfgText);
        cfg.options = Object.assign({}, cfg.options, { responsive: false, animation: false, devicePixelRatio: 1 });
        const labels = JSON.parse(labelsText) as Record<string, string> | null;
        if (labels) cfg.options.scales.yAxes[0].ticks.callback = (value: number) => labels[String(value)];
        cfg.plugins = [
          {
            id: 'bg',
            beforeDraw(c: { ctx: CanvasRenderingContext2D; width: number; height: number }) {
              c.ctx.save();
              c.ctx.globalCompositeOperation = 'destination-over';
              c.ctx.fillStyle = '#ffffff';
              c.ctx.fillRect(0, 0, c.width, c.height);
              c.ctx.restore();
            },
          },
        ];
        const canvas = document.createElement('canvas');
        canvas.width = w;
        canvas.height = h;
        document.body.appendChild(canvas);
        const Chart = (window as unknown as { Chart: new (c: HTMLCanvasElement, cfg: unknown) => { destroy(): void } }).Chart;
        const c = new Chart(canvas, cfg);
        const url = canvas.toDataURL('image/png');
        c.destroy();
        canvas.remove();
        return url.slice(url.indexOf(',') + 1);
      },
      JSON.stringify(chart),
      width,
      height,
      JSON.stringify(yTickLabels ?? null),
    );
    return Buffer.from(b64, 'base64');
  }

  async function draw(name: string, v: 2 | 3, config: Record<string, unknown>, width: number, height: number) {
    const body = (await s.deps.renderer.render({ config: structuredClone(config), width, height, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null, chartjs: v, devicePixelRatio: 1 })).body;
    if (dumpDir) writeFileSync(join(dumpDir, `${name.replace(/\W+/g, '-')}.png`), body);
    return decodePng(body);
  }

  function expectSame(ours: ReturnType<typeof decodePng>, ref: ReturnType<typeof decodePng>, minInk: number) {
    expect([ours.width, ours.height]).to.deep.equal([ref.width, ref.height]);
    let differing = 0;
    let inked = 0;
    for (let i = 0; i < ours.data.length; i += 4) {
      if (ours.data[i] !== ref.data[i] || ours.data[i + 1] !== ref.data[i + 1] || ours.data[i + 2] !== ref.data[i + 2] || ours.data[i + 3] !== ref.data[i + 3]) differing++;
      if (ours.data[i] !== 255 || ours.data[i + 1] !== 255 || ours.data[i + 2] !== 255) inked++;
    }
    expect(differing, `${differing} pixels differ`).to.equal(0);
    expect(inked, 'pixels drawn').to.be.greaterThan(minInk);
  }

  const rgbAt = (img: ReturnType<typeof decodePng>, x: number, y: number) => {
    const i = (y * img.width + x) * 4;
    return [img.data[i], img.data[i + 1], img.data[i + 2]];
  };

  for (const ex of ORACLE_EXAMPLES) {
    it(`${ex.name}: identical pixels to plain Chart.js ${ex.v} with that build`, async () => {
      const ours = await draw(ex.name, ex.v, ex.config, 400, 240);
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
});
