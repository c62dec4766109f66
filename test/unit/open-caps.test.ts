// The open endpoint's cost caps (src/chart/openCaps.ts) through parseOpenQuery: each known cost
// attack is refused with 400 invalid_config naming the option and its cap; configs within
// the caps (the golden fixtures, values at each cap) pass.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { parseOpenQuery } from '../../src/chart/open.js';
import { findCapViolation, PLUGIN_OPTION_ROUTES } from '../../src/chart/openCaps.js';
import { AppError } from '../../src/errors.js';

const bar = (options: object, ds: object = {}) => ({ type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ data: [1, 5, 3], ...ds }] }, options });
const timeX = (x: object, data: unknown[]) => ({ type: 'line', data: { datasets: [{ data }] }, options: { scales: { x: { type: 'time', ...x } } } });
const ann = (a: object) => bar({ plugins: { annotation: { annotations: { a } } } });
const lines = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, { type: 'line', yMin: i, yMax: i }]));
const twentyLabels = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`l${i}`, {}]));

function refusal(config: unknown): { status: number; code: string; detail: string } {
  try {
    parseOpenQuery({ c: typeof config === 'string' ? config : JSON.stringify(config) });
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    const e = err as AppError;
    return { status: e.status, code: e.code, detail: e.detail ?? '' };
  }
  return { status: 200, code: 'admitted', detail: '' };
}

