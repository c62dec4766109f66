// Golden-image comparison, the renderer record, case discovery and the report's text.
import { expect } from 'chai';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { compareImages, EXACT, pixelLimit, type Tolerance } from '../../src/golden/compare.js';
import { caseTolerance, missingParts, OptionError, parseCaseOptions, regionsOf, toleranceFromFlags, type ToleranceFlags } from '../../src/golden/options.js';
import { parseFingerprint, rendererChange } from '../../src/golden/renderer.js';
import { findCases, staleGoldens, UnreadableConfig } from '../../src/golden/cases.js';
import { exitCodeOf, githubAnnotations, junitXml, partsVerdict, reportOrder, summaryLine, summaryMarkdown, type CaseResult, type RunSummary } from '../../src/golden/report.js';
import { reportHtml } from '../../src/golden/report-html.js';
import { shardOf } from '../../src/cli-test.js';
import { Chartshot, ChartshotError } from '../../src/client/index.js';
import { signQuery } from '../../src/services/signing.js';
import { parseChromiumVersion } from '../../src/render/fingerprint.js';

function png(w: number, h: number, paint: (x: number, y: number) => [number, number, number, number], filterType = -1): Buffer {
  const p = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) p.data.set(paint(x, y), (y * w + x) * 4);
  return PNG.sync.write(p, { filterType });
}
const white = () => [255, 255, 255, 255] as [number, number, number, number];
const strict: Tolerance = { threshold: 0, maxDiffPixels: 0, ignoreAntialiasing: false };
const tol = (t: Partial<Tolerance>): Tolerance => ({ ...EXACT, ...t });
const ok0 = { diffPixels: 0, aaPixels: 0 };
/** Black left of x=10, white right of it, column 10 grey `g`: an anti-aliased edge. */
const edge = (g: number) => (x: number) => (x < 10 ? [0, 0, 0, 255] : x === 10 ? [g, g, g, 255] : [255, 255, 255, 255]) as [number, number, number, number];

