// The real server (config, store, services, Koa chain, fast path) of a built checkout with its
// renderer replaced by a stub that answers every render with a fixed 4 KB PNG on the next turn
// of the event loop (or after STUB_DELAY_MS): the Node CPU of a request without Chromium, for
// bench/chain-ab.ts.
//   node bench/stub-serve.mjs <checkout>   (environment as `chartshot serve` reads it)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const dir = resolve(process.argv[2] ?? '.');
const load = (p) => import(pathToFileURL(`${dir}/dist/${p}`).href);
const { Renderer } = await load('render/renderer.js');
const PNG = Buffer.alloc(4096, 7).toString('base64');
Renderer.prototype.start = async function start() {
  this.print = { header: () => 'chartjs=4.4.9; chromium=0; fonts=stub' };
};
// STUB_DELAY_MS: answer after that long instead (requests then arrive at a real render's pace,
// each finding Node idle, as they do in the real server)
const DELAY_MS = Number(process.env.STUB_DELAY_MS ?? 0);
const answer = { ok: true, data: PNG, ms: 1, ranFunctions: false, needsReset: false };
Renderer.prototype.render = function render() {
  return new Promise((r) => (DELAY_MS > 0 ? setTimeout(() => r(answer), DELAY_MS) : setImmediate(() => r(answer))));
};
Renderer.prototype.close = async function close() {};
const { loadConfig } = await load('config.js');
const { startServer } = await load('main.js');
const running = await startServer(loadConfig(process.env), { schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
process.on('SIGTERM', () => running.close().then(() => process.exit(0)));
if (process.env.STUB_HEAP_PROFILE) {
  // allocation sampling between SIGUSR2 and SIGUSR1 (collected objects included), written as JSON
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const s = new Session();
  s.connect();
  process.on('SIGUSR2', () => void s.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }));
  process.on('SIGUSR1', async () => {
    const { profile } = await s.post('HeapProfiler.stopSampling');
    writeFileSync(process.env.STUB_HEAP_PROFILE, JSON.stringify(profile));
  });
}
