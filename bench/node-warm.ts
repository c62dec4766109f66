// The Node server's CPU per render as it warms up: a built checkout's server (`chartshot serve`,
// real Chromium) rendering a 100x100 bar at 1 in flight, in consecutive windows, each split into
// the main thread and the other threads (V8's workers: concurrent JIT compilation and GC). A
// short benchmark (bench/ab.ts measures 200 renders after 20) sees mostly code not yet optimised
// and the compiles of it; a long-running server pays neither.
//   node --import tsx bench/node-warm.ts [checkout] [windows, e.g. 20,200,300,500,1000,1000]
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadSamples } from './lib.js';
import { posts, barBody } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';

const dir = resolve(process.argv[2] ?? '.');
const windows = (process.argv[3] ?? '20,200,300,500,1000,1000').split(',').map(Number);
const PORT = Number(process.env.BENCH_PORT ?? 18297);
process.chdir(dir); // bench/server.ts runs dist/cli.js of the current directory
const dataDir = mkdtempSync(join(tmpdir(), 'node-warm-'));
const acct = benchAccount(dataDir);
const server = await startServer(dataDir, PORT, { LOG_LEVEL: 'info' });

/** CPU ms so far of the server's main thread and of its other threads, from /proc. */
function threads(): { main: number; other: number } {
  let main = 0;
  let other = 0;
  for (const t of readdirSync(`/proc/${server.pid}/task`)) {
    try {
      const f = readFileSync(`/proc/${server.pid}/task/${t}/stat`, 'utf8');
      const p = f.slice(f.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(p[11]) + Number(p[12])) * 10; // CLK_TCK 100
      if (t === String(server.pid)) main += ms;
      else other += ms;
    } catch {
      /* a thread that ended */
    }
  }
  return { main, other };
}

const next = posts([barBody('bar', 100, 100)], { 'content-type': 'application/json', 'x-api-key': acct.api_key });
let done = 0;
try {
  for (const n of windows) {
    const before = threads();
    const r = (await loadSamples(`http://127.0.0.1:${PORT}`, 1, n, next)).result;
    const after = threads();
    if (r.errors) throw new Error(`${r.errors} errors ${JSON.stringify(r.statuses)}`);
    console.log(`renders ${done}-${done + n}: main thread ${((after.main - before.main) / n).toFixed(2)} ms, other threads ${((after.other - before.other) / n).toFixed(2)} ms per render; p50 ${r.p50Ms} ms`);
    done += n;
  }
} finally {
  await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
}
