// The benchmark's peer: chartjs-node-canvas (what QuickChart renders with) on node-canvas, in one
// Node process, doing per request what a QuickChart-like server does. Forked by bench/peer.ts.
import { readFileSync } from 'node:fs';
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';
import { revived } from './revive.mjs';

// One renderer per size and background, made once: the most favourable reading of the peer
// (chartjs-node-canvas loads a fresh copy of Chart.js per instance).
const renderers = new Map();
function rendererFor(width, height, background) {
  const key = `${width}x${height}/${background}`;
  let r = renderers.get(key);
  if (!r) {
    r = new ChartJSNodeCanvas({ width, height, backgroundColour: background === 'transparent' ? undefined : background });
    renderers.set(key, r);
  }
  return r;
}

export async function renderOne(json) {
  const req = JSON.parse(json);
  const chart = revived(typeof req.chart === 'string' ? JSON.parse(req.chart) : req.chart, 'root');
  chart.options = chart.options ?? {};
  chart.options.devicePixelRatio = 1;
  const png = await rendererFor(req.width, req.height, req.backgroundColor ?? 'white').renderToBuffer(chart, 'image/png');
  if (png.length < 8) throw new Error('empty image');
  return png;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function run({ bodies, concurrency, total }) {
  const latencies = [];
  let next = 0;
  let errors = 0;
  let firstError = null;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t = performance.now();
      try {
        await renderOne(bodies[i % bodies.length]);
      } catch (err) {
        errors++;
        firstError ??= String(err?.message ?? err).slice(0, 200);
      }
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    concurrency, requests: total, errors, firstError, seconds: round(seconds), perSecond: round(total / seconds, 1),
    p50Ms: round(percentile(sorted, 50)), p95Ms: round(percentile(sorted, 95)), p99Ms: round(percentile(sorted, 99)),
    latencies,
  };
}

// Workloads run one at a time, in the order they arrive (only when forked: importing this file
// elsewhere, e.g. to look at one peer render, starts nothing).
let queue = Promise.resolve();
// Workloads arrive over IPC:
//   { id, bodies: string[] (POST /v1/chart bodies as JSON), concurrency, total }
// It renders bodies[i % n] for i < total with `concurrency` async loops calling renderToBuffer
// (the work is CPU-bound on one thread; only node-canvas's PNG encode runs off-thread), and
// answers { id, result: { concurrency, requests, errors, seconds, perSecond, p50Ms, p95Ms, p99Ms, latencies } }.
// Per request it does what a QuickChart-like server does: parse the JSON, turn function strings
// into functions in Node (the peer's behaviour; chartshot only does so inside its sandboxed page),
// render at the requested size and background, encode PNG.
if (process.send) process.on('message', (msg) => {
  if (msg?.type === 'exit') process.exit(0);
  queue = queue.then(async () => {
    try {
      process.send({ id: msg.id, result: await run(msg) });
    } catch (err) {
      process.send({ id: msg.id, error: String(err?.stack ?? err) });
    }
  });
});
const version = (pkg) => JSON.parse(readFileSync(new URL(`node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;
if (process.send) process.send({ ready: true, versions: { node: process.version, 'chartjs-node-canvas': version('chartjs-node-canvas'), 'chart.js': version('chart.js'), canvas: version('canvas') } });
