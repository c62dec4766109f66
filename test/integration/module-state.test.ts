// Every bundle's module-level state is put back before each render (renderer-page/state.js),
// checked from outside the page: V8 heap snapshots of a renderer page taken after the same small
// chart, once on the freshly loaded page and once after a corpus of other renders (every golden
// fixture, every chart-type plugin's example, annotation labels through each option route, caller
// plugin objects; PNG and SVG). Every variable of every closure scope alive at both snapshots must
// hold the same thing: a cache that kept an entry, a counter that moved, a registry that grew is a
// variable some render left for the next one. Real Chromium, one page per Chart.js version.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadHarnessFiles, HARNESS_PAGES, type ChartjsVersion } from '../../src/render/harness.js';
import { PAGE_LIMITS } from '../../src/render/pageLimits.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { PLUGIN_EXAMPLES } from '../helpers/pluginExamples.js';
import { takeHeap, changedVariables } from '../helpers/heapState.js';

const BASE = { width: 400, height: 300, backgroundColor: '#fff', allowFunctions: false, watermark: null };
const SMALL = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 's', data: [1, 2] }] }, options: { plugins: { title: { display: true, text: 't' } } } };

function corpus(version: ChartjsVersion): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const f of readdirSync('fixtures/golden').filter((n) => n.endsWith('.json')).sort()) out.push((JSON.parse(readFileSync(`fixtures/golden/${f}`, 'utf8')) as { chart: Record<string, unknown> }).chart);
  if (version === 4) for (const ex of PLUGIN_EXAMPLES) out.push(ex.config);
  const label = { display: true, enabled: true, content: ['Target', 'two'], font: { lineHeight: 5 } };
  out.push({ type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] }, options: { annotations: { a: { type: 'line', yMin: 1, yMax: 1, label } } } });
  out.push({ type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] }, options: { annotation: { annotations: [{ type: 'line', mode: 'horizontal', scaleID: 'y-axis-0', value: 1, label }] } } });
  out.push({ type: 'doughnut', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] }, options: { plugins: { datalabels: { color: 'red' } } }, plugins: [{ id: 'datalabels', additionalOptionScopes: ['plugins.title'] }, { id: 'annotation' }] });
  out.push({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { locale: 'de-DE', scales: { y: { ticks: { format: { style: 'percent' } } } } } });
  return out;
}

describe('module-level state of every bundle is restored before each render', function () {
  this.timeout(600000);
  let lb: LaunchedBrowser;
  before(async () => {
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
  });
  after(async () => lb?.close());

  for (const version of [4, 3, 2] as const) {
    it(`Chart.js ${version}: a corpus of renders leaves no closure variable changed`, async () => {
      const files = loadHarnessFiles();
      const page: Page = await lb.browser.newPage();
      try {
        await page.setContent(files.get(HARNESS_PAGES[version])!.body.toString('utf8'));
        await page.evaluate((l) => (window as unknown as { chartshot: { init(x: unknown): true } }).chartshot.init(l), PAGE_LIMITS as unknown as Record<string, number>);
        const render = (req: unknown) =>
          page.evaluate(async (r) => {
            const a = await (window as unknown as { chartshot: { render(x: unknown): Promise<{ ok: boolean; error?: string }> } }).chartshot.render(r);
            return a.ok ? 'ok' : a.error;
          }, req as Record<string, unknown>);
        expect(await render({ ...BASE, format: 'png', config: SMALL })).to.equal('ok');
        const cdp = await page.createCDPSession();
        const before = await takeHeap(cdp);
        for (const format of ['png', 'svg']) for (const config of corpus(version)) await render({ ...BASE, format, config });
        expect(await render({ ...BASE, format: 'png', config: SMALL })).to.equal('ok');
        const after = await takeHeap(cdp);
        const changed = changedVariables(before, after).map((v) => `${v.name} (scope of ${v.context.slice(0, 6).join(', ')}...; functions ${v.closures.join(', ')}): ${v.was} -> ${v.now}`);
        expect(changed).to.deep.equal([]);
      } finally {
        await page.close();
      }
    });
  }
});
