// Configs chartshot used to refuse and Chart.js draws: Chart.js's own image-test fixtures with
// no top-level type (each dataset names its own), no datasets, or datasets without data
// (fixtures/chartjs/, converted by scripts/chartjs-fixtures.mjs). Each must come out
// pixel-identical to Chart.js 4 on a plain <canvas> in the same Chromium. All of them run: they
// are small canvases, one render each. Set DRAWALL_PNG_DIR to keep the images.
import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { post, sharedAccount, type TestServer } from '../helpers/server.js';
import { decodePng } from '../helpers/images.js';
import { apiKey, bytes } from '../helpers/client.js';

const vendor = (f: string) => readFileSync(join('renderer-page/vendor', f), 'utf8').replace(/<\/script/gi, '<\\/script');
const DIR = 'fixtures/chartjs';

interface Fixture { source: string; chart: Record<string, unknown>; width: number; height: number }

describe('fidelity of configs Chart.js draws without a type or without data', function () {
  this.timeout(180000);
  let s: TestServer;
  let key: string;
  let lb: LaunchedBrowser;
  let page: Page;
  const dumpDir = process.env.DRAWALL_PNG_DIR;

  before(async () => {
    ({ s, key } = await sharedAccount());
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
    page = await lb.browser.newPage();
    const scripts = ['chart.umd.js', 'chartjs-adapter-date-fns.js'].map((f) => `<script>${vendor(f)}</script>`).join('');
    await page.setContent(`<!doctype html><html><body style="margin:0">${scripts}</body></html>`);
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  });
  after(async () => {
    await lb?.close();
  });

  async function reference(fx: Fixture): Promise<Buffer> {
    const b64 = await page.evaluate((text: string) => {
      const f = JSON.parse(text) as Fixture;
      const cfg = f.chart as { options?: Record<string, unknown> };
      cfg.options = Object.assign({}, cfg.options, { responsive: false, animation: false, devicePixelRatio: 1 });
      const canvas = document.createElement('canvas');
      canvas.width = f.width;
      canvas.height = f.height;
      document.body.appendChild(canvas);
      const C = (window as unknown as { Chart: new (c: HTMLCanvasElement, cfg: unknown) => { destroy(): void } }).Chart;
      const chart = new C(canvas, cfg);
      const url = canvas.toDataURL('image/png');
      chart.destroy();
      canvas.remove();
      return url.slice(url.indexOf(',') + 1);
    }, JSON.stringify(fx));
    return Buffer.from(b64, 'base64');
  }

  for (const why of readdirSync(DIR).sort()) {
    for (const file of readdirSync(join(DIR, why)).sort()) {
      it(`${why}: ${file.replace('.json', '')}`, async () => {
        const fx = JSON.parse(readFileSync(join(DIR, why, file), 'utf8')) as Fixture;
        const res = await post(s.url, '/v1/chart', { chart: fx.chart, width: fx.width, height: fx.height }, apiKey(key));
        const body = await bytes(res);
        expect(res.status, body.toString('utf8', 0, 300)).to.equal(200);
        const refBytes = await reference(fx);
        if (dumpDir) {
          writeFileSync(join(dumpDir, `${why}--${file}.png`), body);
          writeFileSync(join(dumpDir, `${why}--${file}.ref.png`), refBytes);
        }
        const ours = decodePng(body);
        const ref = decodePng(refBytes);
        expect([ours.width, ours.height]).to.deep.equal([ref.width, ref.height]);
        let differing = 0;
        for (let i = 0; i < ours.data.length; i++) if (ours.data[i] !== ref.data[i]) differing++;
        expect(differing, `${differing} channel values differ`).to.equal(0);
      });
    }
  }
});
