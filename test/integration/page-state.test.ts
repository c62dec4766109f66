// After every render the page compares its shared state with the loaded page's
// (renderer-page/harness/page-state.js): a difference anywhere (Chart.js's defaults, registry or
// classes, a plugin's exports, the realm's and the canvas's prototypes, the window's names, the
// document) makes the render answer needsReset with resetReason 'page_state', whatever the config
// named, so the pool resets the page before anyone else uses it. Each write here is made from
// outside a render, as a library could make it during one, then undone: the next render must
// report it, and the one after the undo must not (the digest has no false alarms). Chart.js 2, 3
// and 4, one page each, real Chromium.
import { expect } from 'chai';
import type { JSHandle, Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadHarnessFiles, HARNESS_PAGES, type ChartjsVersion } from '../../src/render/harness.js';
import { PAGE_LIMITS } from '../../src/render/pageLimits.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';

const BAR = { type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'x', data: [3, 1, 2] }] } };

/** A write to something every render shares, and its undo, as page-side source run with `w` (the window), `C` (Chart) and `S` (a slot for what the undo needs). */
interface Write {
  name: string;
  versions: ChartjsVersion[];
  make: string;
  undo: string;
}

const WRITES: Write[] = [
  { name: 'a Chart.js default (font)', versions: [3, 4], make: 'S.v = C.defaults.font.size; C.defaults.font.size = 30', undo: 'C.defaults.font.size = S.v' },
  { name: 'a Chart.js 2 global default', versions: [2], make: 'S.v = C.defaults.global.defaultFontColor; C.defaults.global.defaultFontColor = "#f00"', undo: 'C.defaults.global.defaultFontColor = S.v' },
  { name: 'a nested default (tooltip callbacks)', versions: [3, 4], make: 'S.v = C.defaults.plugins.tooltip.callbacks.label; C.defaults.plugins.tooltip.callbacks.label = function () { return "x"; }', undo: 'C.defaults.plugins.tooltip.callbacks.label = S.v' },
  { name: 'a plugin registered', versions: [3, 4], make: 'S.v = { id: "stamp", afterDraw: function () {} }; C.register(S.v)', undo: 'C.unregister(S.v)' },
  { name: 'an element class prototype', versions: [3, 4], make: 'S.v = C.BarElement.prototype.draw; C.BarElement.prototype.draw = function () {}', undo: 'C.BarElement.prototype.draw = S.v' },
  { name: 'a helper', versions: [4], make: 'S.v = C.helpers.toFont; C.helpers.toFont = function () { return S.v.apply(this, arguments); }', undo: 'C.helpers.toFont = S.v' },
  { name: 'Array.prototype', versions: [2, 3, 4], make: 'Object.defineProperty(Array.prototype, "stamp", { value: 1, configurable: true, writable: true })', undo: 'delete Array.prototype.stamp' },
  { name: 'Object.prototype', versions: [2, 3, 4], make: 'Object.prototype.stamp = 1', undo: 'delete Object.prototype.stamp' },
  { name: "the canvas context's prototype", versions: [2, 3, 4], make: 'S.v = CanvasRenderingContext2D.prototype.fillText; CanvasRenderingContext2D.prototype.fillText = function () {}', undo: 'CanvasRenderingContext2D.prototype.fillText = S.v' },
  { name: 'Math', versions: [2, 3, 4], make: 'S.v = Math.round; Math.round = Math.floor', undo: 'Math.round = S.v' },
  { name: 'a global', versions: [2, 3, 4], make: 'w.stamp = 1', undo: 'delete w.stamp' },
  { name: 'a library global replaced', versions: [3, 4], make: 'S.v = w.ChartDataLabels; w.ChartDataLabels = {}', undo: 'w.ChartDataLabels = S.v' },
  { name: 'a window event handler', versions: [2, 3, 4], make: 'w.onmessage = function () {}', undo: 'w.onmessage = null' },
  // never undone (a fresh page each): Chart.js 2 counts registrations (its plugin cache id), and
  // any change to the document is remembered
  { name: 'a Chart.js 2 plugin registered', versions: [2], make: 'C.plugins.register({ id: "stamp", afterDraw: function () {} })', undo: '' },
  { name: 'the document', versions: [2, 3, 4], make: 'document.body.setAttribute("data-stamp", "1")', undo: '' },
];

describe('the page compares its shared state with the loaded page after every render', function () {
  this.timeout(180000);
  let lb: LaunchedBrowser;
  const files = loadHarnessFiles();
  before(async () => {
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
  });
  after(async () => lb?.close());

  const render = (page: Page) =>
    page.evaluate((cfg) => {
      const c = (window as unknown as { chartshot: { render(r: unknown): { ok: boolean; needsReset?: boolean; resetReason?: string }; lastChange: string } }).chartshot;
      const a = c.render({ width: 300, height: 200, format: 'png', configJson: JSON.stringify(cfg) });
      return { ok: a.ok, needsReset: a.needsReset, resetReason: a.resetReason, change: c.lastChange };
    }, BAR);
  // run from outside any render, with the window (w), Chart (C) and a slot for the undo (S) that no
  // global holds (a handle kept on the Node side)
  const run = (page: Page, slot: JSHandle, source: string) =>
    page.evaluate((S, src) => new Function('w', 'C', 'S', src)(window, (window as unknown as { Chart: unknown }).Chart, S), slot, source);

  const open = async (version: ChartjsVersion) => {
    const page = await lb.browser.newPage();
    await page.setContent(files.get(HARNESS_PAGES[version])!.body.toString('utf8'));
    expect(await page.evaluate(() => (window as unknown as { chartshot: { ready: boolean } }).chartshot.ready)).to.equal(true);
    await page.evaluate((l) => (window as unknown as { chartshot: { init(x: unknown): true } }).chartshot.init(l), PAGE_LIMITS as unknown as Record<string, number>);
    return page;
  };

  for (const version of [4, 3, 2] as ChartjsVersion[]) {
    it(`Chart.js ${version}: every write to shared state resets the page (page_state), and nothing else does`, async () => {
      const writes = WRITES.filter((w) => w.versions.includes(version));
      let page = await open(version);
      try {
        const clean = await render(page);
        expect(clean, 'a plain render: ' + clean.change).to.deep.include({ ok: true, needsReset: false });
        for (const write of writes) {
          const slot = await page.evaluateHandle(() => ({}));
          await run(page, slot, write.make);
          const after = await render(page);
          expect(after, `${write.name}: ${after.change}`).to.deep.include({ ok: true, needsReset: true, resetReason: 'page_state' });
          if (write.undo) {
            await run(page, slot, write.undo);
            await slot.dispose();
            const undone = await render(page);
            expect(undone, `${write.name} undone: ${undone.change}`).to.deep.include({ ok: true, needsReset: false });
          } else {
            await page.close();
            page = await open(version);
          }
        }
      } finally {
        await page.close();
      }
    });
  }
});
