// The playground in a real browser (the same Chromium, driven by puppeteer-core): load it
// with a config, edit the config and the size, see the preview follow, copy the image URL,
// and check that the page never asks anything of another origin. A screenshot is left in
// test/output/playground.png for a human to look at.
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { sharedServer, type TestServer } from '../helpers/server.js';
import { decodePng } from '../helpers/images.js';
import { bytes } from '../helpers/client.js';

const CONFIG = {
  type: 'bar',
  data: { labels: ['North', 'South', 'East'], datasets: [{ label: 'Units', data: [5, 9, 3] }] },
};

describe('playground in a browser', function () {
  this.timeout(60000);
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];
  const problems: string[] = [];

  before(async () => {
    s = await sharedServer();
    browser = await puppeteer.launch({
      executablePath: s.config.chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    });
    const context = browser.defaultBrowserContext();
    await context.overridePermissions(s.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(s.url) && !url.startsWith('blob:') && !url.startsWith('data:')) foreign.push(url);
    });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
  });
  after(async () => {
    await browser?.close();
  });

  /** Waits for the preview to show a render newer than `after`; returns its natural size. */
  async function renderedAfter(after: number): Promise<{ n: number; w: number; h: number }> {
    await page.waitForFunction(
      (n: number) => {
        const img = document.getElementById('preview') as HTMLImageElement;
        return Number(img.dataset.rendered ?? 0) > n && img.complete && img.naturalWidth > 0;
      },
      { timeout: 15000 },
      after,
    );
    return page.$eval('#preview', (img) => ({
      n: Number((img as HTMLImageElement).dataset.rendered),
      w: (img as HTMLImageElement).naturalWidth,
      h: (img as HTMLImageElement).naturalHeight,
    }));
  }

  const fieldValue = (sel: string) => page.$eval(sel, (el) => (el as HTMLInputElement).value);
  const textOf = (sel: string) => page.$eval(sel, (el) => el.textContent ?? '');

  async function imageAt(url: string): Promise<Buffer> {
    const res = await fetch(url);
    expect(res.status, url).to.equal(200);
    return await bytes(res);
  }

  it('loads with the config of ?c= and w/h, and previews it', async () => {
    await page.goto(`${s.url}/playground?c=${encodeURIComponent(JSON.stringify(CONFIG))}&w=420&h=260`, { waitUntil: 'load' });
    const first = await renderedAfter(0);
    expect([first.w, first.h]).to.deep.equal([420, 260]);
    expect(JSON.parse(await fieldValue('#config'))).to.deep.equal(CONFIG);
    expect(await fieldValue('#w')).to.equal('420');
    const url = new URL(await fieldValue('#image-url'));
    expect(url.pathname).to.equal('/v1/open/chart');
    expect(JSON.parse(url.searchParams.get('c')!)).to.deep.equal(CONFIG);
    expect(await textOf('#json-status')).to.equal('Valid JSON');
    expect(await textOf('#render-status')).to.match(/^Rendered: image\/png/);
    // line numbers follow the text
    const lines = (await fieldValue('#config')).split('\n').length;
    expect((await textOf('#gutter')).split('\n').length).to.equal(lines);
  });

  it('editing the config changes the preview', async () => {
    const before = await fieldValue('#image-url');
    const n0 = (await renderedAfter(0)).n;
    const changed = { ...CONFIG, type: 'line', data: { ...CONFIG.data, datasets: [{ label: 'Units', data: [1, 8, 4], borderColor: '#dc2626' }] } };
    await page.click('#config');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type(JSON.stringify(changed));
    const after = await renderedAfter(n0);
    expect([after.w, after.h]).to.deep.equal([420, 260]);
    const now = await fieldValue('#image-url');
    expect(now).not.to.equal(before);
    expect(JSON.parse(new URL(now).searchParams.get('c')!)).to.deep.equal(changed);
    // the two images really differ, and the page's own address follows the editor
    const a = decodePng(await imageAt(before));
    const b = decodePng(await imageAt(now));
    expect(Buffer.compare(a.data, b.data)).not.to.equal(0);
    expect(new URL(page.url()).searchParams.get('c')).to.equal(JSON.stringify(changed));
  });

  it('size and format controls change the image', async () => {
    const n0 = (await renderedAfter(0)).n;
    await page.$eval('#w', (el) => {
      (el as HTMLInputElement).value = '300';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const small = await renderedAfter(n0);
    expect([small.w, small.h]).to.deep.equal([300, 260]);
    await page.select('#fmt', 'svg');
    await renderedAfter(small.n);
    expect(await textOf('#render-status')).to.match(/^Rendered: image\/svg\+xml/);
    expect(new URL(await fieldValue('#image-url')).searchParams.get('format')).to.equal('svg');
    await page.select('#fmt', 'png');
    await page.waitForFunction(() => /image\/png/.test(document.getElementById('render-status')!.textContent ?? ''));
  });

  it('invalid JSON is reported with its place and not sent', async () => {
    const shown = await fieldValue('#image-url');
    await page.click('#config');
    await page.keyboard.press('End');
    await page.keyboard.type(',,');
    await page.waitForFunction(() => /Invalid JSON/.test(document.getElementById('json-status')!.textContent ?? ''), { timeout: 5000 });
    expect(await textOf('#json-status')).to.match(/line 1, column \d+/);
    expect(await fieldValue('#image-url')).to.equal(shown);
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.waitForFunction(() => document.getElementById('json-status')!.textContent === 'Valid JSON', { timeout: 5000 });
  });

  it('Copy puts the image URL on the clipboard', async () => {
    await page.click('#copy');
    await page.waitForFunction(() => document.getElementById('copy')!.textContent === 'Copied', { timeout: 5000 });
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).to.equal(await fieldValue('#image-url'));
  });

  it('an error of the endpoint is shown (gate refusal)', async () => {
    await page.click('#config');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type(JSON.stringify({ ...CONFIG, plugins: [] }));
    await page.waitForFunction(() => /invalid_config/.test(document.getElementById('render-status')!.textContent ?? ''), { timeout: 10000 });
    expect(await textOf('#render-status')).to.include('top-level plugins are not allowed');
  });

  it('made no request to another origin and logged no script or CSP error; screenshot', async () => {
    await page.click('#config');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    const n0 = await page.$eval('#preview', (img) => Number((img as HTMLImageElement).dataset.rendered));
    await page.keyboard.type(JSON.stringify({ ...CONFIG, options: { plugins: { title: { display: true, text: 'From the playground' } } } }));
    await renderedAfter(n0);
    await page.click('#format-json');
    expect((await fieldValue('#config')).split('\n').length, 'pretty-printed').to.be.above(10);
    mkdirSync('test/output', { recursive: true });
    await page.screenshot({ path: 'test/output/playground.png' });
    expect(foreign).to.deep.equal([]);
    // the 400 of the previous test is logged by Chromium as a failed resource: nothing else
    expect(problems.filter((p) => !/status of 400/.test(p))).to.deep.equal([]);
  });

  // after the test that checks the console: a 404 for an unknown id logs a resource error
  it('opens a large chart by the stored id of its short X-Edit-Url', async () => {
    const big = { ...CONFIG, options: { plugins: { title: { display: true, text: 'Long title '.repeat(300) } } } };
    const res = await fetch(`${s.url}/v1/open/chart?c=${encodeURIComponent(JSON.stringify(big))}&w=380`);
    expect(res.status).to.equal(200);
    const edit = new URL(res.headers.get('x-edit-url')!);
    expect(edit.searchParams.get('id')).to.match(/^[A-Za-z0-9_-]{43}$/);
    await page.goto(`${s.url}/playground${edit.search}`, { waitUntil: 'load' });
    const shown = await renderedAfter(0);
    expect(shown.w).to.equal(380);
    expect(JSON.parse(await fieldValue('#config'))).to.deep.equal(big);
    expect(await textOf('#render-status')).to.match(/^Rendered: image\/png/);
  });

  it('an unknown id says so and leaves an example to edit', async () => {
    await page.goto(`${s.url}/playground?id=${'x'.repeat(43)}`, { waitUntil: 'load' });
    await page.waitForFunction(() => /no longer stored/.test(document.getElementById('render-status')?.textContent ?? ''), { timeout: 15000 });
    expect(JSON.parse(await fieldValue('#config'))).to.have.property('type');
  });
});
