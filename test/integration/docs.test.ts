// /docs: Swagger UI (swagger-ui-dist, served locally) rendering /openapi.json. The HTTP checks
// are plain fetches; one test opens the page in the Debian Chromium and reads what it shows.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { sharedServer, type TestServer } from '../helpers/server.js';

describe('GET /docs', function () {
  let s: TestServer;
  before(async () => (s = await sharedServer()));

  it('/docs (and /docs/) is an HTML page that loads only local assets', async () => {
    expect((await fetch(`${s.url}/docs`)).status).to.equal(200);
    const res = await fetch(`${s.url}/docs/`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('content-security-policy')).to.match(/default-src 'none'/).and.match(/script-src 'self'(;|$)/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs).to.include.members(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js']);
    expect(refs.filter((r) => !r.startsWith('/docs/'))).to.deep.equal([]);
    for (const [ref, type] of [
      ['/docs/swagger-ui.css', /^text\/css/],
      ['/docs/swagger-ui-bundle.js', /^text\/javascript/],
      ['/docs/init.js', /^text\/javascript/],
      ['/docs/favicon-32x32.png', /^image\/png/],
    ] as const) {
      const a = await fetch(s.url + ref);
      expect(a.status, ref).to.equal(200);
      expect(a.headers.get('content-type'), ref).to.match(type);
      expect((await a.arrayBuffer()).byteLength, ref).to.be.above(100);
    }
    expect(await (await fetch(`${s.url}/docs/init.js`)).text()).to.contain("url: '/openapi.json'");
  });

  it('renders every operation of /openapi.json in Chromium, with no error and no request elsewhere', async function () {
    this.timeout(60000);
    const profile = mkdtempSync(join(tmpdir(), 'chartshot-docs-profile-'));
    let browser: Browser | undefined;
    try {
      browser = await puppeteer.launch({
        executablePath: s.config.chromiumPath,
        headless: true,
        userDataDir: profile,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-dev-shm-usage'],
      });
      const page = await browser.newPage();
      await page.setViewport({ width: 1200, height: 900 });
      const problems: string[] = [];
      const foreign: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      page.on('request', (r) => {
        if (!r.url().startsWith(s.url) && !r.url().startsWith('data:')) foreign.push(r.url());
      });
      await page.goto(`${s.url}/docs/`, { waitUntil: 'networkidle0', timeout: 30000 });
      await page.waitForSelector('.opblock', { timeout: 20000 });
      const shown = await page.$$eval('.opblock', (els) => els.map((e) => (e.querySelector('.opblock-summary-path')?.textContent ?? '').replace(/\u200b/g, '')));
      const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, object> };
      const expected = Object.entries(doc.paths).reduce((n, [, item]) => n + Object.keys(item).length, 0);
      expect(shown.length).to.equal(expected);
      expect(shown).to.include.members(['/v1/zapier/bar-chart', '/v1/status', '/v1/chart/{id}']);
      const title = await page.$eval('.info .title', (e) => e.textContent ?? '');
      expect(title).to.match(/chartshot/).and.match(/1\.0\.0/);
      // Swagger UI shows spec problems (parse errors, unsupported fields) as warnings and error boxes.
      expect(await page.$eval('body', (e) => (e as HTMLElement).innerText)).not.to.match(/\bWarning\b/);
      expect(await page.$('.errors-wrapper')).to.equal(null);
      expect(problems).to.deep.equal([]);
      expect(foreign).to.deep.equal([]);
      if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT as `${string}.png`, fullPage: false });
    } finally {
      await browser?.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
