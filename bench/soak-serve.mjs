// The real server of a built checkout (`chartshot serve`: config, store, Chromium, pool, app) for
// bench/soak.ts, with one addition that only the process that started it can reach: on the IPC
// message {type: 'memory'} it collects garbage (it runs with --expose-gc) and answers with
// process.memoryUsage() and V8's heap limit. Nothing is added to the HTTP API.
//   node --expose-gc bench/soak-serve.mjs <checkout>   (environment as `chartshot serve` reads it)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getHeapStatistics } from 'node:v8';

const dir = resolve(process.argv[2] ?? '.');
const load = (p) => import(pathToFileURL(`${dir}/dist/${p}`).href);
const { loadConfig } = await load('config.js');
const { startServer } = await load('main.js');
const running = await startServer(loadConfig(process.env), {});
process.on('message', (m) => {
  if (m?.type !== 'memory') return;
  // twice: what the first collection's finalizers and weak references release goes in the second
  globalThis.gc();
  globalThis.gc();
  process.send({ id: m.id, ...process.memoryUsage(), heapLimit: getHeapStatistics().heap_size_limit });
});
process.on('SIGTERM', () => {
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
