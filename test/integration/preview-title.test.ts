// The preview page of a short chart (preview_url) is titled with the chart's own title, escaped;
// a chart without one falls back to its id. Screenshot: test/output/preview-title.png.
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { BAR, sharedAccount, type TestServer } from '../helpers/server.js';
import { apiKey, post } from '../helpers/client.js';

describe('preview page title', function () {
  let s: TestServer;
  let key: string;
  before(async () => ({ s, key } = await sharedAccount()));

  const local = (u: string) => s.url + new URL(u).pathname;
  const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];

  it('is the chart title, escaped; lines are joined; no title falls back to the id', async () => {
    const hostile = 'Sales <Q1> & "growth" </title><script>alert(1)</script>';
    const zap = await post(s.url, '/v1/zapier/bar-chart', { title: hostile, labels: 'a,b', values: '1,2' }, apiKey(key));
    expect(zap.status).to.equal(201);
    const { preview_url } = (await zap.json()) as { preview_url: string };
    const html = await (await fetch(local(preview_url))).text();
    expect(titleOf(html)).to.equal('Sales &#60;Q1&#62; &#38; &#34;growth&#34; &#60;/title&#62;&#60;script&#62;alert(1)&#60;/script&#62; · chartshot');
    expect(html).not.to.contain('<script>');

    const lines = { ...BAR, options: { plugins: { title: { display: true, text: ['Revenue', 'by quarter'] } } } };
    const made = await post(s.url, '/v1/chart/create', { chart: lines, width: 200, height: 100 }, apiKey(key));
    const { id } = (await made.json()) as { id: string };
    expect(titleOf(await (await fetch(`${s.url}/v1/chart/${id}/preview`)).text())).to.equal('Revenue by quarter · chartshot');

    const plain = await post(s.url, '/v1/chart/create', { chart: BAR, width: 200, height: 100 }, apiKey(key));
    const { id: plainId } = (await plain.json()) as { id: string };
    expect(titleOf(await (await fetch(`${s.url}/v1/chart/${plainId}/preview`)).text())).to.equal(`Chart ${plainId} · chartshot`);
  });

  it('in Chromium the tab shows the title and the page shows the chart', async function () {
    this.timeout(60000);
    const zap = await post(s.url, '/v1/zapier/line-chart', { title: 'Weekly signups <beta>', labels: 'Mon,Tue,Wed,Thu,Fri', values: '3,5,4,7,9', width: 600, height: 300 }, apiKey(key));
    const { preview_url } = (await zap.json()) as { preview_url: string };
    let browser: Browser | undefined;
    try {
      browser = await puppeteer.launch({ executablePath: s.config.chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
      const page = await browser.newPage();
      await page.setViewport({ width: 800, height: 500 });
      await page.goto(local(preview_url), { waitUntil: 'networkidle0' });
      expect(await page.title()).to.equal('Weekly signups <beta> · chartshot');
      expect(await page.$eval('img', (i) => [(i as HTMLImageElement).naturalWidth, (i as HTMLImageElement).alt])).to.deep.equal([600, 'Weekly signups <beta>']);
      mkdirSync('test/output', { recursive: true });
      await page.screenshot({ path: 'test/output/preview-title.png' });
    } finally {
      await browser?.close();
    }
  });
});
