// GET / (the front page) and /favicon.ico: over HTTP, then in Chromium; a screenshot is left in
// test/output/home.png for a human to look at.
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import puppeteer, { type Browser } from 'puppeteer-core';
import { sharedServer, startTestServer, type TestServer } from '../helpers/server.js';
import { bytes } from '../helpers/client.js';

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET / and /favicon.ico', function () {
  let s: TestServer;
  before(async () => (s = await sharedServer()));

  it('the front page: status, links, and the quick start with the base URL it was reached by', async () => {
    const res = await fetch(`${s.url}/`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('content-security-policy')).to.match(/default-src 'none'/).and.not.match(/https?:/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const html = await res.text();
    expect(html).to.match(/This server is <span class="state healthy">healthy<\/span>/);
    for (const link of ['/playground', '/docs', '/openapi.json', '/v1/status']) expect(html).to.contain(`href="${link}"`);
    expect(html).to.contain(`curl -X POST '${s.url}/v1/chart'`);
    expect(html).to.contain('accounts create --plan starter --json &gt; account.json');
    // every asset it names is served here
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&'));
    for (const ref of refs) {
      expect(ref, ref).to.match(/^\//);
      expect((await fetch(s.url + ref)).status, ref).to.equal(200);
    }
  });

  it('a hostile Host header is escaped or replaced, never echoed as markup', async () => {
    const odd = await getWithHost(`${s.url}/`, { host: 'evil.example"><script>alert(1)</script>' });
    expect(odd.status).to.equal(200);
    expect(odd.body).not.to.contain('<script>');
    expect(odd.body).to.contain(`curl -X POST '${s.config.publicBaseUrl}/v1/chart'`);
    const named = await getWithHost(`${s.url}/`, { host: 'charts.example.com:8443' });
    expect(named.body).to.contain("curl -X POST 'http://charts.example.com:8443/v1/chart'");
    // X-Forwarded-Proto and -Host are ignored unless TRUST_PROXY
    const forwarded = await getWithHost(`${s.url}/`, { host: 'a.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'b.example' });
    expect(forwarded.body).to.contain("'http://a.example/v1/chart'");
  });

  it('behind a trusted proxy the quick start uses the forwarded protocol and host', async () => {
    const proxied = await startTestServer({ trustProxy: true });
    try {
      const page = await getWithHost(`${proxied.url}/`, { host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'charts.example.com' });
      expect(page.body).to.contain("curl -X POST 'https://charts.example.com/v1/chart'");
    } finally {
      await proxied.stop();
    }
  });

  it('/favicon.ico is a small icon with a long cache', async () => {
    const res = await fetch(`${s.url}/favicon.ico`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/x-icon');
    expect(res.headers.get('cache-control')).to.match(/max-age=31536000/);
    const body = await bytes(res);
    expect([...body.subarray(0, 4)]).to.deep.equal([0, 0, 1, 0]);
    expect(body.length).to.be.within(100, 10_000);
  });

  it('in Chromium: the page shows its status and the example chart, and asks nothing of another origin', async function () {
    this.timeout(60000);
    let browser: Browser | undefined;
    try {
      browser = await puppeteer.launch({
        executablePath: s.config.chromiumPath,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
      });
      const page = await browser.newPage();
      await page.setViewport({ width: 1100, height: 900 });
      const foreign: string[] = [];
      const problems: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(s.url)) foreign.push(r.url());
      });
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      await page.goto(`${s.url}/`, { waitUntil: 'networkidle0' });
      const img = await page.$eval('.example img', (e) => ({ complete: (e as HTMLImageElement).complete, w: (e as HTMLImageElement).naturalWidth }));
      expect(img).to.deep.equal({ complete: true, w: 360 });
      const header = await page.$eval('header', (e) => getComputedStyle(e).backgroundColor);
      expect(header).to.equal('rgb(17, 24, 39)'); // the playground's stylesheet applies
      expect(await page.$eval('.state', (e) => e.textContent)).to.equal('healthy');
      expect(foreign).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
      mkdirSync('test/output', { recursive: true });
      await page.screenshot({ path: 'test/output/home.png', fullPage: true });
    } finally {
      await browser?.close();
    }
  });
});
