// Golden-image comparison, the renderer record, case discovery and the report's text.
import { expect } from 'chai';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { compareImages } from '../../src/golden/compare.js';
import { parseFingerprint, rendererChange } from '../../src/golden/renderer.js';
import { findCases, UnreadableConfig } from '../../src/golden/cases.js';
import { junitXml, reportHtml, reportOrder, summaryLine, type CaseResult } from '../../src/golden/report.js';
import { Chartshot, ChartshotError } from '../../src/client/index.js';
import { signQuery } from '../../src/services/signing.js';
import { parseChromiumVersion } from '../../src/render/fingerprint.js';

function png(w: number, h: number, paint: (x: number, y: number) => [number, number, number, number], filterType = -1): Buffer {
  const p = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) p.data.set(paint(x, y), (y * w + x) * 4);
  return PNG.sync.write(p, { filterType });
}
const white = () => [255, 255, 255, 255] as [number, number, number, number];
const strict = { threshold: 0, maxDiffPixels: 0 };

describe('golden-image comparison', () => {
  it('identical bytes are ok without decoding', () => {
    const a = png(10, 10, white);
    expect(compareImages(a, Buffer.from(a), 'png', strict)).to.deep.equal({ status: 'ok', identical: true, diffPixels: 0 });
  });

  it('counts every changed pixel at threshold 0 and draws a diff image', () => {
    const a = png(20, 10, white);
    const b = png(20, 10, (x, y) => (x < 3 && y < 2 ? [254, 255, 255, 255] : [255, 255, 255, 255]));
    const v = compareImages(a, b, 'png', strict);
    expect(v.status).to.equal('differs');
    if (v.status !== 'differs') return;
    expect(v.diffPixels).to.equal(6);
    expect(v.totalPixels).to.equal(200);
    const diff = PNG.sync.read(v.diffPng!);
    expect([diff.width, diff.height]).to.deep.equal([20, 10]);
    // the changed pixel is highlighted, an unchanged one faded
    expect([...diff.data.subarray(0, 3)]).to.deep.equal([255, 0, 64]);
    expect(diff.data[(5 * 20 + 10) * 4 + 1]).to.be.above(200);
  });

  it('--threshold ignores small colour changes; --max-diff-pixels lets a few pixels pass', () => {
    const a = png(20, 10, white);
    const faint = png(20, 10, (x, y) => (x < 3 && y < 2 ? [250, 255, 255, 255] : [255, 255, 255, 255]));
    expect(compareImages(a, faint, 'png', { threshold: 0.2, maxDiffPixels: 0 }).status).to.equal('ok');
    expect(compareImages(a, faint, 'png', { threshold: 0, maxDiffPixels: 6 })).to.deep.include({ status: 'ok', identical: false, diffPixels: 6 });
    expect(compareImages(a, faint, 'png', { threshold: 0, maxDiffPixels: 5 }).status).to.equal('differs');
  });

  it('the same pixels in other bytes are ok (another PNG filter)', () => {
    const a = png(16, 16, (x, y) => [x * 10, y * 7, 0, 255], 0);
    const b = png(16, 16, (x, y) => [x * 10, y * 7, 0, 255], 1);
    expect(a.equals(b)).to.equal(false);
    expect(compareImages(a, b, 'png', strict)).to.deep.equal({ status: 'ok', identical: false, diffPixels: 0 });
  });

  it('another size differs by every pixel and says so; an SVG compares by bytes', () => {
    const v = compareImages(png(10, 10, white), png(20, 10, white), 'png', strict);
    expect(v).to.deep.include({ status: 'differs', diffPixels: 200, sizeChange: '10x10 -> 20x10' });
    expect(compareImages(Buffer.from('<svg/>'), Buffer.from('<svg />'), 'svg', strict)).to.deep.include({ status: 'differs', diffPixels: -1 });
    expect(compareImages(Buffer.from('<svg/>'), Buffer.from('<svg/>'), 'svg', strict).status).to.equal('ok');
  });
});

describe('the renderer record', () => {
  const was = 'chartjs=4.6.1; chromium=156.0.8078.79; fonts=3f9a1c2b';
  it('parses the header value', () => {
    expect(parseFingerprint(was + '\n')).to.deep.equal({ chartjs: '4.6.1', chromium: '156.0.8078.79', fonts: '3f9a1c2b' });
    expect(parseFingerprint('garbage')).to.deep.equal({});
    expect(parseChromiumVersion('HeadlessChrome/156.0.8078.79')).to.equal('156.0.8078.79');
    expect(parseChromiumVersion('Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)')).to.equal('156.0.8078.79');
  });
  it('names what changed: a Chromium major, a patch, fonts, Chart.js; nothing when equal or unknown', () => {
    expect(rendererChange(was, 'chartjs=4.6.1; chromium=157.0.8100.1; fonts=3f9a1c2b')).to.equal('renderer changed: chromium 156 -> 157');
    expect(rendererChange(was, 'chartjs=4.6.1; chromium=156.0.8078.80; fonts=3f9a1c2b')).to.equal('renderer changed: chromium 156.0.8078.79 -> 156.0.8078.80');
    expect(rendererChange(was, 'chartjs=4.7.0; chromium=156.0.8078.79; fonts=00000000')).to.equal('renderer changed: chartjs 4.6.1 -> 4.7.0, fonts 3f9a1c2b -> 00000000');
    expect(rendererChange(was, was)).to.equal(null);
    expect(rendererChange('', was)).to.equal(null);
  });
});

