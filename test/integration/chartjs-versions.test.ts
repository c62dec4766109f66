// Chart.js 2 and 3 pages beside 4, device pixel ratio and JavaScript configs, on real Chromium:
// through RenderService, as the routes call it.
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { poolIdle, tcpSink } from '../helpers/sinks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decodePng, pixel } from '../helpers/images.js';
import type { RenderRequest } from '../../src/chart/request.js';
import { PDFDocument } from 'pdf-lib';
import { AppError } from '../../src/errors.js';
import { Renderer, type PageRequest, type PoolOptions } from '../../src/render/renderer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../helpers/poll.js';

const OUT = 'test/output/chartjs-versions';
const BAR2 = { type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'sales', data: [3, 5, 4] }] } };

function req(config: Record<string, unknown>, extra: Partial<RenderRequest> = {}): RenderRequest {
  return { config, width: 500, height: 300, format: 'png', backgroundColor: '#ffffff', allowFunctions: true, watermark: null, ...extra };
}

function hex(p: [number, number, number, number]): string {
  return '#' + p.slice(0, 3).map((v) => v.toString(16).padStart(2, '0')).join('');
}

/** Every distinct opaque colour of an image, as #rrggbb. */
function colours(buf: Buffer): Set<string> {
  const img = decodePng(buf);
  const out = new Set<string>();
  for (let i = 0; i < img.data.length; i += 4) {
    if (img.data[i + 3] === 255) out.add(hex([img.data[i]!, img.data[i + 1]!, img.data[i + 2]!, 255]));
  }
  return out;
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the render to fail');
}

