// Does a change alter any image? Renders the honest bench's corpus and the golden fixtures
// (PNG at ratio 1 and 2, SVG, Chart.js 2, 3 and 4) with the built checkout given, and prints
// one sha256 per image as JSON; run it on two checkouts and compare the outputs:
//
//   node --import tsx bench/same-bytes.ts <checkout> > a.json
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateCorpus } from './honest/corpus.js';

const dir = resolve(process.argv[2] ?? '.');
const { Renderer } = (await import(join(dir, 'dist/render/renderer.js'))) as typeof import('../src/render/renderer.js');
const { loadConfig } = (await import(join(dir, 'dist/config.js'))) as typeof import('../src/config.js');
const { createLogger } = (await import(join(dir, 'dist/log.js'))) as typeof import('../src/log.js');
const cfg = loadConfig(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {});
const r = new Renderer(
  { chromiumPath: cfg.chromiumPath, size: 2, renderTimeoutMs: 20000, acquireTimeoutMs: 60000, maxQueue: 100, pageMaxRenders: 1000, harnessDir: join(dir, 'renderer-page') },
  createLogger('silent'),
);
await r.start();
type Body = { chart: Record<string, unknown>; width: number; height: number; backgroundColor?: string };
const bodies: Array<[string, Body]> = generateCorpus().map((e) => [e.name, e.body as Body]);
const golden = join(dir, 'fixtures/golden');
for (const f of readdirSync(golden).filter((n) => n.endsWith('.json'))) bodies.push([f, JSON.parse(readFileSync(join(golden, f), 'utf8')) as Body]);
const out: Record<string, string> = {};
for (const [name, b] of bodies) {
  const variants: Array<[string, Record<string, unknown>]> = [
    ['png', { format: 'png' }],
    ['png@2', { format: 'png', devicePixelRatio: 2 }],
    ['svg', { format: 'svg' }],
  ];
  if (name.endsWith('.json')) variants.push(['v3', { format: 'png', chartjs: 3 }]);
  for (const [v, extra] of variants) {
    try {
      const res = await r.render({ config: b.chart, width: b.width, height: b.height, backgroundColor: b.backgroundColor ?? null, allowFunctions: true, watermark: v === 'png' ? 'wm' : null, ...extra } as never);
      out[`${name} ${v}`] = createHash('sha256').update(String((res as { data: string }).data)).digest('hex').slice(0, 16);
    } catch (e) {
      out[`${name} ${v}`] = `error: ${(e as Error).message.slice(0, 80)}`;
    }
  }
}
await r.close();
console.log(JSON.stringify(out, null, 1));
