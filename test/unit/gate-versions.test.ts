// The gate's chart types per Chart.js version: keyless /chart admits what the page of its version
// draws (Chart.js 2's gauge and QuickChart's own types, 3's sankey and candlestick), the open
// endpoint Chart.js 4's, and no version's list lets a hostile config through.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { findGateViolation } from '../../src/chart/gate.js';
import { CHARTJS_PAGES, typesOf } from '../../src/chart/chartjsPages.js';
import { quickChartRequest } from '../../src/chart/quickchart.js';
import { QUICKCHART_EXAMPLES } from '../../src/chart/quickchartExamples.js';
import { PLANS } from '../../src/rules/plans.js';

const keyless = { plan: PLANS.trial, keyed: false, watermark: null };
const chart = (type: string, data: unknown = [1, 2]) => ({ type, data: { labels: ['a', 'b'], datasets: [{ data }] } });
const refusal = (fields: Record<string, unknown>) => {
  try {
    quickChartRequest(fields, keyless);
    return null;
  } catch (err) {
    return (err as { detail?: string }).detail ?? String(err);
  }
};

describe('security gate: chart types per Chart.js version', () => {
  it("admits every type each page draws, and QuickChart's aliases on Chart.js 2 (top level only)", () => {
    for (const page of CHARTJS_PAGES) {
      const types = typesOf(page.major);
      for (const t of page.types) expect(findGateViolation(chart(t), types), `${t} on ${page.major}`).to.equal(null);
    }
    for (const alias of ['donut', 'sparkline', 'progressBar']) {
      expect(findGateViolation(chart(alias), typesOf(2)), alias).to.equal(null);
      expect(findGateViolation(chart(alias), typesOf(3)), alias).to.match(/unsupported chart type/);
      const inDataset = { type: 'bar', data: { datasets: [{ type: alias, data: [1] }] } };
      expect(findGateViolation(inDataset, typesOf(2)), alias).to.match(/unsupported dataset type/);
    }
  });

  it("refuses a type another version's page draws: the open endpoint stays Chart.js 4's", () => {
    expect(findGateViolation(chart('gauge'))).to.match(/unsupported chart type "gauge"/);
    expect(findGateViolation(chart('horizontalBar'))).to.match(/unsupported chart type/);
    expect(findGateViolation(chart('matrix'), typesOf(3))).to.match(/unsupported chart type "matrix"/);
    expect(findGateViolation(chart('sankey'), typesOf(2))).to.match(/unsupported chart type "sankey"/);
    expect(findGateViolation(chart('radialGauge'), typesOf(4))).to.match(/unsupported chart type/);
  });

  it('refuses every hostile fixture whatever the version', () => {
    const hostile = JSON.parse(readFileSync(new URL('../../fixtures/gate/hostile.json', import.meta.url), 'utf8')) as Array<{ name: string; config: unknown }>;
    for (const major of [2, 3] as const) {
      const admitted = hostile.filter((f) => findGateViolation(f.config, typesOf(major)) === null).map((f) => f.name);
      expect(admitted, `Chart.js ${major}`).to.deep.equal([]);
    }
  });

  it('keyless /chart picks the list by v / version (default 2, as QuickChart)', () => {
    expect(refusal({ c: JSON.stringify({ type: 'gauge', data: { datasets: [{ value: 5, data: [3, 6, 9] }] } }) })).to.equal(null);
    expect(refusal({ c: JSON.stringify({ type: 'gauge', data: { datasets: [{ value: 5, data: [3, 6, 9] }] } }), v: '4' })).to.match(/unsupported chart type "gauge"/);
    const sankey = JSON.stringify({ type: 'sankey', data: { datasets: [{ data: [{ from: 'a', to: 'b', flow: 1 }] }] } });
    expect(refusal({ c: sankey })).to.match(/unsupported chart type "sankey"/);
    expect(refusal({ c: sankey, version: '3' })).to.equal(null);
    expect(refusal({ c: sankey, version: '4' })).to.equal(null);
    expect(refusal({ c: "{type:'radialGauge',data:{datasets:[{data:[70]}]}};" })).to.equal(null);
    expect(refusal({ c: JSON.stringify(chart('candlestick', [{ x: 0, o: 1, h: 2, l: 0, c: 1 }])), v: '3.9.1' })).to.equal(null);
  });

  it("every QuickChart example of the gallery is admitted keyless on its version, as QuickChart's hosted service draws it", () => {
    for (const ex of QUICKCHART_EXAMPLES) expect(refusal({ c: JSON.stringify(ex.config), v: String(ex.chartjs) }), ex.id).to.equal(null);
  });

  it('keyless v2/v3 charts over the open caps are refused before a page is used, naming the cap', () => {
    const n = 501;
    expect(refusal({ c: JSON.stringify({ type: 'gauge', data: { datasets: [{ value: 1, data: Array.from({ length: n }, (_, i) => i) }] } }) })).to.match(/501 data points; at most 500/);
    expect(refusal({ c: JSON.stringify({ type: 'violin', data: { labels: ['a'], datasets: [{ data: [[1, 2, 3]] }] }, options: { elements: { violin: { points: 100000 } } } }) })).to.match(/points is 100000/);
    const minutes = { type: 'candlestick', data: { datasets: [{ data: [{ x: 0, o: 1, h: 2, l: 0, c: 1 }, { x: 365 * 86_400_000, o: 1, h: 2, l: 0, c: 1 }] }] }, options: { scales: { x: { time: { unit: 'minute' } } } } };
    expect(refusal({ c: JSON.stringify(minutes), v: '3' })).to.match(/minute ticks; at most 1000/);
    // the data sources QuickChart fetches: the 400 naming the feature, as a key holder gets it
    expect(refusal({ c: JSON.stringify({ type: 'bar', options: { plugins: { googleSheets: { sheetUrl: 'https://docs.google.com/x' } } } }) })).to.match(/googleSheets data is not supported/);
  });
});
