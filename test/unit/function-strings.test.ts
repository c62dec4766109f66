// The scan of function strings: what it refuses cannot work in the page; what it passes includes
// every valid shape the page revives, and text that merely mentions "function" or "=>".
import { expect } from 'chai';
import { findBadFunctionString, functionProblem } from '../../src/chart/functionStrings.js';
import { chartjs2Hint, noDataHint } from '../../src/chart/configHints.js';

describe('function strings that do not parse', () => {
  const good = [
    "function(v) { return v + '%'; }",
    'function named(a, b) { if (a > b) { return a; } return b; }',
    '(v) => v.toFixed(2)',
    'v => `${v} units`',
    '(a, b) => { return a / b; }',
    "function (v) { return /^[a-z]+$/.test(v) ? v : '(' + v + ')'; }",
    'function (v) { var o = { a: [1, 2, 3], }; return o.a[0] / 2 / v; }',
    'function (v) { return v++ / 2; }',
    'function (v) { switch (v) { case 1: return "one"; default: } }',
    'function (v) { /* a } comment */ return v; // and ) another\n}',
    'Revenue => Profit',
  ];
  for (const s of good) it(`passes ${JSON.stringify(s)}`, () => expect(functionProblem(s)).to.equal(null));

  const bad: Array<[string, RegExp]> = [
    ['function(v) { return v + }', /"\+" has nothing after it before "\}"/],
    ['function (v) { return v + "%"', /nothing after its closing \}/],
    ['function (v) { return (v + 1; }', /"\}" closes "\("/],
    ['(v) => v.toFixed(2', /"\(" is not closed/],
    ["v => 'a", /a ' string is not closed/],
    ['v => `a ${v', /template string is not closed|"\$\{" is not closed/],
    ['v =>', /the arrow has no body/],
    ['(v) => v *', /it ends with "\*"/],
    ['function (v) { /* never closed }', /comment is not closed/],
  ];
  for (const [s, why] of bad) it(`refuses ${JSON.stringify(s)}`, () => expect(functionProblem(s)).to.match(why));

  it('leaves text alone: labels, data and strings that do not start like a function', () => {
    expect(functionProblem('the function of time (')).to.equal(null);
    expect(functionProblem('function(x) plotted against x (log')).to.equal(null);
    expect(functionProblem('Sales (2024) => Profit (')).to.equal(null);
    const config = {
      type: 'bar',
      data: { labels: ['x => (y'], datasets: [{ label: 'function (', data: ['v => ('] }] },
      options: { plugins: { title: { text: 'A function of time (s' } } },
    };
    expect(findBadFunctionString(config)).to.equal(null);
  });

  it('names the path of the first bad string, array indexes and odd keys included', () => {
    const config = {
      type: 'bar',
      data: { datasets: [{ data: [1] }, { data: [2], datalabels: { formatter: 'v => (v' } }] },
      options: { plugins: { 'my-plugin': { cb: 'function () {' } } },
    };
    expect(findBadFunctionString(config, 'c')).to.match(/^c\.data\.datasets\[1\]\.datalabels\.formatter is a function string/);
    delete (config.data.datasets[1] as { datalabels?: unknown }).datalabels;
    expect(findBadFunctionString(config)).to.match(/^chart\.options\.plugins\["my-plugin"\]\.cb /);
  });

  it('is linear on long unbalanced text', () => {
    const s = 'function (v) { ' + '('.repeat(200_000 - 20) + ' }';
    const t = performance.now();
    expect(functionProblem(s)).to.match(/longer than 100000/);
    expect(functionProblem('function (v) { ' + '((/'.repeat(30_000) + ' }')).to.be.a('string');
    expect(performance.now() - t).to.be.below(2000);
  });
});

describe('config hints', () => {
  it('Chart.js 2 spellings', () => {
    expect(chartjs2Hint({ type: 'horizontalBar' }, 'chart')).to.include('indexAxis');
    expect(chartjs2Hint({ type: 'bar', options: { scales: { xAxes: [{}] } } }, 'chart')).to.include('chart.options.scales.xAxes');
    // an axis that happens to be called xAxes, given as Chart.js 4 writes axes, is left alone
    expect(chartjs2Hint({ type: 'bar', options: { scales: { xAxes: { type: 'linear' } } } }, 'chart')).to.equal(null);
  });

  it('a hint for a config without data (it is drawn)', () => {
    expect(noDataHint({ type: 'bar' })).to.match(/^no datasets/);
    expect(noDataHint({ type: 'bar', data: { datasets: [{ data: [] }, {}] } })).to.match(/^no data in any dataset/);
    expect(noDataHint({ type: 'bar', data: { datasets: [{ data: [] }, { data: [0] }] } })).to.equal(null);
    expect(noDataHint({ type: 'bar', data: { datasets: [{ data: { a: 1 } }] } })).to.equal(null);
    expect(noDataHint({ type: 'treemap', data: { datasets: [{ tree: [1, 2, 3] }] } })).to.equal(null);
  });
});
