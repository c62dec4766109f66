// Each Chart.js 4 chart-type plugin example drawn as SVG, rasterised by Chromium, against its PNG:
// the share of pixels that differ (pixelmatch threshold 0.1). node --import tsx bench/plugins-svg.ts
import { Renderer } from '../src/render/renderer.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { launchBrowser } from '../src/render/browser.js';
import { diffRatio } from '../test/helpers/images.js';
import { PLUGIN_EXAMPLES } from '../test/helpers/pluginExamples.js';
const c = loadConfig({ LOG_LEVEL: 'silent' });
const pool = new Renderer({ chromiumPath: c.chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 20000, maxQueue: 10, pageMaxRenders: 1000 }, createLogger('silent'));
await pool.start();
const lb = await launchBrowser({ chromiumPath: c.chromiumPath }, createLogger('silent'));
const page = await lb.browser.newPage();
await page.setContent('<!doctype html><body></body>');
for (const ex of PLUGIN_EXAMPLES) {
  const base = { config: structuredClone(ex.config), width: 500, height: 300, backgroundColor: '#ffffff', allowFunctions: false, watermark: null };
  const png = Buffer.from((await pool.render({ ...base, format: 'png' })).data, 'base64');
  const svg = (await pool.render({ ...base, config: structuredClone(ex.config), format: 'svg' })).data;
  const b64 = await page.evaluate(`(async function(){ var img = new Image(); img.src = 'data:image/svg+xml;base64,' + btoa(unescape(encodeURIComponent(${JSON.stringify(svg)}))); await img.decode(); var c = document.createElement('canvas'); c.width = 500; c.height = 300; c.getContext('2d').drawImage(img, 0, 0); var u = c.toDataURL('image/png'); return u.slice(u.indexOf(',') + 1); })()`) as string;
  console.log(ex.type.padEnd(20), (diffRatio(Buffer.from(b64, 'base64'), png) * 100).toFixed(2) + '%');
}
await lb.close();
await pool.close();