describe('Chart.js 2 and 3 beside 4', function () {
  this.timeout(120000);
  let s: TestServer;
  const render = (r: RenderRequest) => s.deps.renderer.render(r).then((x) => x.body);
  before(async () => {
    mkdirSync(OUT, { recursive: true });
    // a version switch (a page reloaded with another Chart.js) takes seconds on a loaded machine: requests wait for it
    s = await startTestServer({ poolSize: 2, renderTimeoutMs: 2000, acquireTimeoutMs: 60_000 });
  });
  after(async () => s?.stop());

  it('each version draws with its own Chart.js: horizontalBar is a v2 type, refused on 3 and 4', async () => {
    const cfg = { type: 'horizontalBar', data: BAR2.data };
    expect(decodePng(await render(req(cfg, { chartjs: 2 }))).width).to.equal(500);
    for (const v of [3, 4] as const) {
      const err = await failure(render(req(cfg, { chartjs: v })));
      expect(err.status).to.equal(400);
      expect(err.message + JSON.stringify(err)).to.match(/unsupported chart type "horizontalBar"/);
    }
    // v3 and v4 scale syntax: `scales.x`
    const v3 = await render(req({ ...BAR2, options: { scales: { x: { display: false } } } }, { chartjs: 3 }));
    expect(decodePng(v3).height).to.equal(300);
  });

  it('devicePixelRatio 2 gives width x 2 by height x 2 pixels on every version; SVG keeps its size', async () => {
    for (const v of [2, 3, 4] as const) {
      const png = decodePng(await render(req(BAR2, { chartjs: v, devicePixelRatio: 2 })));
      expect([png.width, png.height], `Chart.js ${v}`).to.deep.equal([1000, 600]);
      const svg = (await render(req(BAR2, { chartjs: v, devicePixelRatio: 2, format: 'svg' }))).toString('utf8');
      expect(svg, `Chart.js ${v} SVG`).to.match(/<svg[^>]*width="500"[^>]*height="300"/);
    }
    const odd = decodePng(await render(req(BAR2, { chartjs: 2, width: 333, height: 201, devicePixelRatio: 1.5 })));
    expect([odd.width, odd.height]).to.deep.equal([499, 301]);
  });

  it('a canvas kept between renders draws the same at any ratio: 1, 2, 1, 2 give two identical pairs', async () => {
    for (const v of [2, 4] as const) {
      const one = await render(req(BAR2, { chartjs: v }));
      const two = await render(req(BAR2, { chartjs: v, devicePixelRatio: 2 }));
      expect((await render(req(BAR2, { chartjs: v }))).equals(one), `Chart.js ${v} ratio 1`).to.equal(true);
      expect((await render(req(BAR2, { chartjs: v, devicePixelRatio: 2 }))).equals(two), `Chart.js ${v} ratio 2`).to.equal(true);
    }
  });

  it("a kept canvas looks to plugins as a plain one does: its size and attributes before and after Chart.js scales it", async () => {
    // what a plugin reads, thrown back as the render's error message
    const probe = (v: 2 | 3 | 4) => ({
      ...BAR2,
      plugins: [
        {
          beforeInit:
            "function (chart) { var c = chart.canvas; chart.$seen = c.width + 'x' + c.height + '/' + c.getAttribute('width') + 'x' + c.getAttribute('height'); }",
          afterRender:
            "function (chart) { var c = chart.canvas; throw new Error('seen ' + chart.$seen + ' then ' + c.width + 'x' + c.height + '/' + c.getAttribute('width') + 'x' + c.getAttribute('height') + ' ' + c.style.width); }",
        },
      ],
    });
    for (const v of [2, 3, 4] as const) {
      for (let k = 0; k < 2; k++) {
        const err = await failure(render(req(probe(v), { chartjs: v, devicePixelRatio: 2 })));
        expect(err.message + JSON.stringify(err), `Chart.js ${v}, render ${k + 1}`).to.match(/seen 500x300\/500x300 then 1000x600\/1000x600 500px/);
      }
      // after a refused render the next one on a kept canvas draws as before
      const again = decodePng(await render(req(BAR2, { chartjs: v, devicePixelRatio: 2 })));
      expect([again.width, again.height]).to.deep.equal([1000, 600]);
    }
  });

  it('caller code cannot redefine a kept canvas or resize it through its attributes: 400, and the next render is whole', async () => {
    const attacks = [
      "function (chart) { Object.defineProperty(chart.canvas, 'width', { get: function () { return 1; } }); }",
      "function (chart) { chart.canvas.setAttribute('width', '777'); chart.canvas.setAttribute('height', '333'); }",
      "function (chart) { chart.canvas.removeAttribute('width'); }",
    ];
    const good = await render(req(BAR2, { chartjs: 4, devicePixelRatio: 2 }));
    for (const v of [2, 4] as const) {
      for (const afterRender of attacks) {
        const err = await failure(render(req({ ...BAR2, plugins: [{ afterRender }] }, { chartjs: v, devicePixelRatio: 2 })));
        expect(err.status, `${v}: ${afterRender}`).to.equal(400);
      }
    }
    expect((await render(req(BAR2, { chartjs: 4, devicePixelRatio: 2 }))).equals(good)).to.equal(true);
  });

  it('a PDF at ratio 2 keeps a 500x300 page and embeds the 1000x600 image', async () => {
    const body = await render(req(BAR2, { chartjs: 2, devicePixelRatio: 2, format: 'pdf' }));
    expect((await PDFDocument.load(body)).getPage(0).getSize()).to.deep.equal({ width: 500, height: 300 });
    const pdf = body.toString('latin1');
    expect(pdf).to.match(/\/Width 1000/);
    expect(pdf).to.match(/\/Height 600/);
  });

  it("the page's own ceiling holds at ratio 4: no side over 16384 pixels, no ratio over 4", async () => {
    const wide = await failure(render(req(BAR2, { chartjs: 2, width: 4097, height: 100, devicePixelRatio: 4 })));
    expect(wide.status).to.equal(400);
    expect(JSON.stringify(wide) + wide.message).to.match(/16384 pixels a side/);
    const ratio = await failure(render(req(BAR2, { devicePixelRatio: 5 })));
    expect(JSON.stringify(ratio) + ratio.message).to.match(/devicePixelRatio must be a number 1-4/);
    const png = decodePng(await render(req(BAR2, { chartjs: 2, width: 300, height: 200, devicePixelRatio: 4 })));
    expect([png.width, png.height]).to.deep.equal([1200, 800]);
  });

  it('the watermark strip is drawn on Chart.js 2 and 3 as on 4', async () => {
    for (const v of [2, 3, 4] as const) {
      const cfg = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1], backgroundColor: '#ff0000' }] }, options: v === 2 ? { legend: { display: false } } : { plugins: { legend: { display: false } } } };
      const plain = decodePng(await render(req(cfg, { chartjs: v, watermark: null })));
      const marked = decodePng(await render(req(cfg, { chartjs: v, watermark: 'chartshot TEST' })));
      // the strip at the bottom: the plate behind the text is light, and the bar ends above it
      let dark = 0;
      for (let x = 380; x < 499; x++) for (let y = 288; y < 299; y++) if (pixel(marked, x, y)[0] < 128) dark++;
      expect(dark, `Chart.js ${v}: watermark text`).to.be.greaterThan(10);
      const barBottom = (img: ReturnType<typeof decodePng>) => {
        let y = img.height - 1;
        while (y > 0 && hex(pixel(img, 250, y)) !== '#ff0000') y--;
        return y;
      };
      expect(barBottom(marked), `Chart.js ${v}: the plot ends above the strip`).to.be.lessThan(barBottom(plain));
    }
  });

  describe('JavaScript configs', () => {
    const JS_TICKS = "{ type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'x', data: [3, 5, 4], backgroundColor: '#336699' }] }, options: { scales: { yAxes: [{ ticks: { beginAtZero: true, callback: function (v) { return '$' + v.toFixed(2); } } }] } } }";

    it('a function tick callback in a JavaScript config renders (and differs from the same config without it); the page is reset after', async () => {
      const before = s.deps.pool.stats().pageResets ?? 0;
      const withFn = await render(req({}, { chartjs: 2, configJs: JS_TICKS }));
      const plain = await render(req({}, { chartjs: 2, configJs: JS_TICKS.replace(/, callback: function \(v\) \{[^}]*\}/, '') }));
      writeFileSync(`${OUT}/js-ticks.png`, withFn);
      expect(withFn.equals(plain)).to.equal(false);
      expect(s.deps.pool.stats().pageResets ?? 0).to.be.at.least(before + 2);
      // on Chart.js 4 too, with its own scale syntax
      const v4 = await render(req({}, { configJs: "{type:'line',data:{labels:['a','b'],datasets:[{data:[1,2]}]},options:{scales:{y:{ticks:{callback:(v)=>v+' kg'}}}}}" }));
      expect(decodePng(v4).width).to.equal(500);
    });

    it("QuickChart's helpers exist inside: gradients and patterns fill the bars", async () => {
      const cfg = (fill: string) => `{type:'bar',data:{labels:['a','b'],datasets:[{data:[5,5],backgroundColor:${fill}}]},options:{legend:{display:false},scales:{xAxes:[{display:false}],yAxes:[{display:false,ticks:{beginAtZero:true}}]}}}`;
      const grad = await render(req({}, { chartjs: 2, configJs: cfg("getGradientFillHelper('vertical', ['#ff0000', '#0000ff'])") }));
      const g = decodePng(grad);
      const top = pixel(g, 120, 20);
      const bottom = pixel(g, 120, 280);
      expect(top[0], 'red at the top').to.be.greaterThan(top[2]);
      expect(bottom[2], 'blue at the bottom').to.be.greaterThan(bottom[0]);
      const pat = await render(req({}, { chartjs: 2, configJs: cfg("pattern.draw('diagonal', '#36a2eb', '#ffffff')") }));
      writeFileSync(`${OUT}/pattern.png`, pat);
      const inBar = colours(pat);
      expect(inBar.has('#36a2eb')).to.equal(true);
      const fill = await render(req({}, { chartjs: 3, configJs: "{type:'bar',data:{labels:['a'],datasets:[{data:[1],backgroundColor:getGradientFill([{offset:0,color:'#00ff00'},{offset:1,color:'#00ff00'}])}]}}" }));
      expect(colours(fill).has('#00ff00')).to.equal(true);
    });

    it('an infinite loop in the literal times out (500 render_failed) and the pool keeps serving, identically', async () => {
      const clean = await render(req(BAR2, { chartjs: 2 }));
      const err = await failure(render(req({}, { chartjs: 2, configJs: '(function () { while (true) {} })()' })));
      expect(err.status).to.equal(500);
      expect(err.code).to.equal('render_failed');
      const again = await render(req(BAR2, { chartjs: 2 }));
      expect(again.equals(clean)).to.equal(true);
    });

    it('is refused without function support, and when it is not an object or does not parse', async () => {
      const no = await failure(render(req({}, { chartjs: 2, allowFunctions: false, configJs: '{type:"bar"}' })));
      expect(no.status).to.equal(400);
      expect(JSON.stringify(no) + no.message).to.match(/needs function support/);
      const syntax = await failure(render(req({}, { configJs: '{type: "bar",,, ' })));
      expect(syntax.status).to.equal(400);
      const num = await failure(render(req({}, { configJs: '42' })));
      expect(JSON.stringify(num) + num.message).to.match(/config must be an object/);
    });
  });

  describe("QuickChart's Chart.js 2 defaults", () => {
    const TABLEAU = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2'];

    it('the palette colours datasets that set no colour (per dataset), pie slices per data point; explicit colours stay', async () => {
      const bars = {
        type: 'bar',
        data: { labels: ['a', 'b'], datasets: [{ data: [5, 5] }, { data: [5, 5] }, { data: [5, 5], backgroundColor: '#000080' }] },
        options: { legend: { display: false } },
      };
      const got = colours(await render(req(bars, { chartjs: 2 })));
      expect(got.has(TABLEAU[0]!) && got.has(TABLEAU[1]!) && got.has('#000080')).to.equal(true);
      expect(got.has(TABLEAU[2]!)).to.equal(false);
      const pie = { type: 'pie', data: { labels: ['a', 'b', 'c'], datasets: [{ data: [1, 1, 1] }] }, options: { legend: { display: false }, plugins: { datalabels: { display: false } } } };
      const slices = colours(await render(req(pie, { chartjs: 2 })));
      for (const c of TABLEAU.slice(0, 3)) expect(slices.has(c), c).to.equal(true);
      // Chart.js 4 is left as it is: its own default colours
      expect(colours(await render(req(bars))).has(TABLEAU[0]!)).to.equal(false);
    });

    it('line datasets get the colour as border and at half alpha as fill', async () => {
      const line = {
        type: 'line',
        data: { labels: ['a', 'b', 'c'], datasets: [{ data: [2, 2, 2], pointRadius: 0, borderWidth: 6 }] },
        options: { legend: { display: false }, scales: { yAxes: [{ display: false, ticks: { min: 0, max: 4 } }], xAxes: [{ display: false }] } },
      };
      const img = decodePng(await render(req(line, { chartjs: 2, backgroundColor: '#ffffff' })));
      expect(hex(pixel(img, 250, 150))).to.equal(TABLEAU[0]);
      // rgba(78, 121, 167, 0.5) over white
      const fill = pixel(img, 250, 250);
      expect(Math.abs(fill[0] - 167)).to.be.at.most(2);
      expect(Math.abs(fill[2] - 211)).to.be.at.most(2);
    });

    it('data labels are shown on pie and doughnut only, unless the config turns them on', async () => {
      const pie = { type: 'pie', data: { labels: ['a', 'b'], datasets: [{ data: [1, 3], backgroundColor: ['#ff0000', '#00ff00'] }] } };
      const withLabels = await render(req(pie, { chartjs: 2 }));
      const off = await render(req({ ...pie, options: { plugins: { datalabels: { display: false } } } }, { chartjs: 2 }));
      expect(withLabels.equals(off)).to.equal(false);
      const bar = { ...BAR2, data: { ...BAR2.data, datasets: [{ data: [3, 5, 4], backgroundColor: '#ff0000' }] } };
      const barDefault = await render(req(bar, { chartjs: 2 }));
      const barOff = await render(req({ ...bar, options: { plugins: { datalabels: { display: false } } } }, { chartjs: 2 }));
      const barOn = await render(req({ ...bar, options: { plugins: { datalabels: { display: true } } } }, { chartjs: 2 }));
      expect(barDefault.equals(barOff)).to.equal(true);
      expect(barOn.equals(barOff)).to.equal(false);
    });

    it('the special types render: sparkline, progressBar, donut, radialGauge (and outlabeledPie, boxplot)', async () => {
      const cases: Record<string, Record<string, unknown>> = {
        sparkline: { type: 'sparkline', data: { datasets: [{ data: [140, 60, 274, 370, 199] }] } },
        progressBar: { type: 'progressBar', data: { datasets: [{ data: [67] }] } },
        donut: { type: 'donut', data: { labels: ['a', 'b'], datasets: [{ data: [2, 5] }] }, options: { plugins: { doughnutlabel: { labels: [{ text: '550', font: { size: 20 } }] } } } },
        radialGauge: { type: 'radialGauge', data: { datasets: [{ data: [70], backgroundColor: '#008000' }] } },
        outlabeledPie: {
          type: 'outlabeledPie',
          data: { labels: ['ONE', 'TWO', 'THREE'], datasets: [{ backgroundColor: ['#FF3784', '#36A2EB', '#4BC0C0'], data: [1, 2, 3] }] },
          options: { plugins: { legend: false, outlabels: { text: '%l %p', color: 'white', stretch: 35, font: { resizable: true, minSize: 12, maxSize: 18 } } } },
        },
        boxplot: { type: 'boxplot', data: { labels: ['a'], datasets: [{ label: 'x', data: [[1, 2, 3, 4, 5, 9]] }] } },
      };
      for (const [name, cfg] of Object.entries(cases)) {
        const png = await render(req(cfg, { chartjs: 2 }));
        writeFileSync(`${OUT}/${name}.png`, png);
        expect(colours(png).size, name).to.be.greaterThan(3);
      }
      const progress = decodePng(await render(req(cases.progressBar!, { chartjs: 2 })));
      // 67 of 100: filled (first palette colour) at the left, the white track at the right
      expect(hex(pixel(progress, 100, 150))).to.equal(TABLEAU[0]);
      expect(hex(pixel(progress, 450, 150))).to.equal('#ffffff');
      const gauge = colours(await render(req(cases.radialGauge!, { chartjs: 2 })));
      expect(gauge.has('#008000')).to.equal(true);
      const donut = colours(await render(req(cases.donut!, { chartjs: 2 })));
      expect(donut.has(TABLEAU[0]!) && donut.has(TABLEAU[1]!)).to.equal(true);
    });
  });

  describe('the pool across versions', () => {
    const pools: Renderer[] = [];
    async function startPool(opts: Partial<PoolOptions>): Promise<Renderer> {
      const pool = new Renderer(
        { chromiumPath: loadConfig({}).chromiumPath, size: 2, renderTimeoutMs: 3000, acquireTimeoutMs: 30000, maxQueue: 50, pageMaxRenders: 1000, ...opts },
        createLogger('silent'),
      );
      pools.push(pool);
      await pool.start();
      return pool;
    }
    const page = (chartjs: 2 | 3 | 4, width = 300): PageRequest => ({ config: BAR2, width, height: 200, format: 'png', backgroundColor: '#fff', allowFunctions: false, watermark: null, chartjs });
    afterEach(async () => {
      for (const p of pools.splice(0)) await p.close();
    });

    it('a version is loaded on demand, kept while used, and idle pages return to Chart.js 4', async () => {
      const pool = await startPool({ versionIdleMs: 300 });
      expect(pool.stats().versions).to.deep.equal({ 2: 0, 3: 0, 4: 2 });
      await pool.render(page(3));
      await pool.render(page(3));
      expect(pool.stats().versions).to.deep.equal({ 2: 0, 3: 1, 4: 1 });
      // the page of version 3 is found again (not a second one switched)
      expect(pool.stats().versionSwitches).to.equal(1);
      await pool.render(page(4));
      expect(pool.stats().versionSwitches).to.equal(1);
      await waitFor('no page left on Chart.js 3', () => pool.stats().versions![3] === 0, { ms: 15_000, stepMs: 50, state: () => pool.stats().versions });
      expect(pool.stats().versions).to.deep.equal({ 2: 0, 3: 0, 4: 2 });
      expect(Buffer.from((await pool.render(page(4))).data, 'base64').length).to.be.greaterThan(100);
    });

    it('under load with mixed versions, a request waits for a busy page of its version rather than switch one at every lease', async () => {
      // a long wait makes the count independent of the machine's speed
      const pool = await startPool({ size: 2, versionWaitMs: 10000 });
      const run = (v: 2 | 4, i: number) => pool.render(page(v, 300 + i), `account:v${v}`);
      await Promise.all(Array.from({ length: 12 }, (_, i) => [run(2, i), run(4, i)]).flat());
      // one page goes to Chart.js 2 and stays; the other stays on 4
      expect(pool.stats().versionSwitches).to.equal(1);
      expect(pool.stats().versions).to.deep.equal({ 2: 1, 3: 0, 4: 1 });
    });

    it('with one page, v2 and v4 requests of two owners all complete, neither starving the other', async () => {
      const pool = await startPool({ size: 1 });
      const order: string[] = [];
      const run = (v: 2 | 4, i: number) => pool.render(page(v, 300 + i), `account:v${v}`).then(() => order.push(`v${v}`));
      await Promise.all([0, 1, 2, 3].flatMap((i) => [run(2, i), run(4, i)]));
      expect(order).to.have.length(8);
      // round-robin between the two owners: the first four answers hold both versions
      expect(new Set(order.slice(0, 4)).size).to.equal(2);
      expect(pool.stats().versionSwitches).to.be.greaterThan(0);
    });
  });

  describe('caller code on Chart.js 2 and 3 stays contained', () => {
    for (const v of [2, 3] as const) {
      it(`Chart.js ${v}: a callback reaches no network, and what it changes in the page does not reach the next render`, async () => {
        const tcp = await tcpSink();
        const target = `http://127.0.0.1:${tcp.port}`;
        const clean = await render(req(BAR2, { chartjs: v }));
        const register = v === 2 ? 'Chart.plugins.register' : 'Chart.register';
        const attack = [
          `try{fetch('${target}/f')}catch(e){}`,
          `try{var x=new XMLHttpRequest();x.open('GET','${target}/x');x.send()}catch(e){}`,
          `try{var i=new Image();i.src='${target}/i';document.body.appendChild(i)}catch(e){}`,
          `try{new WebSocket('ws://127.0.0.1:1/w')}catch(e){}`,
          `try{var f=document.createElement('iframe');f.src='${target}/frame';document.body.appendChild(f)}catch(e){}`,
          `${register}({id:'evil',afterDraw:function(c){c.ctx.fillStyle='red';c.ctx.fillRect(0,0,500,300)}})`,
          `Chart.defaults.${v === 2 ? 'global.defaultFontColor' : 'color'}='#ff0000'`,
          `window.__stolen=1;document.body.innerHTML='<p>x</p>';localStorage.setItem('k','v')`,
        ].join(';');
        // once per page (a tick callback runs many times; a pile of iframes only slows the page)
        const once = `if (!window.__ran) { window.__ran = 1; ${attack}; }`;
        const ticks = { callback: `function(value){ ${once}; return value; }` };
        const options = v === 2 ? { scales: { yAxes: [{ ticks }] } } : { scales: { y: { ticks } } };
        const stamped = await render(req({ ...BAR2, options }, { chartjs: v }));
        // the attack ran: its plugin painted its own chart red
        expect(colours(stamped).has('#ff0000'), 'the callback ran').to.equal(true);
        // and the same from a JavaScript config, evaluated before the chart exists
        const fromJs = await render(req({}, { chartjs: v, configJs: `(function(){ ${attack}; return ${JSON.stringify(BAR2)}; })()` }));
        expect(colours(fromJs).has('#ff0000'), 'the JavaScript config ran').to.equal(true);
        const after = await render(req(BAR2, { chartjs: v }));
        // every page that ran the attack is reset before it is idle again; then the sink's marker
        await poolIdle(() => s.deps.pool.stats());
        expect(await tcp.settle(), 'TCP connections from the page').to.deep.equal([]);
        expect(after.equals(clean), 'the next render is identical').to.equal(true);
      });
    }

    it('a JavaScript config cannot reach the harness of the next render (window.chartshot is read-only, and reset)', async () => {
      const clean = await render(req(BAR2, { chartjs: 2 }));
      const js = "(function(){ try { window.chartshot.render = function(){ return {ok:true,data:'AAAA'}; }; window.chartshot.renderWire = function(){ return '{\"ok\":true}\\nAAAA'; }; } catch (e) {} try { Object.defineProperty(window, 'chartshot', {value: {render: function(){ return {ok:true,data:'AAAA'}; }, renderWire: function(){ return '{\"ok\":true}\\nAAAA'; }}}); } catch (e) {} HTMLCanvasElement.prototype.toDataURL = function(){ return 'data:image/png;base64,AAAA'; }; return {type:'bar',data:{labels:['a'],datasets:[{data:[1]}]}}; })()";
      const own = await render(req({}, { chartjs: 2, configJs: js }));
      // its own image still comes from the harness's saved toDataURL
      expect(decodePng(own).width).to.equal(500);
      const next = await render(req(BAR2, { chartjs: 2 }));
      expect(next.equals(clean)).to.equal(true);
    });
  });
});
