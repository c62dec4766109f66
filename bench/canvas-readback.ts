// Where a renderer's page faults come from, by canvas size: renders of a bar chart of that size
// through the harness (page.render, as the pool sends them), and toDataURL('image/png') alone on
// a canvas of the same size in the same page, outside a render (the result checked). A pool page
// of this checkout's build (the real harness page, its sandbox and flags); each size: 30 calls
// to warm, then N measured; the renderers' minor faults and CPU from /proc around them.
// Chromium's allocator (PartitionAlloc) maps any buffer over 960 KiB on its own and unmaps it
// when freed, so a read-back of a canvas over 960 KiB of pixels (about 490x490) faults in every
// page of its copy, each time (bench/host-amd-2026-11-27.md).
//   node --import tsx bench/canvas-readback.ts [calls]   (after npm run build)
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { barBody } from './compare.js';

const dir = resolve('.');
const N = Number(process.argv[2] ?? 200);
const { Renderer } = (await import(join(dir, 'dist/render/renderer.js'))) as any;
const { toWire } = (await import(join(dir, 'dist/render/page.js'))) as any;
const { PAGE_BUDGETS } = (await import(join(dir, 'dist/render/budgets.js'))) as any;
const { loadConfig } = (await import(join(dir, 'dist/config.js'))) as any;
const { createLogger } = (await import(join(dir, 'dist/log.js'))) as any;
const cfg = loadConfig({});
const r = new Renderer(
  { chromiumPath: cfg.chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 60000, maxQueue: 100, pageMaxRenders: 100000, harnessDir: join(dir, 'renderer-page') },
  createLogger('silent'),
);
await r.start();
const page = [...r.livePages()][0] as any;
const profileDir: string = r.currentLaunch()!.profileDir;

/** Minor faults and CPU ms (10 ms ticks) of this browser's renderer processes. */
function renderers(): { faults: number; cpuMs: number } {
  let faults = 0;
  let cpuMs = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer') || !cmd.includes(profileDir)) continue;
      const f = readFileSync(`/proc/${p}/stat`, 'utf8');
      const s = f.slice(f.lastIndexOf(')') + 2).split(' ');
      faults += Number(s[7]);
      cpuMs += (Number(s[11]) + Number(s[12])) * 10;
    } catch {
      /* gone */
    }
  }
  return { faults, cpuMs };
}

/** faults and renderer CPU per call of `fn` over N calls, after 30 to warm */
async function measure(fn: () => Promise<void>): Promise<{ faults: string; cpuMs: string }> {
  for (let i = 0; i < 30; i++) await fn();
  const a = renderers();
  for (let i = 0; i < N; i++) await fn();
  const b = renderers();
  return { faults: ((b.faults - a.faults) / N).toFixed(1), cpuMs: ((b.cpuMs - a.cpuMs) / N).toFixed(2) };
}

const call = async (fn: string, args: unknown[]): Promise<unknown> => {
  const res = await page.send('Runtime.callFunctionOn', { functionDeclaration: fn, objectId: page.apiId, arguments: args.map((value) => ({ value })), returnByValue: true, awaitPromise: true });
  if (res.exceptionDetails) throw new Error(`the page threw: ${JSON.stringify(res.exceptionDetails).slice(0, 200)}`);
  return res.result.value;
};
const SETUP = `function (w, h) {
  var c = document.createElement('canvas'); c.width = w; c.height = h;
  var x = c.getContext('2d'); x.fillStyle = '#fff'; x.fillRect(0, 0, w, h);
  for (var i = 0; i < 100; i++) { x.fillStyle = 'hsl(' + i + ',50%,50%)'; x.fillRect((i * 37) % w, (i * 53) % h, 40, 30); }
  window.__readback = c; return 1; }`;
const READ = 'function () { return window.__readback.toDataURL("image/png").length; }';
let nonce = 0;
console.log('| canvas | pixel bytes | a bar rendered: faults / renderer CPU ms per render | toDataURL alone: faults / renderer CPU ms per call |\n|---|---|---|---|');
for (const [w, h] of [[100, 100], [400, 300], [480, 480], [500, 500], [800, 600], [1200, 800], [1920, 1110]] as const) {
  const chart = (barBody('bar', w, h) as { chart: Record<string, unknown> }).chart;
  const rendered = await measure(async () => {
    await page.render(await toWire({ config: { ...chart, benchNonce: nonce++ }, width: w, height: h, format: 'png', backgroundColor: 'white', allowFunctions: false, watermark: null, budget: PAGE_BUDGETS.paid }));
  });
  await call(SETUP, [w, h]);
  const read = await measure(async () => {
    if (!((await call(READ, [])) as number > 0)) throw new Error('toDataURL gave nothing');
  });
  console.log(`| ${w}x${h} | ${(w * h * 4).toLocaleString('en')} | ${rendered.faults} / ${rendered.cpuMs} | ${read.faults} / ${read.cpuMs} |`);
}
await r.close();
