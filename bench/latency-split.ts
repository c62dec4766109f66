// Where a small chart's wall time goes, step by step, at 1 in flight: the client's round trip,
// and inside the server (bench/latency-serve.mjs: this checkout's build, Chromium and all, with
// timestamps at six points) the time before the render reaches the Renderer (HTTP parse done
// -> auth, rate limit, body, validation), the CDP crossing in three parts (Node to the pipe;
// Chromium, less the page's own time: the browser process's relay both ways and the renderer's
// dispatch; the pipe back to Node's result), the page's own time (what the harness times:
// Chart.js, the encode; performance.now() in a page is coarsened to 0.1 ms), and after the
// answer (the image to the response written). The rest of the client's time is its own side
// and the socket. Medians and p95 of each step over the same requests.
//   node --import tsx bench/latency-split.ts [bar|doughnut] [warm] [measured]   (after npm run build)
//   LATENCY_CORPUS_FIRST=n: first n renders of the honest corpus at 4 in flight.
// The chart is bench/compare.ts's 100x100 one (the honest bench's small-chart rows), each
// request with a nonce so none is coalesced.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSamples, percentile } from './lib.js';
import { barBody, posts } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { generateCorpus } from './honest/corpus.js';

const type = (process.argv[2] ?? 'bar') as 'bar' | 'doughnut';
const WARM = Number(process.argv[3] ?? 3000);
const N = Number(process.argv[4] ?? 2000);
const PORT = Number(process.env.BENCH_PORT ?? 18411);
const BASE = `http://127.0.0.1:${PORT}`;
const dataDir = mkdtempSync(join(tmpdir(), 'latency-split-'));
const out = join(dataDir, 'events.json');
const acct = benchAccount(dataDir);
const server = await startServer(dataDir, PORT, { POOL_SIZE: '2', LATENCY_OUT: out }, [], ['bench/latency-serve.mjs', '.']);
const next = posts([barBody(type, 100, 100)], { 'content-type': 'application/json', 'x-api-key': acct.api_key });
// LATENCY_CORPUS_FIRST=n: n renders of the honest corpus at 4 in flight before the warm-up, as a
// service that draws all sorts (and the honest bench, whose small-chart rows follow its corpus)
const corpusFirst = Number(process.env.LATENCY_CORPUS_FIRST ?? 0);
if (corpusFirst > 0) await loadSamples(BASE, 4, corpusFirst, posts(generateCorpus().map((e) => e.body), { 'content-type': 'application/json', 'x-api-key': acct.api_key }));
await loadSamples(BASE, 1, WARM, next);
server.kill('SIGUSR2');
await new Promise((r) => setTimeout(r, 200));
const { latencies, result } = await loadSamples(BASE, 1, N, next);
await stopServer(server);

type Event = [kind: 'request' | 'render' | 'sent' | 'received' | 'answer' | 'end', at: number, pageMs?: number];
const events = JSON.parse(readFileSync(out, 'utf8')) as Event[];
rmSync(dataDir, { recursive: true, force: true });
const steps = { beforeRender: [] as number[], toPipe: [] as number[], chromium: [] as number[], fromPipe: [] as number[], page: [] as number[], afterAnswer: [] as number[], server: [] as number[] };
// one request at a time: request, render, sent, received, answer, end follow each other
// (anything else, e.g. a status check, is skipped)
const order = ['request', 'render', 'sent', 'received', 'answer', 'end'];
for (let i = 0; i + order.length <= events.length; i++) {
  const ev = events.slice(i, i + order.length);
  if (ev.some((e, k) => e[0] !== order[k])) continue;
  const [q, s, w, r, a, e] = ev.map((x) => x[1]) as [number, number, number, number, number, number];
  const page = ev[4]![2] ?? 0;
  steps.beforeRender.push(s - q);
  steps.toPipe.push(w - s);
  steps.chromium.push(r - w - page);
  steps.fromPipe.push(a - r);
  steps.page.push(page);
  steps.afterAnswer.push(e - a);
  steps.server.push(e - q);
  i += order.length - 1;
}
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: Math.round(percentile(s, 50) * 1000) / 1000, p95: Math.round(percentile(s, 95) * 1000) / 1000 };
};
const rows: Array<[string, { p50: number; p95: number }]> = [
  ['client round trip', stat(latencies)],
  ['server: request event -> res.end()', stat(steps.server)],
  ['  before the render (HTTP parse done -> Renderer.render)', stat(steps.beforeRender)],
  ['  Node: the render to its call written on the pipe (pool, gate, the call\'s encoding)', stat(steps.toPipe)],
  ['  Chromium: the call written to its answer\'s first bytes, less the page\'s own time (the browser\'s relay both ways, the renderer\'s dispatch)', stat(steps.chromium)],
  ['  Node: the answer\'s first bytes to the Renderer\'s result (reading, decoding)', stat(steps.fromPipe)],
  ['  the page\'s own time (Chart.js + encode, timed in the page)', stat(steps.page)],
  ['  after the answer (-> the response written)', stat(steps.afterAnswer)],
];
console.log(`100x100 ${type}, 1 in flight, ${N} requests after ${corpusFirst ? `${corpusFirst} of the corpus at 4 in flight and ` : ''}${WARM} (${result.perSecond}/s, ${result.errors} errors); ${steps.server.length} matched in the server`);
console.log('| step | p50 ms | p95 ms |\n|---|---|---|');
for (const [name, v] of rows) console.log(`| ${name} | ${v.p50} | ${v.p95} |`);
console.log(JSON.stringify({ type, warm: WARM, n: N, matched: steps.server.length, steps: Object.fromEntries(rows) }));