describe('golden cases in a folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chartshot-cases-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('every *.json below the folder, sorted, with the golden beside it by format; hidden folders and the report skipped', () => {
    mkdirSync(join(dir, 'b'));
    mkdirSync(join(dir, '.git'));
    mkdirSync(join(dir, 'report'));
    writeFileSync(join(dir, 'b', 'z.json'), '{"chart":{},"format":"svg"}');
    writeFileSync(join(dir, 'a.json'), '{"c":{},"f":"svg"}');
    writeFileSync(join(dir, 'c.json'), '{"chart":{}}');
    writeFileSync(join(dir, '.git', 'x.json'), '{}');
    writeFileSync(join(dir, 'report', 'y.json'), '{}');
    writeFileSync(join(dir, 'notes.txt'), 'x');
    const cases = findCases(dir, [join(dir, 'report')]);
    expect(cases.map((c) => [c.name, c.format, c.goldenPath.slice(dir.length)])).to.deep.equal([
      ['a', 'svg', '/a.svg'],
      ['b/z', 'svg', '/b/z.svg'],
      ['c', 'png', '/c.png'],
    ]);
  });

  it('a config that is not a JSON object is unreadable, naming the file', () => {
    for (const [text, why] of [['{"chart":', /not valid JSON/], ['[1]', /must be a JSON object/], ['null', /must be a JSON object/]] as const) {
      writeFileSync(join(dir, 'bad.json'), text);
      expect(() => findCases(dir)).to.throw(UnreadableConfig, why).with.property('message').that.contains(join(dir, 'bad.json'));
    }
  });
});

describe('the golden report', () => {
  const results: CaseResult[] = [
    { name: 'a-ok', format: 'png', status: 'ok', ms: 10, images: { golden: 'a-ok.golden.png' } },
    { name: 'sub/<b>&"x"', format: 'png', status: 'differs', diffPixels: 12, totalPixels: 100, ms: 20, images: { golden: 'sub/<b>&"x".golden.png', actual: 'sub/<b>&"x".actual.png', diff: 'sub/<b>&"x".diff.png' } },
    { name: 'c-missing', format: 'svg', status: 'missing', ms: 5, images: { actual: 'c-missing.actual.svg' } },
    { name: 'd-error', format: 'png', status: 'error', error: 'invalid_dimensions: width must be <= 8000', ms: 1, images: {} },
  ];
  const run = { dir: 'charts', renderer: 'chartjs=4.6.1; chromium=156.0.8078.79; fonts=3f9a1c2b', rendererChange: 'renderer changed: chromium 156 -> 157', ms: 1234 };

  it('failures first, then the rest, each by name', () => {
    expect(reportOrder(results).map((r) => r.name)).to.deep.equal(['c-missing', 'd-error', 'sub/<b>&"x"', 'a-ok']);
    expect(summaryLine(results, 1234)).to.equal('4 configs: 1 ok, 1 differ, 1 missing, 1 errors (1.2 s)');
  });

  it('HTML: escaped names, relative URL-encoded images, no script and no remote resource', () => {
    const html = reportHtml(results, run);
    expect(html).not.to.match(/<script|https?:\/\//i);
    expect(html).not.to.contain('<b>&');
    expect(html).to.contain('&#60;b&#62;&#38;&#34;x&#34;');
    expect(html).to.contain('src="sub/%3Cb%3E%26%22x%22.diff.png"');
    expect(html).to.contain('12 of 100 pixels');
    expect(html).to.contain('renderer changed: chromium 156 -&#62; 157');
  });

  it('JUnit XML: one testcase each, failures and errors counted, text escaped', () => {
    const xml = junitXml(results, run);
    expect(xml).to.match(/<testsuites name="chartshot" tests="4" failures="2" errors="1"/);
    expect(xml.match(/<testcase /g)).to.have.length(4);
    expect(xml).to.contain('<failure message="differs: 12 of 100 pixels"/>');
    expect(xml).to.contain('<error message="invalid_dimensions: width must be &#60;= 8000"/>');
    expect(xml).to.contain('classname="chartshot.sub" name="sub/&#60;b&#62;&#38;&#34;x&#34;"');
  });
});

describe('the typed client, offline', () => {
  it('signs a URL exactly as the server does', () => {
    const client = new Chartshot({ baseUrl: 'https://charts.example.com/', keyId: 'key_1', signingSecret: 's3cret' });
    const chart = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } };
    const url = client.signUrl({ chart, width: 300, height: 200, format: 'svg', backgroundColor: '#fff' }, { inSeconds: 600 });
    const exp = Number(new URL(url).searchParams.get('exp'));
    expect(exp - Date.now() / 1000).to.be.within(590, 601);
    const expected = signQuery({ chart: JSON.stringify(chart), width: '300', height: '200', format: 'svg', backgroundColor: '#fff' }, 'key_1', 's3cret', exp);
    expect(url).to.equal(`https://charts.example.com/v1/chart?${expected}`);
  });

  it('refuses to sign without the secret or beyond a year', () => {
    expect(() => new Chartshot({ baseUrl: 'http://x' }).signUrl({ chart: {}, width: 1, height: 1 }, { inSeconds: 60 })).to.throw(TypeError);
    const c = new Chartshot({ baseUrl: 'http://x', keyId: 'k', signingSecret: 's' });
    expect(() => c.signUrl({ chart: {}, width: 1, height: 1 }, { inSeconds: 400 * 86400 })).to.throw(RangeError);
    expect(() => c.signUrl({ chart: {}, width: 1, height: 1 }, { at: new Date(Date.now() - 1000) })).to.throw(RangeError);
  });

  it('a server that cannot be reached is a network_error', async () => {
    const err = await new Chartshot({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }).render({ chart: {}, width: 1, height: 1 }).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(ChartshotError).and.include({ code: 'network_error', status: 0 });
  });
});
