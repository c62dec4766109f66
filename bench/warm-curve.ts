// How long each side takes to reach its steady state (for the honest bench's warm-up): the honest
// corpus at 4 in flight from a cold start, CPU per render by process in windows of W renders
// (480). `chartshot`: a fresh server over HTTP (default PAGE_MAX_RENDERS); `peer`: the peer at
// its best (bench/peer/best.mjs, plain), no HTTP.
//
//   [WINDOWS=12] [W=480] node --import tsx bench/warm-curve.ts chartshot|peer   (after npm run build)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSamples } from './lib.js';
import { posts } from './compare.js';
import { Peer } from './peer.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { generateCorpus, DEFAULT_SEED } from './honest/corpus.js';
import { cpuSnapshot, splitDelta, perRender } from './honest/procs.js';

const side = process.argv[2] === 'peer' ? 'peer' : 'chartshot';
const W = Number(process.env.W ?? 480);
const WINDOWS = Number(process.env.WINDOWS ?? 12);
const corpus = generateCorpus(DEFAULT_SEED);

async function windows(roots: { server?: number; peer?: number; loadGenerator: number }, run: () => Promise<number>, show: (p: Record<string, number>) => string): Promise<void> {
  for (let k = 0; k < WINDOWS; k++) {
    const before = cpuSnapshot(roots);
    const seconds = await run();
    const p = perRender(splitDelta(before, cpuSnapshot(roots)), W);
    console.log(`renders ${(k + 1) * W}: ${(W / seconds).toFixed(1)}/s, ${show(p)}`);
  }
}

if (side === 'peer') {
  const peer = await Peer.start({ worker: 'best.mjs', env: { PEER_MODE: 'plain' } });
  const json = corpus.map((c) => JSON.stringify(c.body));
  await windows({ peer: peer.pid, loadGenerator: process.pid }, async () => (await peer.run(json, 4, W)).seconds, (p) => `peer ${p.peer} ms per render`);
  await peer.stop();
} else {
  const PORT = Number(process.env.BENCH_PORT ?? 18093);
  const dataDir = mkdtempSync(join(tmpdir(), 'cs-warm-'));
  const acct = benchAccount(dataDir);
  const server = await startServer(dataDir, PORT, {}, []);
  const make = posts(corpus.map((c) => c.body), { 'x-api-key': acct.api_key });
  await windows(
    { server: server.pid!, loadGenerator: process.pid },
    async () => (await loadSamples(`http://127.0.0.1:${PORT}`, 4, W, make)).result.seconds,
    (p) => `CPU ms per render: node ${p['node server']}, browser ${p['browser process']}, renderers ${p.renderers}, load generator ${p['load generator']}, in all ${p['chartshot side (server + Chromium + load generator)']}`,
  );
  await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
