// CPU of the Node server's main thread by function, counted by perf (not V8's wall-time
// sampler, which charges a write's wake-up of the other side to the write): the server started
// with --perf-basic-prof-only-functions, 200 100x100 bars to warm up, then `perf record -g` of
// its main thread over N more. Needs perf and the right to trace the server (root here).
//   node --import tsx bench/node-perf.ts [out.data] [renders]   (after npm run build)
//   perf report -i out.data --no-children --sort sym   (or perf script, as the note did)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { loadSamples } from './lib.js';
import { posts, barBody } from './compare.js';
import { benchAccount, startServer, stopServer } from './server.js';
const dataDir = mkdtempSync(join(tmpdir(), 'perf-'));
const acct = benchAccount(dataDir);
const server = await startServer(dataDir, 18098, {}, ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack']);
const next = posts([barBody('bar', 100, 100)], { 'content-type': 'application/json', 'x-api-key': acct.api_key });
await loadSamples('http://127.0.0.1:18098', 1, 200, next);
const rec = spawn('perf', ['record', '-F', '2999', '-g', '-t', String(server.pid), '-o', process.argv[2] ?? '/tmp/perf.data'], { stdio: 'inherit' });
await new Promise((r) => setTimeout(r, 500));
const N = Number(process.argv[3] ?? 800);
await loadSamples('http://127.0.0.1:18098', 1, N, next);
rec.kill('SIGINT');
await new Promise((r) => rec.once('exit', r));
console.log('server pid', server.pid, 'renders', N);
await stopServer(server);
rmSync(dataDir, { recursive: true, force: true });
