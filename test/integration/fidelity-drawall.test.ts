// Configs chartshot used to refuse and Chart.js draws: Chart.js's own image-test fixtures with
// no top-level type (each dataset names its own), no datasets, datasets without data, or time
// formats written for the moment adapter (fixtures/chartjs/, converted by
// scripts/chartjs-fixtures.mjs). Each must come out pixel-identical to Chart.js 4 on a plain
// <canvas> in the same Chromium, with the date-fns adapter, or for moment/ with moment and the
// unmodified chartjs-adapter-moment. The suite runs every type-less fixture and every third of
// the others (sorted by name; 35 of 97, about 20-45 s on a loaded machine: the CI is near its
// budget); DRAWALL_ALL=1 runs all 97. Set DRAWALL_PNG_DIR to keep the images.
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
  const pages: Record<string, Page> = {};
  const dumpDir = process.env.DRAWALL_PNG_DIR;

  before(async () => {
    ({ s, key } = await sharedAccount());
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
    const momentAdapter = readFileSync('node_modules/chartjs-adapter-moment/dist/chartjs-adapter-moment.js', 'utf8');
    const adapters = { dateFns: [vendor('chartjs-adapter-date-fns.js')], moment: [vendor('moment.js'), momentAdapter] };
    for (const [name, scripts] of Object.entries(adapters)) {
      const page = await lb.browser.newPage();
      const tags = [vendor('chart.umd.js'), ...scripts].map((code) => `<script>${code}</script>`).join('');
      await page.setContent(`<!doctype html><html><body style="margin:0">${tags}</body></html>`);
      pages[name] = page;
    }
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  });
  after(async () => {
    await lb?.close();
  });

  async function reference(fx: Fixture, adapter: string): Promise<Buffer> {
    const b64 = await pages[adapter].evaluate((text: string) => {
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

  it('the open endpoint draws a type-less mixed chart too (its gate checks each dataset\'s type)', async () => {
    const c = { data: { labels: ['a', 'b'], datasets: [{ type: 'bar', data: [1, 2] }, { type: 'line', data: [2, 1] }] } };
    const res = await fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(c), w: '200', h: '100' })}`);
    expect(res.status).to.equal(200);
    expect(decodePng(await bytes(res)).width).to.equal(200);
    const bad = { data: { datasets: [{ type: 'bar', data: [1] }, { data: [2] }] } };
    expect((await fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(bad) })}`)).status).to.equal(400);
  });

  for (const why of readdirSync(DIR).sort()) {
    const files = readdirSync(join(DIR, why)).sort();
    const sampled = process.env.DRAWALL_ALL || why === 'no-type' ? files : files.filter((_, i) => i % 3 === 0);
    for (const file of sampled) {
      it(`${why}: ${file.replace('.json', '')}`, async () => {
        const fx = JSON.parse(readFileSync(join(DIR, why, file), 'utf8')) as Fixture;
        const res = await post(s.url, '/v1/chart', { chart: fx.chart, width: fx.width, height: fx.height }, apiKey(key));
        const body = await bytes(res);
        expect(res.status, body.toString('utf8', 0, 300)).to.equal(200);
        const refBytes = await reference(fx, why === 'moment' ? 'moment' : 'dateFns');
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
