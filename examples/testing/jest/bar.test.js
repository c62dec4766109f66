// A chart's golden image checked from jest (ESM: node --experimental-vm-modules): toMatchChartGolden renders the config with
// chartshot's engine (Chromium, in this process) and compares it with charts/bar.png.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from '@jest/globals';
import { closeRenderer, toMatchChartGolden } from 'chartshot/testing';

expect.extend({ toMatchChartGolden });
afterAll(closeRenderer);

const golden = fileURLToPath(new URL('./charts/bar.png', import.meta.url));
const bar = JSON.parse(readFileSync(new URL('./charts/bar.json', import.meta.url), 'utf8'));

test('the bar chart matches its golden image', async () => {
  await expect(bar).toMatchChartGolden(golden);
}, 120_000);

test('a bar one unit taller does not', async () => {
  const taller = structuredClone(bar);
  taller.chart.data.datasets[0].data[1] += 1;
  await expect(taller).not.toMatchChartGolden(golden);
}, 120_000);

test('a renamed series passes when the legend is ignored', async () => {
  const renamed = structuredClone(bar);
  renamed.chart.data.datasets[1].label = 'Spend';
  await expect(renamed).not.toMatchChartGolden(golden);
  await expect(renamed).toMatchChartGolden(golden, { ignore: ['legend'] });
}, 120_000);
