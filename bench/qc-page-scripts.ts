// Load cost of the QuickChart hosted-feature scripts on the v2 and v3 pages (decision 0024): a
// plain page with the version's Chart.js alone, then with the scripts added, interleaved, median
// of `n` loads each: wall time of page.setContent (HTML parse plus script run, until load) and
// Chromium's own ScriptDuration for the load (CPU spent running script, less sensitive to load).
// Run alone: node --import tsx bench/qc-page-scripts.ts [n]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from '../src/render/browser.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';

const n = Number(process.argv[2] ?? 9);
const vendor = (f: string) => `<script>${readFileSync(join('renderer-page/vendor', f), 'utf8').replace(/<\/script/gi, '<\\/script')}</script>`;
const cases = {
  v2: { base: ['v2/chart.js'], added: (process.env.ADDED ?? 'v2/chartjs-gauge.js,v2/chartjs-plugin-error-bars.js,v2/chartjs-plugin-colorschemes.js').split(',') },
  v3: { base: ['v3/chart.js', 'chartjs-adapter-date-fns.js'], added: ['chartjs-chart-sankey.js', 'chartjs-chart-funnel.js', 'v3/chartjs-chart-financial.js'] },
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const lb = await launchBrowser({ chromiumPath: loadConfig({}).chromiumPath }, createLogger('silent'));
const page = await lb.browser.newPage();
for (const [name, c] of Object.entries(cases)) {
  const html = (files: string[]) => `<!doctype html><html><body>${files.map(vendor).join('')}</body></html>`;
  const without = html(c.base);
  const withAdded = html([...c.base, ...c.added]);
  const t: Record<'without' | 'with', number[]> = { without: [], with: [] };
  const script: Record<'without' | 'with', number[]> = { without: [], with: [] };
  for (let i = 0; i < n; i++) {
    for (const [k, text] of [['without', without], ['with', withAdded]] as const) {
      const m0 = (await page.metrics()).ScriptDuration ?? 0;
      const t0 = performance.now();
      await page.setContent(text);
      t[k].push(performance.now() - t0);
      script[k].push(((await page.metrics()).ScriptDuration ?? 0) * 1000 - m0 * 1000);
    }
  }
  console.log(`${name} +${c.added.join(' ')}: load ${median(t.without).toFixed(1)} -> ${median(t.with).toFixed(1)} ms, script ${median(script.without).toFixed(1)} -> ${median(script.with).toFixed(1)} ms (medians of ${n})`);
}
await lb.close();
