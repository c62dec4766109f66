// FONTS_DIR and the font aliases (src/render/fonts.ts): a family only FONTS_DIR holds (Comic Neue,
// SIL OFL 1.1, shipped as WOFF2 in fixtures/fonts/ with its licence) draws on the very first render
// that names it, the fingerprint's fonts hash moves with it, and `Mono` draws as `monospace`.
// Set FONT_PNG_DIR to keep the images.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Renderer } from '../../src/render/renderer.js';
import { loadConfig, ConfigError } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { decodePng } from '../helpers/images.js';

const FONTS_DIR = join('fixtures', 'fonts');

function startPool(fontsDir: string | null): Promise<Renderer> {
  const c = loadConfig({ LOG_LEVEL: 'silent' });
  const pool = new Renderer(
    { chromiumPath: c.chromiumPath, size: 1, renderTimeoutMs: 20000, acquireTimeoutMs: 20000, maxQueue: 10, pageMaxRenders: 1000, fontsDir },
    createLogger('silent'),
  );
  return pool.start().then(() => pool);
}

/** A title in `family` and nothing else of note: the image is the text. */
async function titleIn(pool: Renderer, family: string): Promise<Buffer> {
  const config = {
    type: 'bar',
    data: { labels: [], datasets: [{ data: [] }] },
    options: { plugins: { legend: { display: false }, title: { display: true, text: 'Quarterly revenue 2024', font: { family, size: 28 } } }, scales: { x: { display: false }, y: { display: false } } },
  };
  const res = await pool.render({ config, width: 400, height: 80, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null });
  return Buffer.from(res.data, 'base64');
}

function inked(png: Buffer): number {
  const img = decodePng(png);
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) if (img.data[i]! < 128) n++;
  return n;
}

describe('FONTS_DIR and font aliases', function () {
  this.timeout(180000);
  let plain: Renderer;
  let withFonts: Renderer;

  before(async () => {
    [plain, withFonts] = await Promise.all([startPool(null), startPool(FONTS_DIR)]);
  });
  after(async () => {
    await Promise.all([plain?.close(), withFonts?.close()]);
  });

  it('a family only FONTS_DIR holds draws on the first render that names it (a WOFF2 file)', async () => {
    const ours = await titleIn(withFonts, 'Comic Neue');
    const without = await titleIn(plain, 'Comic Neue');
    const fallback = await titleIn(withFonts, 'No Such Family');
    if (process.env.FONT_PNG_DIR) for (const [n, b] of [['comic', ours], ['without', without], ['fallback', fallback]] as const) writeFileSync(join(process.env.FONT_PNG_DIR, `${n}.png`), b);
    expect(inked(ours)).to.be.greaterThan(200);
    // without the folder the name falls back, as an unknown family does
    expect(without.equals(await titleIn(plain, 'No Such Family'))).to.equal(true);
    expect(ours.equals(without)).to.equal(false);
    expect(ours.equals(fallback)).to.equal(false);
  });

  it('the fingerprint names the fonts: FONTS_DIR changes its fonts hash', () => {
    const a = plain.fingerprint().parts.fonts;
    const b = withFonts.fingerprint().parts.fonts;
    expect(a).to.match(/^[0-9a-f]{8}$/);
    expect(b).to.match(/^[0-9a-f]{8}$/);
    expect(a).to.not.equal(b);
  });

  it('Mono draws as monospace (not the serif an unknown family falls back to)', async () => {
    const mono = await titleIn(plain, 'Mono');
    if (process.env.FONT_PNG_DIR) writeFileSync(join(process.env.FONT_PNG_DIR, 'mono.png'), mono);
    expect(mono.equals(await titleIn(plain, 'monospace'))).to.equal(true);
    expect(mono.equals(await titleIn(plain, 'No Such Family'))).to.equal(false);
  });

  it('FONTS_DIR is validated at start', () => {
    expect(loadConfig({ FONTS_DIR: FONTS_DIR }).fontsDir).to.equal(join(process.cwd(), FONTS_DIR));
    expect(() => loadConfig({ FONTS_DIR: '/no/such/folder' })).to.throw(ConfigError, /FONTS_DIR/);
    expect(() => loadConfig({ FONTS_DIR: join(FONTS_DIR, 'ComicNeue-Regular.woff2') })).to.throw(ConfigError, /FONTS_DIR must be a folder/);
    expect(loadConfig({}).fontsDir).to.equal(null);
  });
});
