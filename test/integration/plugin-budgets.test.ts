// Per-unit budgets of the Chart.js 4 chart-type plugins (renderer-page/plugin-budgets4.js): one
// small config each that would make a plugin's own layout spend seconds or gigabytes, refused by
// the page with the SPEC's 400 naming the budget, and the page still draws the next chart.
// Outcomes and messages only, never times. Keyed (paid) callers unless said otherwise.
import { expect } from 'chai';
import { sharedAccount, type TestServer } from '../helpers/server.js';
import type { Client } from '../helpers/client.js';
import { PAGE_BUDGETS } from '../../src/render/budgets.js';

type Cfg = Record<string, unknown>;
const U = PAGE_BUDGETS.paid.units;

describe('in-page budgets of the chart-type plugins', function () {
  this.timeout(120_000);
  let s: TestServer;
  let paid: Client;
  let trial: Client;

  before(async () => {
    let api: Client;
    ({ s, api } = await sharedAccount('starter'));
    paid = api;
    trial = (await s.client('trial')).api;
  });

  const body = (chart: Cfg) => ({ chart, width: 300, height: 200 });

  async function refused(client: Client, chart: Cfg, detail: RegExp): Promise<void> {
    const e = await client.error('/v1/chart', body(chart));
    expect(e).to.deep.include({ status: 400, error: 'invalid_input' });
    expect(e.detail).to.match(detail);
    // the page that refused it draws the next chart
    await client.png(body({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } }));
  }

  const nodes = [{}, {}, {}];
  const edges = [{ source: 0, target: 1 }, { source: 1, target: 2 }];

  it('a force-directed layout of a billion ticks (three nodes)', async () => {
    await refused(paid, { type: 'forceDirectedGraph', data: { labels: ['a', 'b', 'c'], datasets: [{ data: nodes, edges, simulation: { initialIterations: 1e9 } }] } },
      new RegExp(`budget: a force-directed layout may run ${U.layoutTicks} ticks at most`));
  });

  it('the same ticks set for every graph in options.datasets', async () => {
    await refused(paid, { type: 'forceDirectedGraph', data: { labels: ['a', 'b', 'c'], datasets: [{ data: nodes, edges }] }, options: { datasets: { forceDirectedGraph: { simulation: { initialIterations: 1e9 } } } } },
      /force-directed layout may run/);
  });

  it('a violin estimated at a hundred million points', async () => {
    await refused(paid, { type: 'violin', data: { labels: ['a'], datasets: [{ data: [[1, 2, 3, 4]], points: 1e8 }] } },
      new RegExp(`budget: a violin may estimate its density at ${U.densityPoints} points at most`));
  });

  it('an euler diagram of seven sets (127 areas)', async () => {
    const names = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
    const data: Cfg[] = [];
    for (let m = 1; m < 1 << names.length; m++) data.push({ sets: names.filter((_, i) => m & (1 << i)), value: 1 });
    await refused(paid, { type: 'euler', data: { labels: data.map((d) => (d.sets as string[]).join('&')), datasets: [{ data }] } },
      new RegExp(`budget: a euler diagram may have ${U.vennAreas} areas at most`));
  });

  it('a word cloud with a word of 5000 px', async () => {
    await refused(paid, { type: 'wordCloud', data: { labels: ['huge', 'small'], datasets: [{ data: [5000, 10] }] } },
      new RegExp(`budget: a word cloud's words may be ${U.wordSizePx} px at most`));
  });

  it('a map with a graticule line every 0.001 degree', async () => {
    await refused(paid, { type: 'choropleth', data: { labels: ['Germany'], datasets: [{ topology: 'world-atlas/countries-110m', data: [{ feature: 'Germany', value: 1 }] }] }, options: { showGraticule: { stepMinor: [0.001, 0.001] } } },
      new RegExp(`budget: a map's graticule may have ${U.graticuleLines} lines at most`));
  });

  it('a moment-format time axis stepping by the second over a day (trial: the date adapter is counted)', async () => {
    await refused(trial, { type: 'line', data: { labels: ['2020-01-01', '2020-01-02'], datasets: [{ data: [1, 2] }] }, options: { scales: { x: { type: 'time', time: { parser: 'YYYY-MM-DD', unit: 'second' } } } } },
      new RegExp(`budget: scale "x" would build more than ${PAGE_BUDGETS.trial.ticks} ticks`));
  });

  it('the same moment-format axis by the day is drawn', async () => {
    await paid.png(body({ type: 'line', data: { labels: ['2020-01-01', '2020-01-09'], datasets: [{ data: [1, 2] }] }, options: { scales: { x: { type: 'time', time: { parser: 'YYYY-MM-DD', unit: 'day', displayFormats: { day: 'MMM D' } } } } } }));
  });
});
