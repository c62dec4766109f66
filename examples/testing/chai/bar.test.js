// A chart's golden image checked from mocha with chai: the plugin adds matchChartGolden, a
// promise (await it) that renders the config with chartshot's engine and compares it with
// charts/bar.png.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as chai from 'chai';
import { chartshotChai, closeRenderer } from 'chartshot/testing';

chai.use(chartshotChai);
const { expect } = chai;

const golden = fileURLToPath(new URL('./charts/bar.png', import.meta.url));
const bar = JSON.parse(readFileSync(new URL('./charts/bar.json', import.meta.url), 'utf8'));

describe('the bar chart', function () {
  after(closeRenderer);

  it('matches its golden image', async () => {
    await expect(bar).to.matchChartGolden(golden);
  });

  it('with a bar one unit taller does not', async () => {
    const taller = structuredClone(bar);
    taller.chart.data.datasets[0].data[1] += 1;
    await expect(taller).not.to.matchChartGolden(golden);
  });

  it('with a renamed series passes when the legend is ignored', async () => {
    const renamed = structuredClone(bar);
    renamed.chart.data.datasets[1].label = 'Spend';
    await expect(renamed).not.to.matchChartGolden(golden);
    await expect(renamed).to.matchChartGolden(golden, { ignore: ['legend'] });
  });
});
