// Configs chartshot used to refuse and Chart.js draws: Chart.js's own image-test fixtures with
// no top-level type (each dataset names its own), no datasets, datasets without data, or time
// formats written for the moment adapter (fixtures/chartjs/, converted by
// scripts/chartjs-fixtures.mjs). Each must come out pixel-identical to Chart.js 4 on a plain
// <canvas> in the same Chromium, with the date-fns adapter, or for moment/ with moment and the
// unmodified chartjs-adapter-moment. The suite runs every type-less fixture and every third of
// the others (sorted by name; 35 of 97, about 20-45 s on a loaded machine: the CI is near its
// budget); DRAWALL_ALL=1 runs all 97. Set DRAWALL_PNG_DIR to keep the images.
import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, sharedAccount, type TestServer } from '../helpers/server.js';
import { decodePng, differingPixels } from '../helpers/images.js';
import { apiKey, bytes } from '../helpers/client.js';
import { FidelityOracle, type OracleScript } from '../helpers/oracle.js';

/** The oracle's pages: Chart.js 4 with the date-fns adapter, or with moment and the unmodified chartjs-adapter-moment. */
const ADAPTERS: Record<'dateFns' | 'moment', OracleScript[]> = {
  dateFns: ['chart.umd.js', 'chartjs-adapter-date-fns.js'],
  moment: ['chart.umd.js', 'moment.js', { file: 'node_modules/chartjs-adapter-moment/dist/chartjs-adapter-moment.js' }],
};
const DIR = 'fixtures/chartjs';

interface Fixture { source: string; chart: Record<string, unknown>; width: number; height: number }

describe('fidelity of configs Chart.js draws without a type or without data', function () {
  this.timeout(180000);
  let s: TestServer;
  let key: string;
  let oracle: FidelityOracle;
  const dumpDir = process.env.DRAWALL_PNG_DIR;

  before(async () => {
    ({ s, key } = await sharedAccount());
    oracle = await FidelityOracle.launch();
    if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  });
  after(async () => {
    await oracle?.close();
  });

  async function reference(fx: Fixture, adapter: keyof typeof ADAPTERS): Promise<Buffer> {
    return oracle.draw(await oracle.page(ADAPTERS[adapter]), fx.chart, { width: fx.width, height: fx.height });
  }

  it('the open endpoint draws a type-less mixed chart too (its gate checks each dataset\'s type)', async () => {
    const c = { data: { labels: ['a', 'b'], datasets: [{ type: 'bar', data: [1, 2] }, { type: 'line', data: [2, 1] }] } };
    const res = await fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(c), w: '200', h: '100' })}`);
    expect(res.status).to.equal(200);
    expect(decodePng(await bytes(res)).width).to.equal(200);
    const bad = { data: { datasets: [{ type: 'bar', data: [1] }, { data: [2] }] } };
    expect((await fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(bad) })}`)).status).to.equal(400);
  });

  for (const why of readdirSync(DIR).sort()) {
    const files = readdirSync(join(DIR, why)).sort();
    const sampled = process.env.DRAWALL_ALL || why === 'no-type' ? files : files.filter((_, i) => i % 3 === 0);
    for (const file of sampled) {
      it(`${why}: ${file.replace('.json', '')}`, async () => {
        const fx = JSON.parse(readFileSync(join(DIR, why, file), 'utf8')) as Fixture;
        const res = await post(s.url, '/v1/chart', { chart: fx.chart, width: fx.width, height: fx.height }, apiKey(key));
        const body = await bytes(res);
        expect(res.status, body.toString('utf8', 0, 300)).to.equal(200);
        const refBytes = await reference(fx, why === 'moment' ? 'moment' : 'dateFns');
        if (dumpDir) {
          writeFileSync(join(dumpDir, `${why}--${file}.png`), body);
          writeFileSync(join(dumpDir, `${why}--${file}.ref.png`), refBytes);
        }
        const ours = decodePng(body);
        const ref = decodePng(refBytes);
        expect([ours.width, ours.height]).to.deep.equal([ref.width, ref.height]);
        const differing = differingPixels(ours, ref);
        expect(differing, `${differing} pixels differ`).to.equal(0);
      });
    }
  }
});
