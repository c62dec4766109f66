// Does a page get slower as it ages? One page (POOL_SIZE=1, no recycling) renders the same
// 100x100 bar in blocks; per block: wall p50 of Renderer.render, the in-page time p50 (the
// answer's ms), and CPU per render of the renderer process and of this Node process (from
// /proc: less sensitive to the machine's load than wall time), the page's JS heap and DOM.
// Between blocks of the aged page, a block on a fresh pool's page (a second Renderer, started
// once at the beginning and kept idle in between) is the control: the machine's load moves both.
//
//   node --import tsx bench/page-aging.ts [blocks] [renders a block]
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startPool } from '../src/main.js';
import type { Renderer } from '../src/render/renderer.js';
import { barBody } from './compare.js';

const BLOCKS = Number(process.argv[2] ?? 10);
const PER = Number(process.argv[3] ?? 300);
const b = barBody((process.env.KIND ?? 'bar') as 'bar', 100, 100);
const req = { config: b.chart as Record<string, unknown>, width: 100, height: 100, format: 'png' as const, backgroundColor: 'white', allowFunctions: false, watermark: null };
const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

async function start(): Promise<Renderer> {
  const config = loadConfig({ ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'age-')), POOL_SIZE: '1', LOG_LEVEL: 'silent', PAGE_MAX_RENDERS: '1000000' });
  return startPool(config, createLogger('silent'));
}

/** CPU ms of the renderer processes of this Renderer's browser. */
function rendererCpu(r: Renderer): number {
  const profile = r.currentLaunch()!.profileDir;
  let ticks = 0;
  for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes(profile) || !cmd.includes('--type=renderer')) continue;
      const f = readFileSync(`/proc/${p}/stat`, 'utf8');
      const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
      ticks += Number(x[11]) + Number(x[12]);
    } catch {
      /* gone */
    }
  }
  return ticks * 10;
}

async function block(r: Renderer): Promise<string> {
  const walls: number[] = [];
  const inPage: number[] = [];
  const c0 = process.cpuUsage();
  const r0 = rendererCpu(r);
  for (let i = 0; i < PER; i++) {
    const t = performance.now();
    const res = await r.render(req);
    walls.push(performance.now() - t);
    inPage.push(res.ms);
  }
  const c = process.cpuUsage(c0);
  const rc = (rendererCpu(r) - r0) / PER;
  const page = [...r.livePages()][0]!;
  const h = (await page.cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  return `wall p50 ${med(walls).toFixed(2)}, in-page p50 ${med(inPage).toFixed(2)}, renderer CPU ${rc.toFixed(2)}, node CPU ${((c.user + c.system) / 1000 / PER).toFixed(2)} ms/render; heap ${(h.usedSize / 1048576).toFixed(1)} MB; page renders ${page.renders}`;
}

console.log(`load average at start ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
const aged = await start();
const fresh = await start();
for (let i = 0; i < BLOCKS; i++) {
  console.log(`block ${i + 1} aged: ${await block(aged)}`);
  if (i % 3 === 0) {
    // the control: a page made now, one block, then closed
    const f = i === 0 ? fresh : await start();
    console.log(`block ${i + 1} fresh: ${await block(f)}`);
    await f.close();
  }
}
console.log(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
await aged.close();
process.exit(0);
