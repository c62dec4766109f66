// Chromium's peak memory: the PSS of its process tree (RSS with shared pages divided among
// the processes sharing them, so the sum is not inflated), sampled from /proc every 50 ms, while a
// callback holds 2 GiB of ArrayBuffers, or 2 GiB of canvases. Run once with the wall and once
// without it (RENDER_MEMORY_MB=65536 CHROMIUM_MEMORY_MB=0: what main did before the wall):
//   node --import tsx bench/memory-wall.ts
//   RENDER_MEMORY_MB=65536 CHROMIUM_MEMORY_MB=0 node --import tsx bench/memory-wall.ts
import { readFileSync, readdirSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startPool } from '../src/main.js';

const config = { ...loadConfig({ ...process.env, POOL_SIZE: '1', RENDER_TIMEOUT_MS: '60000', ACQUIRE_TIMEOUT_MS: '60000', LOG_LEVEL: 'silent' }) };
const pool = await startPool(config, createLogger('silent'));
const root = pool.currentLaunch()!.pid!;

function pssBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The browser and every descendant: pid -> parent from /proc/<pid>/stat. */
function treePssBytes(): number {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
    } catch {
      /* gone */
    }
  }
  let sum = 0;
  for (const pid of parent.keys()) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        sum += pssBytes(pid);
        break;
      }
    }
  }
  return sum;
}

const bar = (body: string) => ({ type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] }, plugins: [{ id: 'p', afterDraw: `function(chart){ ${body} }` }] });
const ATTACKS: Record<string, string> = {
  'arraybuffers 2 GiB': 'var k = []; for (var i = 0; i < 32; i++) { var b = new ArrayBuffer(64 * 1048576); new Uint8Array(b).fill(1); k.push(b); } window.__k = k;',
  'canvases 2 GiB': "var k = []; for (var i = 0; i < 32; i++) { var c = document.createElement('canvas'); c.width = 4096; c.height = 4096; c.getContext('2d').fillRect(0, 0, 4096, 4096); k.push(c); } window.__k = k;",
};
console.log(`RENDER_MEMORY_MB=${config.renderMemoryMb} CHROMIUM_MEMORY_MB=${config.chromiumMemoryMb} memoryWall=${JSON.stringify(pool.stats().memoryWall)}`);
console.log(`idle: ${(treePssBytes() / 1048576).toFixed(0)} MB`);
for (const [name, body] of Object.entries(ATTACKS)) {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, treePssBytes())), 50);
  const t0 = performance.now();
  const outcome = await pool
    .render({ config: bar(body), width: 400, height: 200, format: 'png', backgroundColor: null, allowFunctions: true, watermark: null })
    .then(() => '200', (e: Error) => e.message);
  peak = Math.max(peak, treePssBytes());
  clearInterval(timer);
  console.log(`${name}: peak ${(peak / 1048576).toFixed(0)} MB in ${(performance.now() - t0).toFixed(0)} ms; ${outcome}`);
}
await pool.close();
