// Fidelity: a chartshot PNG must be pixel-identical to what Chart.js draws on a plain
// <canvas width=W height=H> in the same Chromium, with nothing but responsive/animation off
// and devicePixelRatio 1. The reference is the fidelity oracle (test/helpers/oracle.ts): the
// same vendored scripts, without the harness.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { post, sharedAccount, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio, differingPixels } from '../helpers/images.js';
import { apiKey, bytes } from '../helpers/client.js';
import { FidelityOracle } from '../helpers/oracle.js';

/** Annotation registered for every chart, data labels for a chart that asks (as a page using them would). */
const SETUP = `Chart.register(window['chartjs-plugin-annotation']);
window.oraclePrepare = function (cfg) { if (cfg.options.plugins && cfg.options.plugins.datalabels) cfg.plugins.push(window.ChartDataLabels); };`;

describe('fidelity with a plain Chart.js page', function () {
  this.timeout(120000);
  let s: TestServer;
  let key: string;
  let oracle: FidelityOracle;
  let page: Page;

  before(async () => {
    ({ s, key } = await sharedAccount());
    oracle = await FidelityOracle.launch();
    page = await oracle.page(['chart.umd.js', 'chartjs-adapter-date-fns.js', 'chartjs-plugin-annotation.js', 'chartjs-plugin-datalabels.js'], SETUP);
  });
  after(async () => {
    await oracle?.close();
  });

  // SVG is drawn by a canvas-to-SVG context, so anti-aliasing differs a little from the canvas:
  // pixelmatch threshold 0.1, at most 1% of pixels.
  for (const file of readdirSync('fixtures/golden').filter((f) => f.endsWith('.json')).sort()) {
    it(`${file.replace('.json', '')}: SVG rasterised matches the PNG`, async () => {
      const fx = JSON.parse(readFileSync(join('fixtures/golden', file), 'utf8')) as { width: number; height: number };
      const png = await bytes(post(s.url, '/v1/chart', fx, apiKey(key)));
      const svg = await (await post(s.url, '/v1/chart', { ...fx, format: 'svg' }, apiKey(key))).text();
      const ratio = diffRatio(await oracle.rasterise(svg, fx.width, fx.height), png);
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
      const ref = decodePng(await oracle.draw(page, fx.chart, { width: fx.width, height: fx.height, background: fx.backgroundColor ?? null }));
      expect([ours.width, ours.height]).to.deep.equal([ref.width, ref.height]);
      const differing = differingPixels(ours, ref);
      expect(differing, `${differing} pixels differ`).to.equal(0);
    });
  }
});
