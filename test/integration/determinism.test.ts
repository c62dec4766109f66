// The same request gives the same bytes: on every page of a pool, after pages recycle, after a
// restart, and on two instances sharing PostgreSQL; PNG, SVG and PDF alike.
import { expect } from 'chai';
import { createLogger } from '../../src/log.js';
import { startPool } from '../../src/render/renderer.js';
import type { Renderer, PageRequest } from '../../src/render/renderer.js';
import { RenderService } from '../../src/services/render.js';
import { testConfig, startTestServer, BAR, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, post } from '../helpers/client.js';
import { testDatabase, type TestDatabase } from '../helpers/services.js';

const CHART = {
  ...BAR,
  data: { ...BAR.data, datasets: [...BAR.data.datasets, { label: 'Costs', data: [7, 11, 5, 8], type: 'line' }] },
  options: { plugins: { title: { display: true, text: 'Revenue and costs' } } },
};
const request = (format: 'png' | 'svg'): PageRequest => ({ config: CHART, width: 640, height: 320, format, backgroundColor: 'white', allowFunctions: true, watermark: null });
const log = createLogger('silent');

describe('deterministic output', function () {
  this.timeout(180_000);
  const first: Record<'png' | 'svg', string> = { png: '', svg: '' };
  let pool: Renderer | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('every page of the pool draws the same PNG and SVG bytes', async () => {
    pool = await startPool(testConfig({ poolSize: 3 }), log);
    for (const format of ['png', 'svg'] as const) {
      const outs: string[] = [];
      for (let round = 0; round < 3; round++) {
        // three at once: one slot per page, so each holds a page of its own
        const before = pool.stats().available;
        expect(before).to.equal(3);
        outs.push(...(await Promise.all([1, 2, 3].map(() => pool!.render(request(format))))).map((r) => r.data));
      }
      expect(new Set(outs).size, format).to.equal(1);
      first[format] = outs[0]!;
    }
    expect(first.svg).to.match(/^<svg /);
  });

  it('pages recycled after a few renders draw the same bytes', async () => {
    pool = await startPool(testConfig({ poolSize: 1, pageMaxRenders: 2 }), log);
    for (const format of ['png', 'svg'] as const) {
      for (let i = 0; i < 4; i++) expect((await pool.render(request(format))).data === first[format], `${format} #${i}`).to.equal(true);
    }
    // the staggered limit of a one-page pool is 2 renders (plus its own two warm-up renders)
    expect(pool.stats().pagesDestroyed).to.be.at.least(2);
  });

  it('a restarted pool (a new browser) draws the same bytes; PDF pages too', async () => {
    pool = await startPool(testConfig({ poolSize: 1 }), log);
    expect((await pool.render(request('png'))).data).to.equal(first.png);
    expect((await pool.render(request('svg'))).data).to.equal(first.svg);
    const service = new RenderService(pool);
    const pdf = (bg: string) => service.render({ config: CHART, width: 320, height: 200, format: 'pdf', backgroundColor: bg, allowFunctions: true, watermark: null });
    const a = await pdf('white');
    // another request in between, so the second is not the first one's coalesced result
    await pdf('#eee');
    const b = await pdf('white');
    expect(b.coalesced).to.equal(false);
    expect(a.body.equals(b.body)).to.equal(true);
  });

  describe('two instances on one PostgreSQL database', () => {
    let db: TestDatabase;
    const servers: TestServer[] = [];
    before(async () => {
      db = await testDatabase();
      const shared = { databaseUrl: db.url, masterKey: Buffer.alloc(32, 7) };
      for (let i = 0; i < 2; i++) servers.push(await startTestServer(shared));
    });
    after(async () => {
      for (const s of servers) await s.stop();
      await db.drop();
    });

    it('render the same bytes and name the same renderer', async () => {
      const { api_key } = await servers[0]!.account('starter');
      for (const format of ['png', 'svg'] as const) {
        const answers = await Promise.all(servers.map((s) => post(s.url, '/v1/chart', { chart: CHART, width: 640, height: 320, format, backgroundColor: 'white' }, apiKey(api_key))));
        for (const a of answers) expect(a.status).to.equal(200);
        const [x, y] = await Promise.all(answers.map((a) => bytes(a)));
        expect(x!.equals(y!), format).to.equal(true);
        // and the pool's bytes above: the server adds nothing to the image
        expect(format === 'svg' ? x!.toString('utf8') : x!.toString('base64')).to.equal(first[format]);
        expect(answers[0]!.headers.get('x-chartshot-renderer')).to.equal(answers[1]!.headers.get('x-chartshot-renderer')).and.match(/^chartjs=4\.6\.1; /);
      }
    });
  });
});