describe('open endpoint cost caps (pure)', () => {
  it("reads each plugin's options where its bundle says it does (plugin id, additionalOptionScopes)", () => {
    const bundle = (f: string) => readFileSync(`renderer-page/vendor/${f}`, 'utf8');
    // chartjs-plugin-annotation 3.x (Chart.js 4) and 1.x (Chart.js 3): id annotation, the root of options as an extra scope
    for (const f of ['chartjs-plugin-annotation.js', 'v3/chartjs-plugin-annotation.js']) {
      expect(bundle(f)).to.match(/id:"annotation"/);
      expect(bundle(f).match(/additionalOptionScopes:\[([^\]]*)\]/g)).to.deep.equal(['additionalOptionScopes:[""]']);
    }
    // Chart.js 2's annotation plugin reads options.annotation; datalabels declares no extra scope
    expect(bundle('v2/chartjs-plugin-annotation.js')).to.match(/options\.annotation/);
    for (const f of ['chartjs-plugin-datalabels.js', 'v2/chartjs-plugin-datalabels.js']) expect(bundle(f)).to.not.match(/additionalOptionScopes/);
    expect(PLUGIN_OPTION_ROUTES.annotation).to.deep.equal(['plugins.annotation', '', 'annotation']);
    expect(PLUGIN_OPTION_ROUTES.datalabels).to.deep.equal(['plugins.datalabels']);
  });

  // The gate refuses a config's own plugin objects on the open endpoint; the caps count the scopes
  // such an object declares all the same (Chart.js takes an inline plugin's scopes for its id).
  it("counts through the scopes a config's own plugin object declares for a bundled plugin's id", () => {
    const viaScales = { ...bar({ scales: { annotations: lines(120) } }), plugins: [{ id: 'annotation', additionalOptionScopes: ['scales'] }] };
    expect(findCapViolation(viaScales)).to.match(/options\.scales\.annotations has 120/);
    const viaTitle = { ...bar({ plugins: { title: { labels: twentyLabels } } }), plugins: [{ id: 'datalabels', additionalOptionScopes: ['plugins.title'] }] };
    expect(findCapViolation(viaTitle)).to.match(/options\.plugins\.title\.labels has 20 labels; at most 10/);
  });

  // datalabels merges a dataset's datalabels over the chart's options: the label sets drawn per
  // point are the union of both (6 + 6 drew 12 per point past the cap of 10)
  it("counts datalabels' label sets as drawn: the chart's with each dataset's", () => {
    const sets = (p: string, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${p}${i}`, {}]));
    expect(findCapViolation(bar({ plugins: { datalabels: { labels: sets('c', 6) } } }, { datalabels: { labels: sets('d', 6) } })))
      .to.match(/data\.datasets\[0\]\.datalabels\.labels with options\.plugins\.datalabels\.labels make 12 labels per point; at most 10/);
    expect(findCapViolation(bar({}, { datalabels: { labels: sets('d', 11) } }))).to.match(/data\.datasets\[0\]\.datalabels\.labels.* 11 labels/);
    // the same names are one label set
    expect(findCapViolation(bar({ plugins: { datalabels: { labels: sets('x', 8) } } }, { datalabels: { labels: sets('x', 8) } }))).to.equal(null);
    expect(findCapViolation(bar({ plugins: { datalabels: { labels: sets('c', 5) } } }, { datalabels: { labels: sets('d', 5) } }))).to.equal(null);
  });

  const attacks: Array<[string, unknown, RegExp]> = [
    ['ticks.count 1e8 (uncapped: 500 after 7-10 s)', bar({ scales: { y: { ticks: { count: 1e8 } } } }), /ticks\.count is 100000000; the open endpoint allows 0\.\.1000/],
    ['ticks.count as a string', bar({ scales: { y: { ticks: { count: '100000000' } } } }), /ticks\.count is 100000000/],
    ['maxTicksLimit 1e8', bar({ scales: { x: { ticks: { maxTicksLimit: 1e8 } } } }), /maxTicksLimit .*0\.\.1000/],
    ['sampleSize 1e9', bar({ scales: { x: { ticks: { sampleSize: 1e9 } } } }), /sampleSize/],
    ['stepSize 0', bar({ scales: { y: { ticks: { stepSize: 0 } } } }), /stepSize/],
    ['annotation polygon sides 1e8', ann({ type: 'polygon', xValue: 1, yValue: 3, sides: 1e8 }), /sides is 100000000; the open endpoint allows 1\.\.100/],
    ['annotation point radius 1e8', ann({ type: 'point', xValue: 1, yValue: 3, radius: 1e8 }), /annotations\.a\.radius .*0\.\.2000/],
    ['annotation shadowBlur 1e6', ann({ type: 'box', shadowBlur: 1e6 }), /shadowBlur/],
    ['pointRadius 1e8 on a dataset', bar({}, { pointRadius: 1e8 }), /data\.datasets\[0\]\.pointRadius/],
    ['hover and hit radii', bar({ elements: { point: { hitRadius: 1e9 } } }), /hitRadius/],
    ['indexable borderWidth', bar({}, { borderWidth: [1, 2, 1e9] }), /borderWidth\[2\]/],
    ['bar borderRadius object', bar({}, { borderRadius: { topLeft: 1e9 } }), /borderRadius\.topLeft/],
    ['dash pattern of tiny entries', bar({ scales: { y: { grid: { borderDash: [0.001, 0.001] } } } }), /borderDash adds up to 0\.002; at least 2/],
    ['border.dash with 1000 entries', bar({ scales: { y: { border: { dash: new Array(1000).fill(4) } } } }), /dash has 1000 entries; at most 16/],
    ['borderDashOffset 1e300', bar({}, { borderDashOffset: 1e300 }), /borderDashOffset/],
    ['font size 1e6', bar({ plugins: { title: { display: true, text: 'x', font: { size: 1e6 } } } }), /font\.size .*0\.\.500/],
    ['font size as "1e6px"', bar({ scales: { x: { ticks: { font: { size: '1000000px' } } } } }), /font\.size/],
    ['layout padding -1e8', bar({ layout: { padding: { left: -1e8 } } }), /padding\.left/],
    ['barThickness 1e8', bar({}, { barThickness: 1e8 }), /barThickness/],
    ['datalabels with 20 labels per point', bar({ plugins: { datalabels: { labels: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`l${i}`, {}])) } } }), /datalabels\.labels has 20 labels; at most 10/],
    // the annotation plugin also reads the root of options (its additionalOptionScopes ['']): 120 drew, 200
    ['120 annotations through options.annotations', bar({ annotations: lines(120) }), /options\.annotations has 120 annotations; at most 100/],
    ["Chart.js 2's options.annotation.annotations", bar({ annotation: { annotations: Object.values(lines(101)) } }), /options\.annotation\.annotations has 101/],
    ['datalabels font, padding and shadow', bar({ plugins: { datalabels: { textShadowBlur: 1e6 } } }), /textShadowBlur/],
    ['decimation samples 1e9', bar({ plugins: { decimation: { samples: 1e9 } } }), /samples/],
    ['time scale: 99,999 millisecond ticks', timeX({ time: { unit: 'millisecond' } }, [{ x: 0, y: 1 }, { x: 99_999, y: 2 }]), /spans about 99999 millisecond ticks; at most 1000/],
    ['time scale: a day of seconds from date strings', timeX({ time: { unit: 'second' }, min: '2020-01-01', max: '2020-01-02' }, []), /86400 second ticks/],
    ['time scale: labels, unit from minutes', { type: 'line', data: { labels: ['2020-01-01T00:00', '2020-03-01T00:00'], datasets: [{ data: [1, 2] }] }, options: { scales: { x: { type: 'timeseries', time: { unit: 'minute' } } } } }, /minute ticks/],
    ['time scale: no unit over 90,000 years', timeX({}, [{ x: 0, y: 1 }, { x: 2.84e15, y: 2 }]), /year ticks/],
    ['time scale: fractional stepSize never advances', timeX({ time: { unit: 'day' }, ticks: { stepSize: 0.5 } }, [{ x: 0, y: 1 }, { x: 864e6, y: 2 }]), /stepSize must be a whole number/],
    ['560 points as object-form data (uncapped: 200)', { type: 'bar', data: { datasets: [{ data: Object.fromEntries(Array.from({ length: 560 }, (_, i) => [`k${i}`, 1])) }] } }, /560 data points; at most 500/],
    ['[x,y] and {x,y} points over two datasets', { type: 'scatter', data: { datasets: [{ data: Array.from({ length: 401 }, () => [1, 1]) }, { data: Array.from({ length: 101 }, () => ({ x: 1, y: 1 })) }] } }, /502 data points/],
    ['501 labels', { type: 'bar', data: { labels: Array.from({ length: 501 }, (_, i) => i), datasets: [] } }, /data\.labels has 501 items/],
    ['501 category labels on a scale', bar({ scales: { x: { labels: Array.from({ length: 501 }, (_, i) => i) } } }), /scales\.x\.labels has 501 items/],
    ['101 datasets', { type: 'bar', data: { datasets: Array.from({ length: 101 }, () => ({})) } }, /101 datasets; at most 100/],
    ['doughnut circumference 1e8 (one fill per full turn: 500 after 15 s)', { type: 'doughnut', data: { labels: ['a'], datasets: [{ data: [1], circumference: 1e8 }] } }, /circumference is 100000000; the open endpoint allows -360\.\.360/],
    ['polarArea angle 1e8', { type: 'polarArea', data: { labels: ['a'], datasets: [{ data: [1], angle: 1e8 }] } }, /angle is 100000000/],
    ['log scale over 600 decades', bar({ scales: { y: { type: 'logarithmic' } } }, { data: [1e-300, 1e300, 1] }), /logarithmic\) spans 600 decades; at most 100/],
    ['horizontal log scale from min/max', { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { indexAxis: 'y', scales: { x: { type: 'logarithmic', min: 1e-200 } } } }, /scales\.x \(logarithmic\) spans 200 decades/],
    ['a time unit that is not one', timeX({ time: { unit: 'constructor' } }, []), /time\.unit must be one of/],
    ['code in a numeric field (the gate)', bar({}, { borderWidth: '() => 1' }), /looks like code \(arrow function\) at config\.data\.datasets\[0\]\.borderWidth/],
    ['any other text in a numeric field (the caps)', bar({}, { borderWidth: 'v + 1' }), /borderWidth must be a number/],
  ];
  for (const [name, config, detail] of attacks) {
    it(`refuses ${name}`, () => {
      const r = refusal(config);
      expect(r.status, r.detail).to.equal(400);
      expect(r.code).to.equal('invalid_config');
      expect(r.detail).to.match(detail);
    });
  }

  it('refuses a deeply nested c (JSON text) with 400 invalid_config before parsing it', () => {
    const deep = `{"type":"bar","data":{"labels":${'['.repeat(3000)}${']'.repeat(3000)}}}`;
    expect(refusal(deep)).to.deep.include({ status: 400, code: 'invalid_config' });
    expect(refusal(deep).detail).to.match(/nests deeper than 32/);
    // brackets inside strings do not count
    expect(refusal(JSON.stringify(bar({ plugins: { title: { text: '[[[['.repeat(50) } } }))).code).to.equal('admitted');
  });

  const admitted: Array<[string, unknown]> = [
    ['values at every cap', bar({ scales: { y: { ticks: { count: 1000, maxTicksLimit: 1000, stepSize: 0.001, font: { size: 500 } }, grid: { borderDash: [1, 1] } } }, plugins: { datalabels: { labels: { a: {}, b: {} } } } }, { borderWidth: 2000, pointRadius: [1, 2000], borderRadius: { topLeft: 5 } })],
    ['percentages and CSS lengths', { type: 'doughnut', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { cutout: '60%', radius: '90%', plugins: { title: { font: { size: '14px' } } }, scales: { y: { grace: '5%' } } } }],
    ['keyword values of number-or-other keys', bar({ scales: { x: { offset: true, grid: { offset: false } } }, layout: { padding: 'auto' } })],
    ['a time scale over a year of days', timeX({ time: { unit: 'day' } }, [{ x: '2024-01-01', y: 1 }, { x: '2024-12-31', y: 2 }])],
    ['a time scale with source data', timeX({ time: { unit: 'millisecond' }, ticks: { source: 'data' } }, [{ x: 0, y: 1 }, { x: 1e9, y: 2 }])],
    ['500 object-form points', { type: 'bar', data: { datasets: [{ data: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 1])) }] } }],
    ['a log scale over 12 decades', bar({ scales: { y: { type: 'logarithmic' } } }, { data: [1e-6, 1e6, 1] })],
    ['log scale on y with numeric labels on x', { type: 'bar', data: { labels: [1e-300, 1e300], datasets: [{ data: [1, 10] }] }, options: { scales: { y: { type: 'logarithmic' } } } }],
    ['polygon with 100 sides', ann({ type: 'polygon', xValue: 1, yValue: 3, sides: 100, radius: 40 })],
  ];
  for (const [name, config] of admitted) {
    it(`admits ${name}`, () => expect(refusal(config)).to.deep.include({ status: 200 }));
  }

  it('admits every golden fixture', () => {
    const dir = new URL('../../fixtures/golden/', import.meta.url);
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      const x = JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { chart: unknown };
      expect(refusal(x.chart), f).to.deep.include({ status: 200 });
    }
  });
});

describe('cost caps on Chart.js 2 configs and annotations (keyless /chart)', () => {
  const v2line = (yAxis: object, data: unknown[] = [0, 1000000]) => ({ type: 'line', data: { labels: ['a', 'b'], datasets: [{ data }] }, options: { scales: { yAxes: [yAxis] } } });
  const bombs: Array<[string, Record<string, unknown>, RegExp]> = [
    ['v2 yAxes stepSize 0.0001 over 0..1e6 (uncapped: a crashed page after 8.5 s)', v2line({ ticks: { stepSize: 0.0001 } }), /options\.scales\.yAxes\[0\] would make about \d+ ticks/],
    ['v2 stepSize over ticks.min/max', v2line({ ticks: { min: 0, max: 1e9, stepSize: 1 } }, [1, 2]), /yAxes\[0\] would make/],
    ['v2 fixedStepSize', v2line({ ticks: { fixedStepSize: 0.001 } }), /would make/],
    [
      'v2 time scale by milliseconds over years (xAxes, time.min/max)',
      { type: 'line', data: { datasets: [{ data: [] }] }, options: { scales: { xAxes: [{ type: 'time', time: { unit: 'millisecond', min: '2000-01-01', max: '2020-01-01' } }] } } },
      /xAxes\[0\] spans about \d+ millisecond ticks/,
    ],
    [
      'v2 time.stepSize fractional',
      { type: 'line', data: { datasets: [{ data: [] }] }, options: { scales: { xAxes: [{ type: 'time', time: { unit: 'day', stepSize: 0.5 } }] } } },
      /stepSize must be a whole number/,
    ],
    ['v2 logarithmic yAxes over 600 decades', v2line({ type: 'logarithmic', ticks: { min: 1e-300, max: 1e300 } }, [1, 2]), /yAxes\[0\] \(logarithmic\) spans 600 decades/],
    ['v2 annotations: 101', { type: 'bar', data: { datasets: [] }, options: { annotation: { annotations: Array.from({ length: 101 }, () => ({ type: 'line' })) } } }, /options\.annotation\.annotations has 101 annotations; at most 100/],
    ['v4 annotations: 101 by name', { type: 'bar', data: { datasets: [] }, options: { plugins: { annotation: { annotations: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`a${i}`, { type: 'line' }])) } } } }, /plugins\.annotation\.annotations has 101/],
  ];
  for (const [name, config, reason] of bombs) {
    it(`refuses ${name}`, () => {
      expect(findCapViolation(config)).to.match(reason);
    });
  }

  it('admits the same configs within the caps', () => {
    expect(findCapViolation(v2line({ ticks: { stepSize: 10000 } }))).to.equal(null);
    // Chart.js 3 and 4 stop at 1000 ticks themselves
    expect(findCapViolation(bar({ scales: { y: { ticks: { stepSize: 0.00001 } } } }, { data: [0, 1e6] }))).to.equal(null);
    expect(findCapViolation(v2line({ type: 'logarithmic' }, [1, 1e6]))).to.equal(null);
    expect(findCapViolation({ type: 'bar', data: { datasets: [] }, options: { annotation: { annotations: Array.from({ length: 100 }, () => ({ type: 'line' })) } } })).to.equal(null);
    expect(findCapViolation({ type: 'line', data: { datasets: [{ data: [] }] }, options: { scales: { xAxes: [{ type: 'time', time: { unit: 'month', min: '2000-01-01', max: '2020-01-01' } }] } } })).to.equal(null);
  });
});

describe('time-scale caps read times as the page\'s adapter does (moment formats, formats date-fns refuses)', () => {
  const timeChart = (parser: string, from: string, to: string, unit: string) => ({
    type: 'line',
    data: { datasets: [{ data: [{ x: from, y: 1 }, { x: to, y: 2 }] }] },
    options: { scales: { x: { type: 'time', time: { parser, unit } } } },
  });

  it('a moment format (the page draws it with moment): its span is measured with moment, so a wide one is capped', () => {
    expect(findCapViolation(timeChart('YYYY', '1000', '9000', 'day'))).to.match(/spans about \d+ day ticks/);
    expect(findCapViolation(timeChart('YYYY', '2020', '2024', 'year'))).to.equal(null);
    expect(findCapViolation(timeChart('DD/MM/YYYY', '01/01/1000', '31/12/9000', 'day'))).to.match(/day ticks/);
  });

  it('a format date-fns refuses is no exception in Node (it was a 500): the page answers for it', () => {
    for (const parser of ['jj', 'yyyy-MM-dd Q', 'e'.repeat(300)]) {
      expect(() => findCapViolation(timeChart(parser, '2020', '2021', 'day'))).to.not.throw();
    }
  });
});
