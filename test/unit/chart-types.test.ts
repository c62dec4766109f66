// What list_chart_types tells callers must be what the pages load: each Chart.js build and plugin
// version against the package installed under the name scripts/vendor.mjs copies it from.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CHARTJS_PAGES } from '../../src/chart/chartjsPages.js';
import { BUILT_IN_TYPES } from '../../src/chart/chartTypes.js';

const installed = (pkg: string) => (JSON.parse(readFileSync(`node_modules/${pkg}/package.json`, 'utf8')) as { version: string }).version;
// the page of each major loads these packages (aliases beside Chart.js 4's own: package.json)
const CHARTJS: Record<number, string> = { 4: 'chart.js', 3: 'chartjs3', 2: 'chartjs2' };
const ALIAS: Record<string, string> = {
  '3 chartjs-plugin-annotation': 'chartjs-plugin-annotation-v3',
  '2 chartjs-plugin-annotation': 'chartjs-plugin-annotation-v2',
  '2 chartjs-plugin-datalabels': 'chartjs-plugin-datalabels-v2',
  '3 chartjs-chart-financial': 'chartjs-chart-financial-v3',
};

describe('chart types per Chart.js version (list_chart_types)', () => {
  it('names the installed Chart.js and plugin versions of each page; Chart.js 4 lists every chart-type plugin', () => {
    for (const page of CHARTJS_PAGES) {
      expect(page.chartjs, `Chart.js ${page.major}`).to.equal(installed(CHARTJS[page.major]!));
      for (const p of page.plugins) {
        if (p.version !== undefined) expect(p.version, `${p.package} on the Chart.js ${page.major} page`).to.equal(installed(ALIAS[`${page.major} ${p.package}`] ?? p.package));
        else expect(installed(p.package), p.package).to.be.a('string');
      }
    }
  });

  it("every page draws Chart.js's built-in types; Chart.js 2 adds QuickChart's", () => {
    for (const page of CHARTJS_PAGES) expect(page.types).to.include.members([...BUILT_IN_TYPES]);
    expect(CHARTJS_PAGES.find((p) => p.major === 4)!.types).to.include.members(['matrix', 'sankey', 'choropleth']);
    expect(CHARTJS_PAGES.find((p) => p.major === 2)!.types).to.include.members(['horizontalBar', 'radialGauge', 'gauge', 'boxplot', 'violin']);
    // the types QuickChart's docs draw with Chart.js 3
    expect(CHARTJS_PAGES.find((p) => p.major === 3)!.types).to.include.members(['sankey', 'funnel', 'candlestick', 'ohlc']);
  });
});
