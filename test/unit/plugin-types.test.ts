// The Chart.js 4 chart-type plugins on the Node side (pure): every type they register is accepted
// by /v1/chart's parser and the open endpoint, and on the open endpoint their per-unit options and
// data are within caps (src/chart/openCaps.ts).
import { expect } from 'chai';
import { parseChartConfig } from '../../src/chart/request.js';
import { parseOpenQuery } from '../../src/chart/open.js';
import { PLUGIN_TYPES } from '../../src/chart/chartTypes.js';
import { AppError } from '../../src/errors.js';
import { PLUGIN_EXAMPLES } from '../helpers/pluginExamples.js';

function refusal(config: unknown): string {
  try {
    parseOpenQuery({ c: JSON.stringify(config) });
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    expect((err as AppError).status).to.equal(400);
    return (err as AppError).detail ?? '';
  }
  return 'admitted';
}

const words = (n: number, size: number) => ({
  type: 'wordCloud',
  data: { labels: Array.from({ length: n }, (_, i) => `w${i}`), datasets: [{ data: Array.from({ length: n }, () => size) }] },
});

describe('chart-type plugins on the Node side (pure)', () => {
  it('every plugin type has an example the tests draw', () => {
    const drawn = new Set(PLUGIN_EXAMPLES.map((e) => e.type));
    // the two kept apart: graph (positions given) and the rarer error-bar variants share their bundle's test
    const missing = PLUGIN_TYPES.filter((t) => !drawn.has(t) && !['graph', 'scatterWithErrorBars', 'polarAreaWithErrorBars'].includes(t));
    expect(missing).to.deep.equal([]);
  });

  for (const ex of PLUGIN_EXAMPLES) {
    it(`${ex.type}: accepted by /v1/chart${ex.type === 'wordCloud' ? '' : ' and by the open endpoint'}`, () => {
      expect(() => parseChartConfig(structuredClone(ex.config))).not.to.throw();
      if (ex.type !== 'wordCloud') expect(refusal(ex.config)).to.equal('admitted');
    });
  }

  it('a type no page draws is still refused', () => {
    expect(() => parseChartConfig({ type: 'gauge', data: { datasets: [{ data: [1] }] } })).to.throw(/type must be one of/);
    expect(refusal({ type: 'gauge', data: { datasets: [{ data: [1] }] } })).to.match(/unsupported chart type "gauge"/);
  });

  it('a dataset of a plugin type inside a bar chart is accepted', () => {
    expect(() => parseChartConfig({ type: 'bar', data: { datasets: [{ type: 'barWithErrorBars', data: [{ y: 1, yMin: 0, yMax: 2 }] }] } })).not.to.throw();
  });

  describe('open endpoint caps', () => {
    it('a treemap tree counts toward the 500 data points', () => {
      expect(refusal({ type: 'treemap', data: { datasets: [{ tree: new Array(501).fill(1) }] } })).to.match(/501 data points; at most 500/);
    });
    it('graph edges count toward the 500 data points', () => {
      const nodes = new Array(400).fill(0).map(() => ({}));
      const edges = new Array(101).fill(0).map((_, i) => ({ source: i, target: i + 1 }));
      expect(refusal({ type: 'forceDirectedGraph', data: { datasets: [{ data: nodes, edges }] } })).to.match(/501 data points/);
    });
    it('force-directed layout ticks are capped at 300', () => {
      const cfg = (n: number) => ({ type: 'forceDirectedGraph', data: { datasets: [{ data: [{}, {}], edges: [{ source: 0, target: 1 }], simulation: { initialIterations: n } }] } });
      expect(refusal(cfg(300))).to.equal('admitted');
      expect(refusal(cfg(100000))).to.match(/simulation\.initialIterations is 100000; the open endpoint allows 0\.\.300/);
    });
    it('a violin density of a million points is refused', () => {
      expect(refusal({ type: 'violin', data: { labels: ['a'], datasets: [{ data: [[1, 2, 3]], points: 1e6 }] } })).to.match(/points is 1000000/);
    });
    it('word clouds are refused, as a chart and as a dataset, saying where they are drawn', () => {
      expect(refusal(words(3, 20))).to.match(/word clouds are not drawn on the open endpoint .* on \/v1\/chart with an API key/);
      const mixed = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }, { type: 'wordCloud', data: [20] }] } };
      expect(refusal(mixed)).to.match(/data\.datasets\[1\] is a wordCloud/);
    });
    it('a venn diagram of more than five sets (31 areas) is refused', () => {
      const areas = Array.from({ length: 40 }, (_, i) => ({ sets: [`s${i}`], value: 1 }));
      expect(refusal({ type: 'euler', data: { labels: areas.map((a) => a.sets[0]), datasets: [{ data: areas }] } })).to.match(/40 euler areas; at most 31/);
    });
    it("a candlestick chart's default time axis gets the time-scale tick cap", () => {
      const ex = PLUGIN_EXAMPLES.find((e) => e.type === 'candlestick')!.config as { data: unknown };
      const cfg = { type: 'candlestick', data: ex.data, options: { scales: { x: { time: { unit: 'millisecond' } } } } };
      expect(refusal(cfg)).to.match(/options\.scales\.x spans about \d+ millisecond ticks; at most 1000/);
    });
    it('so does a candlestick dataset in a chart with no top-level type (a mixed chart), which is admitted', () => {
      const ex = PLUGIN_EXAMPLES.find((e) => e.type === 'candlestick')!.config as { data: { datasets: Array<Record<string, unknown>> } };
      const data = { datasets: ex.data.datasets.map((d) => ({ ...d, type: 'candlestick' })) };
      expect(refusal({ data })).to.equal('admitted');
      expect(refusal({ data, options: { scales: { x: { time: { unit: 'millisecond' } } } } })).to.match(/options\.scales\.x spans about \d+ millisecond ticks; at most 1000/);
      expect(refusal({ data: { datasets: [{ type: 'line', data: [1] }, { data: [2] }] } })).to.match(/config\.type must be a string/);
    });
  });
});
