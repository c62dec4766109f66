// The render call's shape through CDP, with no chart in it: a pool page answers a request of a
// 100x100 bar's size (the wire request the service sends, budgets included) with an image of a
// 100x100 bar's size, in several shapes: the request as a protocol object or as one JSON
// string; the answer as an object (returnByValue) or as one string; with and without
// awaitPromise. Variants alternate in rounds (each round runs them all, order rotated).
// Prints wall p50 and CPU per call by process (this Node process, browser, renderer).
//
//   node --import tsx bench/cdp-shape.ts <checkout> [calls a round] [rounds]
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { barBody } from './compare.js';

const dir = resolve(process.argv[2] ?? '.');
const N = Number(process.argv[3] ?? 1000);
const ROUNDS = Number(process.argv[4] ?? 3);
const { Renderer } = (await import(join(dir, 'dist/render/renderer.js'))) as typeof import('../src/render/renderer.js');
const { toWire } = (await import(join(dir, 'dist/render/page.js'))) as typeof import('../src/render/page.js');
const { PAGE_BUDGETS } = (await import(join(dir, 'dist/render/budgets.js'))) as typeof import('../src/render/budgets.js');
const { loadConfig } = (await import(join(dir, 'dist/config.js'))) as typeof import('../src/config.js');
const { createLogger } = (await import(join(dir, 'dist/log.js'))) as typeof import('../src/log.js');
const cfg = loadConfig({});
const r = new Renderer({ chromiumPath: cfg.chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 60000, maxQueue: 100, pageMaxRenders: 100000, harnessDir: join(dir, 'renderer-page') }, createLogger('silent'));
await r.start();
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const page = [...r.livePages()][0] as any;
const root = r.currentLaunch()!.pid!;

const b = barBody('bar', 100, 100);
// LABELS=n: a config of n quoted labels and values (a mid-size config crossing undeflated)
if (process.env.LABELS) {
  const n = Number(process.env.LABELS);
  const chart = b.chart as { data: { labels: string[]; datasets: { data: number[] }[] } };
  chart.data.labels = Array.from({ length: n }, (_, i) => `label "${i}"`);
  chart.data.datasets[0]!.data = Array.from({ length: n }, (_, i) => i % 17);
}
const req = { config: b.chart as Record<string, unknown>, width: 100, height: 100, format: 'png' as const, backgroundColor: 'white', allowFunctions: false, watermark: null };
const real = await r.render(req);
const wire = { ...(await toWire({ ...req, memoryBudgetMb: 256, maxImageBytes: 10485760, budget: PAGE_BUDGETS.paid })) };
const dataLen = Number(process.env.DATA ?? real.data.length);
const wireJson = JSON.stringify(wire);
console.log(`request ${wireJson.length} chars as JSON, answer ${dataLen} chars of base64; load average ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);

// the page keeps the answer ready, as a string of the image's length
await page.cdp.send('Runtime.evaluate', { expression: `window.__img = ${JSON.stringify('A'.repeat(dataLen))}; 1` });
// BUSY_MS: the page works this long before it answers (a render's length): whether the round
// trip costs more when the browser's threads had time to fall idle
const busy = `var t0 = performance.now(); while (performance.now() - t0 < ${Number(process.env.BUSY_MS ?? 0)}) {}`;
// every request differs (a nonce in the config, as the service's traffic does): no compile cache
let nonce = 0;
const fresh = () => ({ ...wire, configJson: (wire as { configJson: string }).configJson.replace('{', `{"n":${nonce++},`) });
const freshJson = () => JSON.stringify(fresh());
const objOut = 'return { ok: true, data: window.__img, ms: 1.5, ranFunctions: false, needsReset: false };';
const strOut = "return 'o' + '1.5' + ';' + window.__img;";
const send = (fn: string, arg: unknown, returnByValue = true, awaitPromise = true) =>
  page.cdp.send('Runtime.callFunctionOn', { functionDeclaration: fn, objectId: page.apiId, arguments: [{ value: arg }], returnByValue, awaitPromise });
const variants: Record<string, () => Promise<unknown>> = {
  'object in, object out (now)': () => send(`function (req) { var w = req.width; ${busy} ${objOut} }`, fresh()),
  'object in, object out, no awaitPromise': () => send(`function (req) { var w = req.width; ${busy} ${objOut} }`, fresh(), true, false),
  'string in, object out': () => send(`function (s) { var req = JSON.parse(s); ${busy} ${objOut} }`, freshJson()),
  'string in, string out': () => send(`function (s) { var req = JSON.parse(s); ${busy} ${strOut} }`, freshJson()),
  'object in, string out': () => send(`function (req) { var w = req.width; ${busy} ${strOut} }`, fresh()),
  'options text + config text, string out': () => {
    const { configJson, ...rest } = fresh() as { configJson: string };
    return page.cdp.send('Runtime.callFunctionOn', { functionDeclaration: `function (o, c) { var req = JSON.parse(o); req.configJson = c; ${busy} ${strOut} }`, objectId: page.apiId, arguments: [{ value: JSON.stringify(rest) }, { value: configJson }], returnByValue: true, awaitPromise: true });
  },
  'options text + config text, object out': () => {
    const { configJson, ...rest } = fresh() as { configJson: string };
    return page.cdp.send('Runtime.callFunctionOn', { functionDeclaration: `function (o, c) { var req = JSON.parse(o); req.configJson = c; ${busy} ${objOut} }`, objectId: page.apiId, arguments: [{ value: JSON.stringify(rest) }, { value: configJson }], returnByValue: true, awaitPromise: true });
  },
  'tiny (1 in, 1 out)': () => send(`function (x) { ${busy} return 1; }`, 1),
};

function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes(r.currentLaunch()!.profileDir) && Number(p) !== root) continue;
      const kind = /--type=renderer/.test(cmd) ? 'renderer' : /--type=/.test(cmd) ? 'other' : 'browser';
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const st = readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8');
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        out.set(kind, (out.get(kind) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
      }
    } catch {
      /* gone */
    }
  }
  return out;
}
const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const only = process.env.VARIANTS?.split(',');
const names = Object.keys(variants).filter((n, i) => !only || only.includes(String(i)));
const acc = new Map<string, { wall: number[]; node: number[]; browser: number[]; renderer: number[] }>(names.map((n) => [n, { wall: [], node: [], browser: [], renderer: [] }]));
for (const n of names) for (let i = 0; i < 200; i++) await variants[n]!();
for (let round = 0; round < ROUNDS; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]!);
  for (const name of order) {
    const fn = variants[name]!;
    const walls: number[] = [];
    const a = threads();
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      await fn();
      walls.push(performance.now() - t);
    }
    const c = process.cpuUsage(c0);
    const z = threads();
    const d = (k: string) => ((z.get(k) ?? 0) - (a.get(k) ?? 0)) / N;
    const s = acc.get(name)!;
    s.wall.push(med(walls));
    s.node.push((c.user + c.system) / 1000 / N);
    s.browser.push(d('browser'));
    s.renderer.push(d('renderer'));
  }
}
console.log('| variant | wall p50 ms | node CPU ms | browser | renderer | total CPU |\n|---|---|---|---|---|---|');
const f = (x: number) => x.toFixed(3);
for (const n of names) {
  const s = acc.get(n)!;
  const [w, no, br, re] = [med(s.wall), med(s.node), med(s.browser), med(s.renderer)];
  console.log(`| ${n} | ${f(w)} | ${f(no)} | ${f(br)} | ${f(re)} | ${f(no + br + re)} |`);
}
console.log(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
await r.close();
process.exit(0);
