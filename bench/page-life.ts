// What a page accumulates over a long life on varied traffic (for PAGE_MAX_RENDERS): one page
// (POOL_SIZE=1, no recycling) renders the honest corpus in turn through the render use case (its
// callbacks revived, pure ones reusing the page, others resetting it) in blocks; per block: the
// page's renders, CPU per render of its renderer process and of this Node process (/proc), the
// page's JS heap (Runtime.getHeapUsage), DOM nodes and listeners (Memory.getDOMCounters), and the
// renderer processes' resident memory (VmRSS). A page that leaks shows a trend in the last three.
// CONTROL_MAX=n adds a control: a second pool whose page recycles every n renders, one block of
// it after each block of the aged page, so the machine's load moves both alike.
//
//   [CONTROL_MAX=2000] node --import tsx bench/page-life.ts [blocks] [renders a block]   (after npm run build)
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startPool } from '../src/main.js';
import { generateCorpus, DEFAULT_SEED } from './honest/corpus.js';
import { keyedRenderService, renderRequest } from './honest/layers.js';
import { cpuSnapshot } from './honest/procs.js';

const BLOCKS = Number(process.argv[2] ?? 40);
const PER = Number(process.argv[3] ?? 480);

/** CPU ms of the renderer processes of one browser (those that exited too: where they were
 *  reaped) and the resident MB of those alive. */
function renderers(browserPid: number, profile: string): { cpuMs: number; rssMb: number } {
  let kb = 0;
  for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes(profile) || !cmd.includes('--type=renderer')) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return { cpuMs: cpuSnapshot({ server: browserPid, loadGenerator: process.pid }).renderers, rssMb: kb / 1024 };
}

const CONTROL_MAX = process.env.CONTROL_MAX;
const dataDir = mkdtempSync(join(tmpdir(), 'page-life-'));
const reqs = generateCorpus(DEFAULT_SEED).map((e) => renderRequest(e.body));

async function side(maxRenders: string) {
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, POOL_SIZE: '1', LOG_LEVEL: 'silent', PAGE_MAX_RENDERS: maxRenders });
  const pool = await startPool(config, createLogger('silent'));
  return { name: maxRenders === '1000000' ? 'aged' : `recycled every ${maxRenders}`, pool, service: keyedRenderService(pool, config), profile: pool.currentLaunch()!.profileDir, browserPid: pool.currentLaunch()!.pid!, n: 0, firstPage: [...pool.livePages()][0]!, cpu: 0 };
}
type Side = Awaited<ReturnType<typeof side>>;

async function block(s: Side): Promise<void> {
  const c0 = process.cpuUsage();
  const r0 = renderers(s.browserPid, s.profile).cpuMs;
  const t0 = performance.now();
  for (let i = 0; i < PER; i++) await s.service.render(reqs[s.n++ % reqs.length]!, 'bench');
  const seconds = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const after = renderers(s.browserPid, s.profile);
  const rendererMs = (after.cpuMs - r0) / PER;
  s.cpu += rendererMs;
  // a block may end as the control's page recycles: wait for its new page
  while (s.pool.livePages().size === 0) await new Promise((r) => setTimeout(r, 50));
  const page = [...s.pool.livePages()][0]!;
  const heap = (await page.cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
  const dom = (await page.cdp.send('Memory.getDOMCounters')) as { documents: number; nodes: number; jsEventListeners: number };
  console.log(
    `${s.name}, ${page === s.firstPage ? 'first page' : 'a later page'} at ${page.renders} renders: ${(PER / seconds).toFixed(1)}/s, renderer ${rendererMs.toFixed(2)} node ${((c.user + c.system) / 1000 / PER).toFixed(2)} ms/render; ` +
      `heap ${(heap.usedSize / 1048576).toFixed(1)} of ${(heap.totalSize / 1048576).toFixed(1)} MB; renderer RSS ${after.rssMb.toFixed(0)} MB; documents ${dom.documents} nodes ${dom.nodes} listeners ${dom.jsEventListeners}; resets ${s.pool.stats().pageResets}`,
  );
}

const sides = [await side('1000000'), ...(CONTROL_MAX ? [await side(CONTROL_MAX)] : [])];
console.log(`load average at start ${loadavg().map((x) => x.toFixed(2)).join(', ')}; ${reqs.length} configs, ${BLOCKS} blocks of ${PER}`);
for (let b = 0; b < BLOCKS; b++) for (const s of sides) await block(s);
for (const s of sides) console.log(`${s.name}: renderer CPU per render, mean of the blocks: ${(s.cpu / BLOCKS).toFixed(2)} ms`);
console.log(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
for (const s of sides) await s.pool.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
