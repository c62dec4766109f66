// /docs as a new user meets it: every operation documents a realistic example and an example per
// error code; in Chromium, "Try it out" on POST /v1/chart with an API key shows the image (the
// page's CSP lets the blob: URL of the response through). Screenshot: test/output/docs-try.png.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import puppeteer, { type Browser } from 'puppeteer-core';
import { sharedAccount, type TestServer } from '../helpers/server.js';
import { post } from '../helpers/client.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('/docs examples and Try it out', function () {
  let s: TestServer;
  let key: string;
  let doc: Json;
  before(async () => {
    ({ s, key } = await sharedAccount('starter'));
    doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Json;
  });

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })));

  it('every request body has an example that passes its schema, and the example of POST /v1/chart renders', async () => {
    const ajv = new Ajv({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
    const withBody = operations().filter((o) => o.op.requestBody);
    expect(withBody.length).to.be.above(5);
    for (const { path, method, op } of withBody) {
      const media = op.requestBody.content['application/json'] as Json;
      expect(media.example, `${method} ${path}`).to.not.equal(undefined);
      const check = ajv.compile(media.schema.$ref ? { $ref: media.schema.$ref } : media.schema);
      expect(check(media.example), `${method} ${path}: ${JSON.stringify(check.errors)}`).to.equal(true);
    }
    // the documented bodies are accepted by the server, not merely by the schema
    const chart = doc.paths['/v1/chart'].post.requestBody.content['application/json'].example;
    const res = await post(s.url, '/v1/chart', chart, { 'x-api-key': key });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    const bar = doc.paths['/v1/zapier/multi-series-chart'].post.requestBody.content['application/json'].example;
    expect((await post(s.url, '/v1/zapier/multi-series-chart', bar, { 'x-api-key': key })).status).to.equal(201);
    // query examples: GET /v1/chart with its example parameters and a key renders
    const q = new URLSearchParams({ api_key: key });
    for (const p of doc.paths['/v1/chart'].get.parameters as Json[]) if (p.example !== undefined) q.set(p.name, String(p.example));
    expect((await fetch(`${s.url}/v1/chart?${q}`)).status).to.equal(200);
  });

  it('every error response shows one example per code it can carry, with that code', () => {
    let n = 0;
    for (const { path, method, op } of operations()) {
      for (const [status, resp] of Object.entries(op.responses as Json)) {
        if (Number(status) < 400) continue;
        const content = (resp as Json).content as Json;
        // QuickChart's routes answer errors as an image of the message, named in X-quickchart-error
        if (!content['application/json']) {
          expect(Object.keys(content), `${method} ${path} ${status}`).to.include('image/png');
          expect((resp as Json).headers, `${method} ${path} ${status}`).to.have.property('X-quickchart-error');
          continue;
        }
        const media = content['application/json'] as Json;
        // GET /v1/pressure's 503 is its report (reason: draining, no_page, memory), read by probes, not an error
        if (path === '/v1/pressure') {
          expect(media.schema.$ref, `${method} ${path} ${status}`).to.equal('#/components/schemas/Pressure');
          continue;
        }
        const codes = media.schema.allOf[1].properties.error.enum as string[];
        const examples = media.examples as Record<string, { value: { error: string; detail: string } }>;
        expect(Object.keys(examples), `${method} ${path} ${status}`).to.deep.equal(codes);
        for (const code of codes) {
          expect(examples[code]!.value.error).to.equal(code);
          expect(examples[code]!.value.detail).to.be.a('string').and.not.equal('');
        }
        n++;
      }
    }
    expect(n).to.be.above(20);
    expect(doc.paths['/v1/chart'].post.responses['401'].content['application/json'].examples).to.have.keys(['unauthorized']);
  });

  it('in Chromium: Authorize, Try it out, Execute on POST /v1/chart shows the image', async function () {
    this.timeout(90000);
    const profile = mkdtempSync(join(tmpdir(), 'chartshot-docs-try-'));
    let browser: Browser | undefined;
    try {
      browser = await puppeteer.launch({
        executablePath: s.config.chromiumPath,
        headless: true,
        userDataDir: profile,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-dev-shm-usage'],
      });
      const page = await browser.newPage();
      await page.setViewport({ width: 1200, height: 1000 });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(`${s.url}/docs/`, { waitUntil: 'networkidle0', timeout: 30000 });
      await page.waitForSelector('.opblock', { timeout: 20000 });
      // Authorize with the API key in the X-Api-Key header
      await page.click('.auth-wrapper .authorize');
      await page.waitForSelector('.modal-ux input[type=text]');
      await page.type('.modal-ux input[type=text]', key);
      await page.click('.modal-ux .auth-btn-wrapper .authorize');
      await page.click('.modal-ux .btn-done');
      // POST /v1/chart: open, Try it out (the body is the documented example), Execute
      const op = '#operations-Charts-renderChart';
      await page.click(`${op} .opblock-summary`);
      await page.waitForSelector(`${op} .try-out__btn`);
      const body = await page.$eval(`${op} .body-param__example, ${op} .highlight-code`, (e) => e.textContent ?? '');
      expect(body).to.contain('"Revenue by quarter"');
      await page.click(`${op} .try-out__btn`);
      await page.waitForSelector(`${op} .execute`);
      await page.click(`${op} .execute`);
      const img = await page.waitForSelector(`${op} .live-responses-table img`, { timeout: 30000 });
      await page.waitForFunction((sel: string) => {
        const i = document.querySelector(sel) as HTMLImageElement | null;
        return !!i && i.complete && i.naturalWidth > 0;
      }, { timeout: 15000 }, `${op} .live-responses-table img`);
      const shown = await img!.evaluate((e) => ({ src: (e as HTMLImageElement).src, w: (e as HTMLImageElement).naturalWidth, h: (e as HTMLImageElement).naturalHeight }));
      expect(shown.src).to.match(/^blob:/);
      expect([shown.w, shown.h]).to.deep.equal([600, 300]);
      const status = await page.$eval(`${op} .live-responses-table tr.response .response-col_status`, (e) => (e.textContent ?? '').trim());
      expect(status).to.equal('200');
      await img!.scrollIntoView();
      mkdirSync('test/output', { recursive: true });
      await page.screenshot({ path: 'test/output/docs-try.png' });
      expect(problems.filter((p) => /Content Security Policy/i.test(p))).to.deep.equal([]);
    } finally {
      await browser?.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
