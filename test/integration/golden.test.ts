// Golden images: every fixture in fixtures/golden is rendered through POST /v1/chart and
// compared with test/golden/<name>.png. Tolerance: pixelmatch threshold 0.1 per pixel and at
// most 0.1% of pixels differing (anti-aliasing noise across Chromium builds); the same
// machine reproduces them exactly. UPDATE_GOLDEN=1 rewrites them: look at every one you commit.
import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { post, sharedAccount, type TestServer } from '../helpers/server.js';
import { decodePng, diffRatio } from '../helpers/images.js';
import { apiKey, bytes } from '../helpers/client.js';

const FIXTURES = 'fixtures/golden';
const GOLDEN = 'test/golden';
const MAX_DIFF = 0.001;

describe('golden images', function () {
  this.timeout(60000);
  let s: TestServer;
  let key: string;
  before(async () => ({ s, key } = await sharedAccount()));

  for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort()) {
    const name = file.replace(/\.json$/, '');
    it(`${name} matches its golden PNG`, async () => {
      const fixture = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { width: number; height: number };
      const res = await post(s.url, '/v1/chart', fixture, apiKey(key));
      expect(res.status, await res.clone().text().then((t) => t.slice(0, 200))).to.equal(200);
      const png = await bytes(res);
      const img = decodePng(png);
      expect([img.width, img.height]).to.deep.equal([fixture.width, fixture.height]);
      const goldenPath = join(GOLDEN, `${name}.png`);
      if (process.env.UPDATE_GOLDEN === '1' || !existsSync(goldenPath)) {
        if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`no golden for ${name}: run with UPDATE_GOLDEN=1 and look at it`);
        mkdirSync(GOLDEN, { recursive: true });
        writeFileSync(goldenPath, png);
        return;
      }
      const ratio = diffRatio(png, readFileSync(goldenPath));
      if (ratio > MAX_DIFF) {
        mkdirSync('test/output', { recursive: true });
        writeFileSync(join('test/output', `${name}.actual.png`), png);
      }
      expect(ratio, `${name}: ${(ratio * 100).toFixed(3)}% of pixels differ (see test/output)`).to.be.at.most(MAX_DIFF);
    });
  }

  it('SVG output of every fixture is well-formed vector SVG of the requested size', async () => {
    for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.json'))) {
      const fixture = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { width: number; height: number };
      const res = await post(s.url, '/v1/chart', { ...fixture, format: 'svg' }, apiKey(key));
      expect(res.status, file).to.equal(200);
      const svg = await res.text();
      expect(svg, file).to.match(new RegExp(`<svg[^>]*\\swidth="${fixture.width}"`));
      expect(svg, file).to.match(new RegExp(`<svg[^>]*\\sheight="${fixture.height}"`));
      expect(svg, file).to.match(/<path\b/);
      expect(svg, file).not.to.match(/<image\b|NaN|undefined/);
      expect(svg.trim().endsWith('</svg>'), file).to.equal(true);
    }
  });
});
