import { expect } from 'chai';
import {
  canonicalJson, checkColor, CSS_COLOR_NAMES, checkDimensions, checkFormat, parseChartConfig, requestDigest, type RenderRequest,
} from '../../src/chart/request.js';
import { PLANS } from '../../src/rules/plans.js';
import { AppError } from '../../src/errors.js';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return (err as AppError).code;
  }
  return 'no error';
}

describe('chart request normalisation', () => {
  it('accepts a config object or a JSON string of one', () => {
    expect(parseChartConfig({ type: 'bar', data: {} })).to.deep.equal({ type: 'bar', data: {} });
    expect(parseChartConfig('{"type":"line"}')).to.deep.equal({ type: 'line' });
  });

  it('missing chart -> chart_required; bad JSON or shape -> invalid_input', () => {
    expect(codeOf(() => parseChartConfig(undefined))).to.equal('chart_required');
    expect(codeOf(() => parseChartConfig(''))).to.equal('chart_required');
    expect(codeOf(() => parseChartConfig('{type:'))).to.equal('invalid_input');
    expect(codeOf(() => parseChartConfig('[1,2]'))).to.equal('invalid_input');
    expect(codeOf(() => parseChartConfig(42))).to.equal('invalid_input');
    expect(codeOf(() => parseChartConfig({ data: {} }))).to.equal('invalid_input');
    expect(codeOf(() => parseChartConfig({ type: 3 }))).to.equal('invalid_input');
  });

  it('a config without top-level type is fine when every dataset names one', () => {
    expect(() => parseChartConfig({ data: { datasets: [{ type: 'bar', data: [1] }, { type: 'line', data: [2] }] } })).not.to.throw();
  });

  it('dimensions: 1..2000 on trial and starter, with the pixel cap; strings of digits accepted', () => {
    expect(checkDimensions(1, 1, PLANS.starter)).to.deep.equal({ width: 1, height: 1 });
    expect(checkDimensions('2000', '2000', PLANS.starter)).to.deep.equal({ width: 2000, height: 2000 });
    for (const [w, h] of [[0, 10], [10, 0], [2001, 10], [10, 2001], [1.5, 10], ['abc', 10], [-5, 10], [undefined, 10], [10, null]] as const) {
      expect(codeOf(() => checkDimensions(w, h, PLANS.starter)), `${w}x${h}`).to.equal('invalid_dimensions');
    }
    expect(checkDimensions(4000, 4000, PLANS.growth)).to.deep.equal({ width: 4000, height: 4000 });
    expect(codeOf(() => checkDimensions(4001, 10, PLANS.growth))).to.equal('invalid_dimensions');
    expect(codeOf(() => checkDimensions(8000, 8001, PLANS.enterprise))).to.equal('invalid_dimensions');
    expect(checkDimensions(8000, 8000, PLANS.enterprise)).to.deep.equal({ width: 8000, height: 8000 }); // exactly 64M pixels
    expect(codeOf(() => checkDimensions(4000, 4001, { ...PLANS.growth, maxSide: 8000 }))).to.equal('invalid_dimensions'); // 16,004,000 > 16M
  });

  it('formats: png default, svg, pdf only for enterprise', () => {
    expect(checkFormat(undefined)).to.equal('png');
    expect(checkFormat('svg', PLANS.starter)).to.equal('svg');
    expect(codeOf(() => checkFormat('pdf', PLANS.growth))).to.equal('invalid_input');
    expect(checkFormat('pdf', PLANS.enterprise)).to.equal('pdf');
    expect(codeOf(() => checkFormat('jpeg', PLANS.enterprise))).to.equal('invalid_input');
  });

  it('colours: CSS forms accepted, anything else refused', () => {
    for (const c of ['#fff', '#ffffff80', 'white', 'transparent', 'rgb(1, 2, 3)', 'rgba(0,0,0,0.5)', 'hsl(120 50% 50%)']) {
      expect(checkColor(c), c).to.equal(c);
    }
    expect(checkColor(undefined)).to.equal(null);
    for (const c of ['url(http://x)', 'red;background:url(x)', '#12', 'expression(alert(1))', 42]) {
      expect(codeOf(() => checkColor(c)), String(c)).to.equal('invalid_input');
    }
  });

  it("colour names: CSS's 148 (any case), transparent and currentcolor; any other word is refused", async () => {
    // the list is CSS Color 4's: the color-name package (a dependency of a dependency) holds the same
    const { default: reference } = (await import('color-name' as string)) as { default: Record<string, unknown> };
    expect([...CSS_COLOR_NAMES].filter((n) => n !== 'transparent' && n !== 'currentcolor').sort()).to.deep.equal(Object.keys(reference).sort());
    for (const c of ['RebeccaPurple', 'DarkSlateGrey', 'currentColor', 'TRANSPARENT']) expect(checkColor(c), c).to.equal(c);
    // found by an outside probe: "zzz" passed as a name and drew black bars on the Zapier endpoints
    for (const c of ['zzz', 'bogus', 'nope', 'reddish', 'inherit', 'initial']) expect(codeOf(() => checkColor(c)), c).to.equal('invalid_input');
  });

  it('canonical JSON ignores key order, keeps __proto__ keys as data', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).to.equal(canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    expect(canonicalJson(hostile)).to.contain('__proto__');
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('digest differs when anything that changes the image differs', () => {
    const base: RenderRequest = { config: { type: 'bar' }, width: 10, height: 10, format: 'png', backgroundColor: null, allowFunctions: false, watermark: null };
    const d = requestDigest(base);
    expect(requestDigest({ ...base })).to.equal(d);
    expect(requestDigest({ ...base, width: 11 })).not.to.equal(d);
    expect(requestDigest({ ...base, format: 'svg' })).not.to.equal(d);
    expect(requestDigest({ ...base, backgroundColor: '#fff' })).not.to.equal(d);
    expect(requestDigest({ ...base, watermark: 'x' })).not.to.equal(d);
    expect(requestDigest({ ...base, config: { type: 'line' } })).not.to.equal(d);
  });
});
