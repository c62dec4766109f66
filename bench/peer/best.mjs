// The peer at its best, for the honest bench (bench/honest.ts): Chart.js 4 on node-canvas in one
// Node process, the way a user who tuned it would run it. Forked with PEER_MODE:
//   plain (default): one Chart.js for all sizes, every controller, element and scale registered
//     once; per config, the built-in plugins it does not use are turned off (options.plugins.X =
//     false: the same pixels, less work); one canvas per size reused (a free list per size, so
//     renders in flight never share one); PNG encoded by canvas.toBuffer(callback), which runs
//     on libuv's thread pool, so while one chart encodes the main thread draws the next.
//   cnc: chartjs-node-canvas 5, one ChartJSNodeCanvas per size and background, reused (what
//     bench/peer/worker.mjs does). Each instance require()s a fresh copy of Chart.js
//     ('chart.js/auto', then drops it from the require cache) and makes a new canvas per render.
//   PEER_TRIM=0 keeps every built-in plugin on (plain mode), to show trimming changes no pixel;
//   PEER_NEW_CANVAS=1 makes a canvas per render (plain mode), to price the reuse.
import { readFileSync } from 'node:fs';
import { createCanvas } from 'canvas';
import { Chart, registerables } from 'chart.js';
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';
import { revived } from './revive.mjs';

const MODE = process.env.PEER_MODE === 'cnc' ? 'cnc' : 'plain';
const TRIM = process.env.PEER_TRIM !== '0';
const NEW_CANVAS = process.env.PEER_NEW_CANVAS === '1';

Chart.register(...registerables);

/** The background drawn under the chart, as chartjs-node-canvas's own plugin does it. */
const backgrounds = new Map();
function backgroundPlugin(colour) {
  let p = backgrounds.get(colour);
  if (!p) {
    p = {
      id: 'peer-background',
      beforeDraw(chart) {
        const ctx = chart.ctx;
        ctx.save();
        ctx.globalCompositeOperation = 'destination-over';
        ctx.fillStyle = colour;
        ctx.fillRect(0, 0, chart.width, chart.height);
        ctx.restore();
      },
    };
    backgrounds.set(colour, p);
  }
  return p;
}

/**
 * Turns off the built-in plugins this config does not use. None of them draws anything for it:
 * a static image shows no tooltip; decimation and subtitle are off unless configured; the title
 * is not displayed unless configured; a legend with display false draws nothing. The filler
 * stays on for line and radar charts (radar areas change without it: checked byte for byte by
 * bench/honest/peer-why.ts) and wherever the config says `fill`.
 */
function trim(chart, text) {
  const o = (chart.options ??= {});
  const p = (o.plugins ??= {});
  p.tooltip = false;
  if (p.decimation === undefined) p.decimation = false;
  if (p.subtitle === undefined) p.subtitle = false;
  if (p.title === undefined || p.title?.display !== true) p.title = false;
  if (p.legend?.display === false) p.legend = false;
  if (!text.includes('"fill"') && chart.type !== 'line' && chart.type !== 'radar') p.filler = false;
}

const freeCanvases = new Map();
function takeCanvas(w, h) {
  if (NEW_CANVAS) return createCanvas(w, h);
  const list = freeCanvases.get(`${w}x${h}`);
  return list?.pop() ?? createCanvas(w, h);
}
function giveCanvas(canvas) {
  if (NEW_CANVAS) return;
  const key = `${canvas.width}x${canvas.height}`;
  let list = freeCanvases.get(key);
  if (!list) freeCanvases.set(key, (list = []));
  list.push(canvas);
}

function renderPlain(chart, width, height, background, text) {
  if (TRIM) trim(chart, text);
  chart.options ??= {};
  chart.options.responsive = false;
  chart.options.animation = false;
  chart.options.devicePixelRatio = 1;
  if (background !== 'transparent') chart.plugins = [...(chart.plugins ?? []), backgroundPlugin(background)];
  const canvas = takeCanvas(width, height);
  const c = new Chart(canvas.getContext('2d'), chart);
  return new Promise((resolve, reject) => {
    canvas.toBuffer((err, png) => {
      c.destroy();
      giveCanvas(canvas);
      if (err) reject(err);
      else resolve(png);
    }, 'image/png');
  });
}

const renderers = new Map();
function renderCnc(chart, width, height, background) {
  const key = `${width}x${height}/${background}`;
  let r = renderers.get(key);
  if (!r) renderers.set(key, (r = new ChartJSNodeCanvas({ width, height, backgroundColour: background === 'transparent' ? undefined : background })));
  chart.options ??= {};
  chart.options.devicePixelRatio = 1;
  return r.renderToBuffer(chart, 'image/png');
}

/** One request as a server would take it: the JSON body parsed, callbacks revived, a PNG. */
export async function renderOne(json) {
  const req = JSON.parse(json);
  const text = typeof req.chart === 'string' ? req.chart : JSON.stringify(req.chart);
  const chart = revived(typeof req.chart === 'string' ? JSON.parse(req.chart) : req.chart, 'root');
  const background = req.backgroundColor ?? 'white';
  const png = MODE === 'cnc' ? await renderCnc(chart, req.width, req.height, background) : await renderPlain(chart, req.width, req.height, background, text);
  if (png.length < 8) throw new Error('empty image');
  return png;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** bodies[i % n] for i < total with `concurrency` async loops; latencies per body index too. */
async function run({ bodies, concurrency, total }) {
  const latencies = [];
  const byBody = bodies.map(() => []);
  const bytes = bodies.map(() => 0);
  let next = 0;
  let errors = 0;
  let firstError = null;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t = performance.now();
      try {
        const png = await renderOne(bodies[i % bodies.length]);
        bytes[i % bodies.length] = png.length;
      } catch (err) {
        errors++;
        firstError ??= String(err?.message ?? err).slice(0, 200);
      }
      const ms = performance.now() - t;
      latencies.push(ms);
      byBody[i % bodies.length].push(ms);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    concurrency, requests: total, errors, firstError, seconds: round(seconds), perSecond: round(total / seconds, 1),
    p50Ms: round(percentile(sorted, 50)), p95Ms: round(percentile(sorted, 95)), p99Ms: round(percentile(sorted, 99)),
    cpuMsPerRender: round((cpu.user + cpu.system) / 1000 / total), latencies, byBody, bytes,
  };
}

// Messages, one at a time:
//   { id, bodies, concurrency, total } -> { id, result }  (a load, as bench/peer/worker.mjs)
//   { id, png: body }                  -> { id, png: base64 } (one render, to look at or compare)
let queue = Promise.resolve();
if (process.send) process.on('message', (msg) => {
  if (msg?.type === 'exit') process.exit(0);
  queue = queue.then(async () => {
    try {
      if (msg.png) process.send({ id: msg.id, png: (await renderOne(msg.png)).toString('base64') });
      else process.send({ id: msg.id, result: await run(msg) });
    } catch (err) {
      process.send({ id: msg.id, error: String(err?.stack ?? err) });
    }
  });
});
const version = (pkg) => JSON.parse(readFileSync(new URL(`node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;
if (process.send) {
  process.send({
    ready: true,
    mode: MODE,
    trim: TRIM,
    newCanvas: NEW_CANVAS,
    versions: { node: process.version, 'chart.js': version('chart.js'), canvas: version('canvas'), 'chartjs-node-canvas': version('chartjs-node-canvas'), threadpool: process.env.UV_THREADPOOL_SIZE ?? '4 (default)' },
  });
}
