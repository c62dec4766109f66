// Big configs cross the service once: one JSON text per config, shared by the digest and the
// page; the digest is one hash over that text.
import { expect } from 'chai';
import { configJsonOf, parseChartConfig, renderDigest, requestDigest, type RenderRequest } from '../../src/chart/request.js';
import { nestingDepth } from '../../src/chart/jsonDepth.js';

const base: RenderRequest = { config: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } }, width: 10, height: 10, format: 'png', backgroundColor: null, allowFunctions: true, watermark: null };

describe('render digest and config JSON', () => {
  it('a config that came as JSON text is handed on as that text; an object is serialised once', () => {
    const text = '{ "type": "line", "data": {"datasets": [{"data": [1, 2]}]} }';
    const config = parseChartConfig(text);
    expect(configJsonOf(config)).to.equal(text);
    const obj = { type: 'bar', data: { datasets: [] } };
    const json = configJsonOf(obj);
    expect(json).to.equal(JSON.stringify(obj));
    expect(configJsonOf(obj)).to.equal(json);
  });

  it('differs whenever anything that decides the image differs', () => {
    const d = renderDigest(base);
    expect(renderDigest({ ...base })).to.equal(d);
    for (const other of [
      { ...base, width: 11 },
      { ...base, height: 11 },
      { ...base, format: 'svg' as const },
      { ...base, backgroundColor: '#fff' },
      { ...base, allowFunctions: false },
      { ...base, watermark: 'x' },
      { ...base, config: { type: 'line' } },
    ]) {
      expect(renderDigest(other)).not.to.equal(d);
    }
    // never equal to the open endpoint's canonical digest of the same request
    expect(renderDigest(base)).not.to.equal(requestDigest(base));
  });

  it('keeps key order: a data object lists its labels in key order, so reordered keys are another image', () => {
    const a = { ...base, config: { type: 'bar', data: { datasets: [{ data: { Jan: 1, Feb: 2 } }] } } };
    const b = { ...base, config: { type: 'bar', data: { datasets: [{ data: { Feb: 2, Jan: 1 } }] } } };
    expect(renderDigest(a)).not.to.equal(renderDigest(b));
  });

  it('hashes 100,000 points in one pass, far below the canonical digest', () => {
    const data = Array.from({ length: 100_000 }, (_, i) => ({ x: i, y: (i * 7919) % 1000 }));
    const req = { ...base, config: { type: 'line', data: { datasets: [{ data }] } } };
    const d = renderDigest(req);
    expect(d).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(renderDigest({ ...req })).to.equal(d);
  });

  it('nestingDepth: strings skipped whatever they hold, escapes included', () => {
    expect(nestingDepth('{"a":[1,{"b":"[[[{{{"}]}')).to.equal(3);
    expect(nestingDepth('["\\"[[[", [[1]]]')).to.equal(3);
    expect(nestingDepth('"unterminated [[[')).to.equal(0);
    expect(nestingDepth('[[[]]]'.repeat(2))).to.equal(3);
    expect(nestingDepth('[' .repeat(5000))).to.equal(5000);
  });
});
