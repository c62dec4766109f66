// What an idle spell costs the renders after it: a server warmed over the honest corpus (2,400
// renders at 4 in flight), then rounds of 4 x 96 renders at 4 in flight, each round after GAPS ms
// of idle (default 0,35000,0,35000), CPU per render by process (/proc). JSFLAGS adds V8 flags to
// the renderers (a Chromium wrapper repeating the harness's --js-flags with them);
// BENCH_NODE_MEMORY_REDUCER=1 starts the server without --no-memory-reducer (bench/server.ts).
//
//   [GAPS=0,35000] [JSFLAGS=...] node --import tsx bench/idle-gap.ts   (after npm run build)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { loadSamples } from './lib.js';
import { posts } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { generateCorpus, DEFAULT_SEED } from './honest/corpus.js';
import { jsFlagsWrapper } from './jsflags.js';
import { cpuSnapshot, splitDelta, perRender, addSplit, type Split } from './honest/procs.js';

const PORT = Number(process.env.BENCH_PORT ?? 18095);
const BASE = `http://127.0.0.1:${PORT}`;
const corpus = generateCorpus(DEFAULT_SEED);
const dataDir = mkdtempSync(join(tmpdir(), 'cs-idle-'));
const acct = benchAccount(dataDir);
const wrapDir = mkdtempSync(join(tmpdir(), 'cs-idle-wrap-'));
const wrapper = jsFlagsWrapper(wrapDir, loadConfig({ DATA_DIR: dataDir }).chromiumPath, process.env.JSFLAGS ?? '');
const server = await startServer(dataDir, PORT, process.env.JSFLAGS ? { CHROMIUM_PATH: wrapper } : {});
console.log(`renderer flags added: ${process.env.JSFLAGS ?? 'none'}; Node's memory reducer: ${process.env.BENCH_NODE_MEMORY_REDUCER === '1' ? 'on' : 'off'}`);
const make = posts(corpus.map((c) => c.body), { 'x-api-key': acct.api_key });
const roots = { server: server.pid!, loadGenerator: process.pid };
try {
  await loadSamples(BASE, 4, 2400, make);
  for (const gap of (process.env.GAPS ?? '0,35000,0,35000').split(',').map(Number)) {
    if (gap) await new Promise((r) => setTimeout(r, gap));
    let split: Split | null = null;
    let seconds = 0;
    for (let k = 0; k < 4; k++) {
      const before = cpuSnapshot(roots);
      seconds += (await loadSamples(BASE, 4, 96, make)).result.seconds;
      split = addSplit(split, splitDelta(before, cpuSnapshot(roots)));
    }
    const p = perRender(split!, 384);
    console.log(`after ${gap} ms idle: ${(384 / seconds).toFixed(1)}/s, CPU ms per render: node ${p['node server']}, browser ${p['browser process']}, renderers ${p.renderers}, in all ${p['chartshot side (server + Chromium + load generator)']}`);
  }
} finally {
  await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(wrapDir, { recursive: true, force: true });
}