describe('golden-image comparison', () => {
  it('identical bytes are ok without decoding', () => {
    const a = png(10, 10, white);
    expect(compareImages(a, Buffer.from(a), 'png', strict)).to.deep.include({ status: 'ok', identical: true, ...ok0 });
  });

  it('counts every changed pixel at threshold 0 and draws a diff image', () => {
    const a = png(20, 10, white);
    const b = png(20, 10, (x, y) => (x < 3 && y < 2 ? [254, 255, 255, 255] : [255, 255, 255, 255]));
    const v = compareImages(a, b, 'png', strict);
    expect(v.status).to.equal('differs');
    if (v.status !== 'differs') return;
    expect(v).to.deep.include({ diffPixels: 6, aaPixels: 0, totalPixels: 200, reason: 'pixels' });
    const diff = PNG.sync.read(v.diffPng!);
    expect([diff.width, diff.height]).to.deep.equal([20, 10]);
    // the changed pixel is highlighted, an unchanged one faded
    expect([...diff.data.subarray(0, 3)]).to.deep.equal([255, 0, 64]);
    expect(diff.data[(5 * 20 + 10) * 4 + 1]).to.be.above(200);
  });

  it('--threshold ignores small colour changes; --max-diff-pixels lets a few pixels pass', () => {
    const a = png(20, 10, white);
    const faint = png(20, 10, (x, y) => (x < 3 && y < 2 ? [250, 255, 255, 255] : [255, 255, 255, 255]));
    expect(compareImages(a, faint, 'png', tol({ threshold: 0.2 })).status).to.equal('ok');
    expect(compareImages(a, faint, 'png', tol({ maxDiffPixels: 6 }))).to.deep.include({ status: 'ok', identical: false, diffPixels: 6 });
    expect(compareImages(a, faint, 'png', tol({ maxDiffPixels: 5 })).status).to.equal('differs');
  });

  it('--max-diff-ratio: a share of the compared pixels; with --max-diff-pixels the smaller limit holds', () => {
    const a = png(20, 10, white);
    const six = png(20, 10, (x, y) => (x < 3 && y < 2 ? [0, 0, 0, 255] : [255, 255, 255, 255]));
    expect(compareImages(a, six, 'png', tol({ maxDiffRatio: 0.03 })).status).to.equal('ok');
    expect(compareImages(a, six, 'png', tol({ maxDiffRatio: 0.029 }))).to.deep.include({ status: 'differs', reason: 'ratio' });
    expect(compareImages(a, six, 'png', tol({ maxDiffRatio: 0.5, maxDiffPixels: 5 }))).to.deep.include({ status: 'differs', reason: 'pixels' });
    expect(compareImages(a, six, 'png', tol({ maxDiffRatio: 0.02, maxDiffPixels: 100 }))).to.deep.include({ status: 'differs', reason: 'ratio' });
    expect(pixelLimit(tol({}), 1000)).to.equal(0);
    expect(pixelLimit(tol({ maxDiffRatio: 0.01 }), 1000)).to.equal(10);
  });

  it('anti-aliased pixels are counted apart; --ignore-antialiasing lets them pass, not a solid change', () => {
    const a = png(20, 10, (x) => edge(128)(x));
    const b = png(20, 10, (x) => edge(100)(x));
    expect(compareImages(a, b, 'png', strict)).to.deep.include({ status: 'differs', diffPixels: 10, aaPixels: 10 });
    expect(compareImages(a, b, 'png', tol({ ignoreAntialiasing: true }))).to.deep.include({ status: 'ok', diffPixels: 0, aaPixels: 10 });
    // the same grey change inside a flat area is no anti-aliasing
    const flat = png(20, 10, (x, y) => (x === 15 && y === 5 ? [100, 100, 100, 255] : [255, 255, 255, 255]));
    expect(compareImages(png(20, 10, white), flat, 'png', tol({ ignoreAntialiasing: true }))).to.deep.include({ status: 'differs', diffPixels: 1, aaPixels: 0 });
    // anti-aliased pixels are yellow in the diff image, counted ones red
    const v = compareImages(a, b, 'png', strict);
    const d = PNG.sync.read((v as { diffPng: Buffer }).diffPng);
    expect([...d.data.subarray((5 * 20 + 10) * 4, (5 * 20 + 10) * 4 + 3)]).to.deep.equal([255, 200, 0]);
  });

  it('--max-diff-window N:K fails a dense cluster that the count lets pass, and passes the same count spread out', () => {
    const a = png(40, 40, white);
    // 16 pixels in a 4x4 block vs 16 pixels on a 10-pixel grid
    const dense = png(40, 40, (x, y) => (x >= 10 && x < 14 && y >= 10 && y < 14 ? [0, 0, 0, 255] : [255, 255, 255, 255]));
    const spread = png(40, 40, (x, y) => (x % 10 === 5 && y % 10 === 5 ? [0, 0, 0, 255] : [255, 255, 255, 255]));
    const t = tol({ maxDiffPixels: 20, window: { size: 8, max: 4 } });
    const d = compareImages(a, dense, 'png', t);
    expect(d).to.deep.include({ status: 'differs', reason: 'window', diffPixels: 16 });
    expect(d.worstWindow).to.deep.include({ count: 16 });
    const s = compareImages(a, spread, 'png', t);
    expect(s).to.deep.include({ status: 'ok', diffPixels: 16 });
    expect(s.worstWindow!.count).to.equal(1);
  });

  it('masks leave regions out; only compares the named boxes; parts count their own differing pixels', () => {
    const a = png(40, 20, white);
    const b = png(40, 20, (x, y) => (x < 5 && y < 5 ? [0, 0, 0, 255] : x >= 30 && y >= 10 ? [0, 0, 255, 255] : [255, 255, 255, 255]));
    const topLeft = { x: 0, y: 0, width: 5, height: 5 };
    const bottomRight = { x: 30, y: 10, width: 10, height: 10 };
    expect(compareImages(a, b, 'png', strict).diffPixels).to.equal(125);
    expect(compareImages(a, b, 'png', strict, { masks: [topLeft] })).to.deep.include({ status: 'differs', diffPixels: 100, comparedPixels: 775 });
    expect(compareImages(a, b, 'png', strict, { masks: [topLeft, bottomRight] })).to.deep.include({ status: 'ok', diffPixels: 0 });
    expect(compareImages(a, b, 'png', strict, { only: [{ x: 10, y: 0, width: 10, height: 20 }] })).to.deep.include({ status: 'ok', comparedPixels: 200 });
    expect(compareImages(a, b, 'png', strict, { only: [topLeft] })).to.deep.include({ status: 'differs', diffPixels: 25, comparedPixels: 25 });
    const v = compareImages(a, b, 'png', strict, { parts: { legend: topLeft, chartArea: { x: 10, y: 0, width: 10, height: 20 }, y: bottomRight } });
    expect(v.parts).to.deep.equal({ legend: 25, chartArea: 0, y: 100 });
    expect(partsVerdict(v.parts)).to.equal('legend changed (25 px), chartArea identical, y changed (100 px)');
  });

  it('the same pixels in other bytes are ok (another PNG filter)', () => {
    const a = png(16, 16, (x, y) => [x * 10, y * 7, 0, 255], 0);
    const b = png(16, 16, (x, y) => [x * 10, y * 7, 0, 255], 1);
    expect(a.equals(b)).to.equal(false);
    expect(compareImages(a, b, 'png', strict)).to.deep.include({ status: 'ok', identical: false, diffPixels: 0 });
  });

  it('another size differs by every pixel and says so; an unreadable golden says so; an SVG compares by bytes', () => {
    const v = compareImages(png(10, 10, white), png(20, 10, white), 'png', strict);
    expect(v).to.deep.include({ status: 'differs', reason: 'size', diffPixels: 200, sizeChange: '10x10 -> 20x10' });
    expect(compareImages(Buffer.from('not a png'), png(20, 10, white), 'png', strict)).to.deep.include({ status: 'differs', reason: 'unreadable' });
    expect(compareImages(Buffer.from('<svg/>'), Buffer.from('<svg />'), 'svg', strict)).to.deep.include({ status: 'differs', reason: 'bytes', diffPixels: -1 });
    expect(compareImages(Buffer.from('<svg/>'), Buffer.from('<svg/>'), 'svg', strict).status).to.equal('ok');
  });
});

