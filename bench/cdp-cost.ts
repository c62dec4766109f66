// What one CDP call costs, by process, with no chart in it: Runtime.callFunctionOn on a pool
// page (the render call's shape: objectId of the window, returnByValue, awaitPromise) carrying
// BYTES characters in and out (default 3000; a 100x100 bar's PNG is about 4.7 KB of base64).
// Prints wall time, this Node process's CPU (puppeteer) and each Chromium thread's per call.
// bench/cdp-raw.ts is the same call over a minimal pipe transport, for the Node side.
//
//   [BYTES=100000] node --import tsx bench/cdp-cost.ts <checkout> [calls]
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
const dir = resolve(process.argv[2] ?? '.');
const N = Number(process.argv[3] ?? 2000);
const { Renderer } = (await import(join(dir, 'dist/render/renderer.js'))) as any;
const { loadConfig } = (await import(join(dir, 'dist/config.js'))) as any;
const { createLogger } = (await import(join(dir, 'dist/log.js'))) as any;
const cfg = loadConfig({});
const r = new Renderer({ chromiumPath: cfg.chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 60000, maxQueue: 100, pageMaxRenders: 100000, harnessDir: join(dir, 'renderer-page') }, createLogger('silent'));
await r.start();
const page = [...r.livePages()][0] as any;
const root = r.currentLaunch()!.pid!;
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  for (const p of pids) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes(r.currentLaunch()!.profileDir) && Number(p) !== root) continue;
      const kind = /--type=renderer/.test(cmd) ? 'renderer' : /--type=/.test(cmd) ? 'other' : 'browser';
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const st = readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8');
        const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')).replace(/[0-9]+$/, '#');
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        const k = `${kind} ${name}`;
        out.set(k, (out.get(k) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
      }
    } catch { /* gone */ }
  }
  return out;
}
const payload = 'A'.repeat(Number(process.env.BYTES ?? 3000));
const variants: Record<string, () => Promise<unknown>> = {
  current: () => page.cdp.send('Runtime.callFunctionOn', { functionDeclaration: 'function (req) { return { ok: true, data: req.s + "x" }; }', objectId: page.apiId, arguments: [{ value: { s: payload } }], returnByValue: true, awaitPromise: true }),
  noAwait: () => page.cdp.send('Runtime.callFunctionOn', { functionDeclaration: 'function (req) { return { ok: true, data: req.s + "x" }; }', objectId: page.apiId, arguments: [{ value: { s: payload } }], returnByValue: true }),
  tiny: () => page.cdp.send('Runtime.callFunctionOn', { functionDeclaration: 'function (req) { return 1; }', objectId: page.apiId, arguments: [{ value: 1 }], returnByValue: true }),
};
for (const [name, fn] of Object.entries(variants)) {
  for (let i = 0; i < 200; i++) await fn();
  const a = threads(); const c0 = process.cpuUsage(); const t0 = Date.now();
  for (let i = 0; i < N; i++) await fn();
  const wall = Date.now() - t0; const c = process.cpuUsage(c0); const b = threads();
  const rows = [...b].map(([k, v]) => [k, (v - (a.get(k) ?? 0)) / N] as const).filter(([, v]) => v >= 0.01);
  console.log(`${name}: ${(wall / N).toFixed(3)} ms wall, node ${((c.user + c.system) / 1000 / N).toFixed(3)} ms; ` + rows.map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', '));
}
await r.close();
