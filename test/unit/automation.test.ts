// Pure mapping of automation-style inputs to Chart.js configs (chart/automation.ts).
import { expect } from 'chai';
import {
  barChart, lineChart, multiSeriesChart, parseSeries, parseValues, pieChart, splitList, translucent, PALETTE, MAX_POINTS,
} from '../../src/chart/automation.js';
import { AppError } from '../../src/errors.js';

const common = { width: 800, height: 400, format: 'png' as const, backgroundColor: 'white' };
const bar = { ...common, title: 'Sales', labels: 'Q1, Q2,Q3', values: '1,2.5,-3', color: '#3B82F6', showLegend: true, showGrid: false };

function invalid(fn: () => unknown, detail: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    expect((err as AppError).code).to.equal('invalid_input');
    expect((err as AppError).detail).to.match(detail);
    return;
  }
  expect.fail('expected invalid_input');
}

describe('automation inputs -> Chart.js configs', () => {
  it('splitList keeps commas inside parentheses', () => {
    expect(splitList('#fff, rgb(1, 2, 3),hsl(1 2% 3%) ,red')).to.deep.equal(['#fff', 'rgb(1, 2, 3)', 'hsl(1 2% 3%)', 'red']);
  });

  it('parseValues takes decimals, signs and exponents; refuses the rest naming the entry', () => {
    expect(parseValues(' 1, -2.5,+3,.5,1e3 ')).to.deep.equal([1, -2.5, 3, 0.5, 1000]);
    invalid(() => parseValues('1,,2'), /values: entry 2 \(""\) is not a number/);
    invalid(() => parseValues('1,0x10'), /entry 2/);
    invalid(() => parseValues('Infinity'), /entry 1/);
    invalid(() => parseValues(Array(MAX_POINTS + 1).fill('1').join(',')), /at most 1000/);
  });

  it('bar: one dataset labelled with the title, colour, legend, grid, white background', () => {
    const out = barChart(bar);
    expect(out).to.include({ width: 800, height: 400, format: 'png', backgroundColor: 'white' });
    const c = out.chart as any;
    expect(c.type).to.equal('bar');
    expect(c.data.labels).to.deep.equal(['Q1', 'Q2', 'Q3']);
    expect(c.data.datasets).to.have.length(1);
    expect(c.data.datasets[0]).to.include({ label: 'Sales', backgroundColor: '#3B82F6' });
    expect(c.data.datasets[0].data).to.deep.equal([1, 2.5, -3]);
    expect(c.options.plugins.title).to.include({ display: true, text: 'Sales' });
    expect(c.options.plugins.legend.display).to.equal(true);
    expect(c.options.scales.x.grid.display).to.equal(false);
    expect(c.options.scales.y.grid.display).to.equal(false);
  });

  it('bar: labels and values must pair up', () => {
    invalid(() => barChart({ ...bar, values: '1,2' }), /values has 2 entries but labels has 3/);
  });

  it('line: fill uses a translucent colour, points and tension follow the input', () => {
    const c = lineChart({ ...bar, color: '#10B981', fillArea: true, showPoints: false, tension: 0 }).chart as any;
    expect(c.type).to.equal('line');
    expect(c.data.datasets[0]).to.include({ fill: true, tension: 0, pointRadius: 0, borderColor: '#10B981', backgroundColor: 'rgba(16, 185, 129, 0.2)' });
    const d = lineChart({ ...bar, fillArea: false, showPoints: true, tension: 0.4 }).chart as any;
    expect(d.data.datasets[0]).to.include({ fill: false, pointRadius: 3, tension: 0.4 });
    invalid(() => lineChart({ ...bar, fillArea: false, showPoints: true, tension: 1.01 }), /tension must be between 0 and 1/);
  });

  it('translucent handles #rgb and leaves other notations alone', () => {
    expect(translucent('#f00', 0.5)).to.equal('rgba(255, 0, 0, 0.5)');
    expect(translucent('red')).to.equal('red');
  });

  it('pie: palette by default, given colours cycled, legend position', () => {
    const base = { ...common, title: 'P', labels: 'a,b,c', values: '1,2,3', showLegend: true, legendPosition: 'bottom' as const };
    const c = pieChart(base).chart as any;
    expect(c.data.datasets[0].backgroundColor).to.deep.equal(PALETTE.slice(0, 3));
    expect(c.options.plugins.legend).to.deep.equal({ display: true, position: 'bottom' });
    const d = pieChart({ ...base, colors: 'red, rgb(0, 0, 255)', legendPosition: 'left' }).chart as any;
    expect(d.data.datasets[0].backgroundColor).to.deep.equal(['red', 'rgb(0, 0, 255)', 'red']);
    expect(d.options.plugins.legend.position).to.equal('left');
    invalid(() => pieChart({ ...base, colors: 'red,javascript:alert(1)' }), /colors \(entry 2\)/);
    invalid(() => pieChart({ ...base, colors: 'red,nope' }), /colors \(entry 2\)/);
  });

  it('a colour that is no CSS colour is refused on every chart kind (found by an outside probe: "zzz" drew black)', () => {
    invalid(() => barChart({ ...bar, color: 'zzz' }), /color must be a CSS colour/);
    invalid(() => lineChart({ ...bar, color: 'bogus', fillArea: false, showPoints: true, tension: 0.4 }), /color must be a CSS colour/);
    invalid(() => multiSeriesChart({ ...common, title: 'M', labels: 'a,b', series: [{ name: 'x', values: '1,2', color: 'bogus' }] } as never), /series\[0\]\.color/);
  });

  it('multi-series: one dataset per series, palette colours unless given, type bar or line', () => {
    const base = { ...common, title: 'M', labels: 'a,b', showLegend: false, showGrid: true, type: 'bar' as const };
    const c = multiSeriesChart({ ...base, series: [{ name: 'x', values: '1,2' }, { name: 'y', values: '3,4', color: '#000' }] }).chart as any;
    expect(c.type).to.equal('bar');
    expect(c.data.datasets.map((d: any) => [d.label, d.backgroundColor, d.data])).to.deep.equal([
      ['x', PALETTE[0], [1, 2]],
      ['y', '#000', [3, 4]],
    ]);
    expect(c.options.plugins.legend.display).to.equal(false);
    const l = multiSeriesChart({ ...base, type: 'line', series: '[{"name":"x","values":"1,2"}]' }).chart as any;
    expect(l.type).to.equal('line');
    invalid(() => multiSeriesChart({ ...base, series: [{ name: 'x', values: '1' }] }), /series\[0\]\.values has 1 entries but labels has 2/);
  });

  it('parseSeries: array or JSON string, 1 to 3 entries, each {name, values, color?}', () => {
    expect(parseSeries('[{"name":"a","values":[1,2]}]')).to.deep.equal([{ name: 'a', values: '1,2' }]);
    invalid(() => parseSeries('[]'), /at least 1/);
    invalid(() => parseSeries(JSON.stringify([1, 2, 3, 4].map((i) => ({ name: `${i}`, values: '1' })))), /series has 4 entries; at most 3/);
    invalid(() => parseSeries('{"name":"a"}'), /must be an array/);
    invalid(() => parseSeries('[{"values":"1"}]'), /series\[0\]\.name/);
    invalid(() => parseSeries('[{"name":"a","values":{}}]'), /series\[0\]\.values/);
  });
});