describe('golden options', () => {
  it('flags: each tolerance checked, naming what is allowed', () => {
    expect(toleranceFromFlags({})).to.deep.equal({ threshold: 0, ignoreAntialiasing: false });
    expect(toleranceFromFlags({ threshold: '0.1', 'max-diff-pixels': '5', 'max-diff-ratio': '0.002', 'max-diff-window': '8:12', 'ignore-antialiasing': true })).to.deep.equal({
      threshold: 0.1,
      maxDiffPixels: 5,
      maxDiffRatio: 0.002,
      window: { size: 8, max: 12 },
      ignoreAntialiasing: true,
    });
    for (const [f, why] of [
      [{ threshold: '2' }, /--threshold must be a number from 0 to 1/],
      [{ 'max-diff-pixels': '-1' }, /--max-diff-pixels must be a whole number/],
      [{ 'max-diff-ratio': '1.5' }, /--max-diff-ratio must be a number from 0 to 1/],
      [{ 'max-diff-window': '8' }, /--max-diff-window must be N:K/],
      [{ 'max-diff-window': '4:16' }, /K from 0 to N\*N-1/],
    ] as const) {
      expect(() => toleranceFromFlags(f as ToleranceFlags)).to.throw(OptionError, why);
    }
  });

  it('NAME.golden.json: known keys only, parts and masks checked; the case replaces the flags field by field', () => {
    const o = parseCaseOptions('{"ignore":["legend","y1"],"mask":[{"x":0,"y":0,"width":100,"height":20}],"maxDiffPixels":3,"window":"6:5"}', 'bar.golden.json');
    expect(o).to.deep.equal({ ignore: ['legend', 'y1'], mask: [{ x: 0, y: 0, width: 100, height: 20 }], maxDiffPixels: 3, window: '6:5' });
    expect(caseTolerance(toleranceFromFlags({ 'max-diff-pixels': '10', 'max-diff-ratio': '0.1' }), o)).to.deep.equal({ threshold: 0, ignoreAntialiasing: false, maxDiffPixels: 3, maxDiffRatio: 0.1, window: { size: 6, max: 5 } });
    for (const [text, why] of [
      ['{"ignored":["legend"]}', /unknown option "ignored": allowed are ignore, only, mask, maxDiffPixels, maxDiffRatio, window/],
      ['{"ignore":"legend"}', /ignore must be a list of chart parts: title, subtitle, legend, chartArea or a scale id/],
      ['{"only":["le gend"]}', /only must be a list of chart parts/],
      ['{"mask":[{"x":0,"y":0,"width":0,"height":5}]}', /mask must be a list of \{"x", "y", "width", "height"\}/],
      ['{"maxDiffPixels":1.5}', /maxDiffPixels must be a whole number/],
      ['{"maxDiffRatio":2}', /maxDiffRatio must be a number from 0 to 1/],
      ['{"window":"9:99"}', /window must be N:K/],
      ['[1]', /must be a JSON object/],
      ['{', /not valid JSON/],
    ] as const) {
      expect(() => parseCaseOptions(text, 'x.golden.json'), text).to.throw(OptionError, why).with.property('message').that.contains('x.golden.json');
    }
  });

  it('masks scale by the device pixel ratio; ignore adds part boxes; only keeps the named parts; a missing part names the chart\'s parts', () => {
    const parts = { legend: { x: 10, y: 0, width: 50, height: 12 }, chartArea: { x: 30, y: 20, width: 100, height: 80 } };
    expect(regionsOf({ mask: [{ x: 1, y: 2, width: 3, height: 4 }], ignore: ['legend'] }, parts, 2)).to.deep.equal({ masks: [{ x: 2, y: 4, width: 6, height: 8 }, parts.legend] });
    expect(regionsOf({ only: ['chartArea'] }, parts, 1)).to.deep.equal({ masks: [], only: [parts.chartArea] });
    expect(missingParts({ ignore: ['legend', 'y9'] }, parts)).to.deep.equal({ name: 'y9', have: ['legend', 'chartArea'] });
    expect(missingParts({ only: ['chartArea'] }, parts)).to.equal(null);
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
    // the zone and locale a case that names none is drawn in (TIMEZONE, LOCALE); a fingerprint
    // from before they were in it has nothing to compare
    const zoned = `${was}; timezone=UTC; locale=en-US`;
    expect(rendererChange(zoned, `${was}; timezone=Asia/Tokyo; locale=de-DE`)).to.equal('renderer changed: timezone UTC -> Asia/Tokyo, locale en-US -> de-DE');
    expect(rendererChange(was, zoned)).to.equal(null);
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

  it('NAME.golden.json is the options of NAME.json, never a case; a bad one is an OptionError naming the file', () => {
    writeFileSync(join(dir, 'bar.json'), '{"chart":{}}');
    writeFileSync(join(dir, 'bar.golden.json'), '{"ignore":["legend"]}');
    const [c, ...more] = findCases(dir);
    expect(more).to.have.length(0);
    expect(c).to.deep.include({ name: 'bar', options: { ignore: ['legend'] }, optionsPath: join(dir, 'bar.golden.json') });
    writeFileSync(join(dir, 'bar.golden.json'), '{"ignore":["legend"],"tolerance":1}');
    expect(() => findCases(dir)).to.throw(OptionError, /bar\.golden\.json: unknown option "tolerance"/);
  });

  it('stale goldens: images no case names (config gone, or another format now)', () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'a.json'), '{"chart":{}}');
    writeFileSync(join(dir, 'a.png'), 'x');
    writeFileSync(join(dir, 'b.json'), '{"chart":{},"format":"svg"}');
    writeFileSync(join(dir, 'b.png'), 'x');
    writeFileSync(join(dir, 'b.svg'), 'x');
    writeFileSync(join(dir, 'sub', 'gone.png'), 'x');
    expect(staleGoldens(dir, findCases(dir))).to.deep.equal(['b.png', 'sub/gone.png']);
  });

  it('shards: every n-th case, together all of them once', () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const shards = [1, 2, 3].map((index) => shardOf(names, { index, count: 3 }));
    expect(shards).to.deep.equal([['a', 'd'], ['b', 'e'], ['c']]);
    expect(shardOf(names, undefined)).to.equal(names);
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
    { name: 'a-ok', format: 'png', status: 'ok', ms: 10, images: {} },
    { name: 'sub/<b>&"x"', format: 'png', status: 'differs', diffPixels: 12, aaPixels: 3, totalPixels: 100, comparedPixels: 100, reason: 'pixels', parts: { legend: 12, chartArea: 0 }, file: 'charts/sub/x.json', ms: 20, images: { golden: 'g.png', actual: 'a.png', diff: 'd.png' } },
    { name: 'c-missing', format: 'svg', status: 'missing', detail: 'no golden image (write it with --update=missing)', ms: 5, images: {} },
    { name: 'd-error', format: 'png', status: 'error', error: 'invalid_dimensions: width must be <= 8000', errorCode: 'invalid_dimensions', ms: 1, images: {} },
    { name: 'e-flaky', format: 'png', status: 'unstable', detail: 'two renders of the same config differ', diffPixels: 40, totalPixels: 100, ms: 1, images: {} },
  ];
  const run: RunSummary = {
    dir: 'charts',
    renderer: 'chartjs=4.6.1; chromium=157.0.1.2; fonts=3f9a1c2b',
    recorded: 'chartjs=4.6.1; chromium=156.0.8078.79; fonts=3f9a1c2b',
    rendererChange: 'renderer changed: chromium 156 -> 157',
    ms: 1234,
    tolerance: EXACT,
    stale: ['old.png'],
  };
  const onePx = png(1, 1, white);
  const files = (name: string) => (name.endsWith('.png') ? onePx : null);

  it('failures first, then unstable and the rest, each by name; exit codes', () => {
    expect(reportOrder(results).map((r) => r.name)).to.deep.equal(['c-missing', 'd-error', 'sub/<b>&"x"', 'e-flaky', 'a-ok']);
    expect(summaryLine(results, 1234)).to.equal('5 configs: 1 ok, 1 differ, 1 missing, 1 errors, 1 unstable (1.2 s)');
    expect(exitCodeOf(results)).to.equal(1);
    expect(exitCodeOf(results.filter((r) => r.status === 'ok' || r.status === 'unstable'))).to.equal(3);
    expect(exitCodeOf([{ ...results[3]!, usage: true }, ...results])).to.equal(2);
    expect(exitCodeOf([results[0]!])).to.equal(0);
  });

  it('HTML: one file, escaped names, images inlined, a CSP that allows only its own script and style, both fingerprints', () => {
    const html = reportHtml(results, run, files);
    expect(html).not.to.match(/https?:\/\//i);
    expect(html).not.to.contain('<b>&');
    expect(html).to.contain('&#60;b&#62;&#38;&#34;x&#34;');
    expect(html).to.match(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'/);
    expect(html).to.contain(`src="data:image/png;base64,${onePx.toString('base64')}"`);
    expect(html).to.contain('12 of 100 pixels (3 of them anti-aliased)');
    expect(html).to.contain('Parts: legend changed (12 px), chartArea identical');
    // said once: the detail line leaves the verdict to its own line
    expect(html.match(/legend changed \(12 px\)/g)).to.have.length(1);
    expect(html).to.contain('renderer changed: chromium 156 -&#62; 157');
    expect(html).to.contain('chromium=156.0.8078.79').and.contain('chromium=157.0.1.2');
    expect(html.indexOf('Failures (3)')).to.be.below(html.indexOf('Unstable (1)'));
    expect(html).to.contain('Stale goldens (1)');
  });

  it('JUnit XML: one testcase each, failures and errors counted, text escaped', () => {
    const xml = junitXml(results, run);
    expect(xml).to.match(/<testsuites name="chartshot" tests="5" failures="3" errors="1"/);
    expect(xml.match(/<testcase /g)).to.have.length(5);
    expect(xml).to.contain('<failure message="differs: 12 of 100 pixels (3 of them anti-aliased); legend changed (12 px), chartArea identical"/>');
    expect(xml).to.contain('<error message="invalid_dimensions: width must be &#60;= 8000"/>');
    expect(xml).to.contain('classname="chartshot.sub" name="sub/&#60;b&#62;&#38;&#34;x&#34;"');
  });

  it('summary.md and GitHub annotations: the failing and unstable cases, escaped', () => {
    const md = summaryMarkdown(results, run);
    expect(md.split('\n')[0]).to.equal('### chartshot golden images: 5 configs: 1 ok, 1 differ, 1 missing, 1 errors, 1 unstable (1.2 s)');
    expect(md).to.contain('| sub/\\<b\\>&"x" | differs | 12 of 100 pixels');
    expect(md).to.contain('| e-flaky | unstable |');
    expect(md).not.to.contain('a-ok');
    expect(md).to.contain('Stale goldens (no case): old.png');
    const notes = githubAnnotations(results).split('\n');
    expect(notes).to.have.length(4);
    expect(notes[2]).to.equal('::error file=charts/sub/x.json,title=chartshot differs%3A sub/<b>&"x"::12 of 100 pixels (3 of them anti-aliased); legend changed (12 px), chartArea identical');
    expect(notes[3]).to.match(/^::warning title=chartshot unstable%3A e-flaky::two renders/);
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
