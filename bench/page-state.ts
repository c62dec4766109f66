// What the page-state guarantees cost per render (docs/decisions/0034-page-state-by-construction.md):
// the in-page floor (chartshot.floor: n renders in one call) of a few configs on harness pages of
// each Chart.js version, with its share spent on the checks (the module state restored before each
// render, the shared state compared after it, decision 38). Prints a table.
//   node --import tsx bench/page-state.ts [rounds]
import { loadavg, cpus } from 'node:os';
import type { Page } from 'puppeteer-core';
import { launchBrowser } from '../src/render/browser.js';
import { loadHarnessFiles, HARNESS_PAGES, type ChartjsVersion } from '../src/render/harness.js';
import { PAGE_LIMITS } from '../src/render/pageLimits.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const N = 40;
const LABELS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug'];
const bar = { type: 'bar', data: { labels: LABELS, datasets: [{ label: 'a', data: [3, 7, 4, 9, 6, 8, 5, 2] }, { label: 'b', data: [1, 2, 3, 4, 5, 6, 7, 8] }] }, options: { plugins: { title: { display: true, text: 'Sales' } } } };
const CONFIGS: Array<{ name: string; versions: ChartjsVersion[]; req: Record<string, unknown> }> = [
  { name: 'bar 800x400', versions: [4, 3, 2], req: { config: bar } },
  { name: 'bar, tick callback (this.getLabelForValue)', versions: [4, 3], req: { allowFunctions: true, config: { ...bar, options: { scales: { x: { ticks: { callback: 'function (value) { return "Q " + this.getLabelForValue(value); }' } } } } } } },
  { name: 'doughnut + datalabels', versions: [4, 3], req: { config: { type: 'doughnut', data: { labels: LABELS.slice(0, 4), datasets: [{ data: [3, 5, 2, 7] }] }, options: { plugins: { datalabels: { color: '#fff' } } } } } },
  { name: 'line + annotation label', versions: [4, 3], req: { config: { type: 'line', data: bar.data, options: { plugins: { annotation: { annotations: { t: { type: 'line', yMin: 5, yMax: 5, label: { display: true, enabled: true, content: 'Target' } } } } } } } } },
  { name: 'bar svg', versions: [4], req: { format: 'svg', config: bar } },
];

const lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
const files = loadHarnessFiles();
type Floor = { msPerRender: number; checkMsPerRender: number; ok: boolean };
async function open(version: ChartjsVersion): Promise<Page> {
  const page = await lb.browser.newPage();
  await page.setContent(files.get(HARNESS_PAGES[version])!.body.toString('utf8'));
  await page.evaluate((l) => (window as unknown as { chartshot: { init(x: unknown): true } }).chartshot.init(l), PAGE_LIMITS as unknown as Record<string, number>);
  return page;
}
// the config as JSON text, as Node sends it: each render parses its own copy
const floor = (page: Page, req: Record<string, unknown>) => {
  const { config, ...rest } = req;
  const wire = { width: 800, height: 400, format: 'png', backgroundColor: '#fff', allowFunctions: false, watermark: null, ...rest, configJson: JSON.stringify(config) };
  return page.evaluate((r, n) => (window as unknown as { chartshot: { floor(x: unknown, n: number): Promise<Floor> } }).chartshot.floor(r, n), wire, N);
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`page-state bench: ${ROUNDS} rounds of ${N} renders per config and page, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`);
console.log('| config | Chart.js | ms/render | checks ms/render | checks share |');
console.log('|---|---|---|---|---|');
for (const version of [4, 3, 2] as const) {
  const page = await open(version);
  for (const c of CONFIGS.filter((x) => x.versions.includes(version))) {
    await floor(page, c.req);
    const runs: Floor[] = [];
    for (let i = 0; i < ROUNDS; i++) runs.push(await floor(page, c.req));
    if (!runs.every((f) => f.ok)) throw new Error(`${c.name} failed on Chart.js ${version}`);
    const ms = median(runs.map((f) => f.msPerRender));
    const check = median(runs.map((f) => f.checkMsPerRender));
    console.log(`| ${c.name} | ${version} | ${ms.toFixed(2)} | ${check.toFixed(3)} | ${((100 * check) / ms).toFixed(1)}% |`);
  }
  await page.close();
}
await lb.close();
