// How a 100x100 bar (TYPE=doughnut: a doughnut) at 1 in flight gets faster as each side draws
// more of it: chartshot over HTTP and the honest bench's peer (bench/peer/best.mjs), warmed to
// the same count, then 4 alternating rounds of 150 each, p50 per step.
//   [TYPE=bar|doughnut] node --import tsx bench/small-warm.ts   (after npm run build)
// Results: bench/small-warm-2026-11-27.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSamples } from './lib.js';
import { posts, barBody } from './compare.js';
import { Peer } from './peer.js';
import { benchAccount, startServer, stopServer } from './server.js';
import { addSplit, cpuSnapshot, perRender, splitDelta, type Split } from './honest/procs.js';
const PORT = Number(process.env.BENCH_PORT ?? 18557), BASE = `http://127.0.0.1:${PORT}`;
const dir = mkdtempSync(join(tmpdir(), 'wb-'));
const acct = benchAccount(dir);
const srv = await startServer(dir, PORT);
const roots = { server: srv.pid!, loadGenerator: process.pid };
const peer = await Peer.start({ worker: 'best.mjs', env: { PEER_MODE: 'plain' } });
const type = (process.env.TYPE ?? 'bar') as 'bar' | 'doughnut';
const b = barBody(type, 100, 100);
const make = posts([b], { 'x-api-key': acct.api_key });
const json = [JSON.stringify(b)];
const p50 = (xs: number[]) => { const s = [...xs].sort((a, c) => a - c); return Math.round(s[Math.floor(s.length / 2)]! * 100) / 100; };
let done = 0;
for (const step of [20, 200, 800, 2000, 4000]) {
  // both sides warmed to `step` renders of this chart in all, then 300 measured each, alternating
  const more = step - done;
  if (more > 0) { await loadSamples(BASE, 1, more, make); await peer.run(json, 1, more); done = step; }
  const c: number[] = [], p: number[] = [];
  let split: Split | null = null;
  for (let k = 0; k < 4; k++) {
    const order = k % 2 ? ['p', 'c'] : ['c', 'p'];
    for (const s of order) {
      if (s === 'c') {
        const before = cpuSnapshot(roots);
        c.push(...(await loadSamples(BASE, 1, 150, make)).latencies);
        split = addSplit(split, splitDelta(before, cpuSnapshot(roots)));
      }
      else p.push(...(await peer.run(json, 1, 150)).latencies);
    }
  }
  done += 600;
  const cpu = perRender(split!, c.length);
  console.log(`${type} after ${step} warm: chartshot p50 ${p50(c)} ms, peer p50 ${p50(p)} ms, ratio ${Math.round(p50(c) / p50(p) * 100) / 100}; chartshot CPU ms per render: node ${cpu['node server']}, browser ${cpu['browser process']}, renderers ${cpu.renderers}, load generator ${cpu['load generator']}`);
}
await peer.stop(); await stopServer(srv); rmSync(dir, { recursive: true, force: true });
