// Fidelity: a chartshot PNG must be pixel-identical to what Chart.js draws on a plain
// <canvas width=W height=H> in the same Chromium, with nothing but responsive/animation off
// and devicePixelRatio 1. The reference page is built here from the same
// vendored scripts, without the harness.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../src/render/browser.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { post, sharedAccount, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio } from '../helpers/images.js';
import { apiKey, bytes } from '../helpers/client.js';

const vendor = (f: string) => readFileSync(join('renderer-page/vendor', f), 'utf8');

describe('fidelity with a plain Chart.js page', function () {
  this.timeout(120000);
  let s: TestServer;
  let key: string;
  let lb: LaunchedBrowser;
  let page: Page;

  before(async () => {
    ({ s, key } = await sharedAccount());
    lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
    page = await lb.browser.newPage();
    const scripts = ['chart.umd.js', 'chartjs-adapter-date-fns.js', 'chartjs-plugin-annotation.js', 'chartjs-plugin-datalabels.js']
      .map((f) => `<script>${vendor(f).replace(/<\/script/gi, '<\\/script')}</script>`)
      .join('\n');
    await page.setContent(`<!doctype html><html><body style="margin:0">${scripts}<script>Chart.register(window['chartjs-plugin-annotation']);</script></body></html>`);
  });
  after(async () => {
    await lb?.close();
  });

  /** What Chart.js itself draws: a canvas in the DOM, the config with only the forced options. */
  async function reference(chart: Record<string, unknown>, width: number, height: number, background: string | null): Promise<Buffer> {
    const b64 = await page.evaluate(
      (cfgText: string, w: number, h: number, bg: string | null) => {
        const cfg = JSON.parse(cfgText);
        cfg.options = Object.assign({}, cfg.options, { responsive: false, animation: false, devicePixelRatio: 1 });
        const plugins: unknown[] = [];
        const wantsLabels = !!(cfg.options.plugins && cfg.options.plugins.datalabels);
        if (wantsLabels) plugins.push((window as unknown as { ChartDataLabels: unknown }).ChartDataLabels);
        if (bg) {
          // Chart.js's documented way to give a canvas a background colour.
          plugins.push({
            id: 'bg',
            beforeDraw(c: { ctx: CanvasRenderingContext2D; width: number; height: number }) {
              c.ctx.save();
              c.ctx.globalCompositeOperation = 'destination-over';
              c.ctx.fillStyle = bg;
              c.ctx.fillRect(0, 0, c.width, c.height);
              c.ctx.restore();
            },
          });
        }
        cfg.plugins = plugins;
        const canvas = document.createElement('canvas');
        canvas.width = w;
        canvas.height = h;
        document.body.appendChild(canvas);
        const C = (window as unknown as { Chart: new (c: HTMLCanvasElement, cfg: unknown) => { destroy(): void } }).Chart;
        const chart = new C(canvas, cfg);
        const url = canvas.toDataURL('image/png');
        chart.destroy();
        canvas.remove();
        return url.slice(url.indexOf(',') + 1);
      },
      JSON.stringify(chart),
      width,
      height,
      background,
    );
    return Buffer.from(b64, 'base64');
  }

  /** Chromium rasterises an SVG onto a canvas of its size. */
  async function rasterise(svg: string, width: number, height: number): Promise<Buffer> {
    const b64 = await page.evaluate(
      async (text: string, w: number, h: number) => {
        const img = new Image();
        img.src = 'data:image/svg+xml;base64,' + btoa(unescape(encodeURIComponent(text)));
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = w;
        canvas.height = h;
        canvas.getContext('2d')!.drawImage(img, 0, 0);
        const url = canvas.toDataURL('image/png');
        return url.slice(url.indexOf(',') + 1);
      },
      svg,
      width,
      height,
    );
    return Buffer.from(b64, 'base64');
  }

  // SVG is drawn by a canvas-to-SVG context, so anti-aliasing differs a little from the canvas:
  // pixelmatch threshold 0.1, at most 1% of pixels.
  for (const file of readdirSync('fixtures/golden').filter((f) => f.endsWith('.json')).sort()) {
    it(`${file.replace('.json', '')}: SVG rasterised matches the PNG`, async () => {
      const fx = JSON.parse(readFileSync(join('fixtures/golden', file), 'utf8')) as { width: number; height: number };
      const png = await bytes(post(s.url, '/v1/chart', fx, apiKey(key)));
      const svg = await (await post(s.url, '/v1/chart', { ...fx, format: 'svg' }, apiKey(key))).text();
      const ratio = diffRatio(await rasterise(svg, fx.width, fx.height), png);
      expect(ratio, `${(ratio * 100).toFixed(2)}% of pixels differ`).to.be.at.most(0.01);
    });
  }

  for (const file of readdirSync('fixtures/golden').filter((f) => f.endsWith('.json')).sort()) {
    it(`${file.replace('.json', '')}: identical pixels`, async () => {
      const fx = JSON.parse(readFileSync(join('fixtures/golden', file), 'utf8')) as {
        chart: Record<string, unknown>; width: number; height: number; backgroundColor?: string;
      };
      const res = await post(s.url, '/v1/chart', fx, apiKey(key));
      expect(res.status).to.equal(200);
      const ours = decodePng(await bytes(res));
      const ref = decodePng(await reference(fx.chart, fx.width, fx.height, fx.backgroundColor ?? null));
      expect([ours.width, ours.height]).to.deep.equal([ref.width, ref.height]);
      let differing = 0;
      for (let i = 0; i < ours.data.length; i += 4) {
        if (ours.data[i] !== ref.data[i] || ours.data[i + 1] !== ref.data[i + 1] || ours.data[i + 2] !== ref.data[i + 2] || ours.data[i + 3] !== ref.data[i + 3]) differing++;
      }
      expect(differing, `${differing} pixels differ`).to.equal(0);
    });
  }
});
