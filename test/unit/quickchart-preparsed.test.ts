// A config text parsed elsewhere (a worker, for large JSON5) is used as the inline parse would be.
import { expect } from 'chai';
import { configTextToPreparse, INLINE_JSON5_MAX_CHARS, parseConfigSource } from '../../src/chart/quickchart.js';
import { AppError } from '../../src/errors.js';

describe('parseConfigSource with a config text parsed elsewhere', () => {
  const text = "{type:'bar',data:{datasets:[{data:[1,2]}]},}";

  it('takes the JSON5 value given for exactly this text; a value for another text is ignored', () => {
    const value = { type: 'line', data: { datasets: [] } };
    expect(parseConfigSource(text, true, 'c', { text, kind: 'data', value })).to.deep.equal({ config: value });
    expect(parseConfigSource(text, true, 'c', { text: `${text} `, kind: 'data', value })).to.deep.equal({ config: { type: 'bar', data: { datasets: [{ data: [1, 2] }] } } });
  });

  it('"invalid" is what a failed JSON5 parse is: JavaScript for a key holder, refused without a key', () => {
    expect(parseConfigSource(text, true, 'c', { text, kind: 'invalid' })).to.deep.equal({ configJs: text });
    expect(() => parseConfigSource(text, false, 'c', { text, kind: 'invalid' })).to.throw(AppError, /neither JSON nor a JavaScript object literal/);
  });

  it('"json" is parsed here, natively; the nesting limit still comes first', () => {
    expect(parseConfigSource('{"type":"bar"}', true, 'c', { text: '{"type":"bar"}', kind: 'json' })).to.deep.equal({ config: { type: 'bar' }, configJson: '{"type":"bar"}' });
    const deep = `{a:${'['.repeat(200)}${']'.repeat(200)}}`;
    expect(() => parseConfigSource(deep, true, 'c', { text: deep, kind: 'data', value: { a: [] } })).to.throw(AppError, /nests deeper/);
  });

  it('only texts longer than INLINE_JSON5_MAX_CHARS are handed out to be parsed elsewhere', () => {
    const big = `{type:'bar',options:{title:'${'x'.repeat(INLINE_JSON5_MAX_CHARS)}'}}`;
    expect(configTextToPreparse({ c: text })).to.equal(null);
    expect(configTextToPreparse({ c: big })).to.equal(big);
    expect(configTextToPreparse({ chart: `  ${big}\n` })).to.equal(big);
    expect(configTextToPreparse({ c: { type: 'bar' } })).to.equal(null);
    expect(configTextToPreparse({ c: Buffer.from(big).toString('base64'), encoding: 'base64' })).to.equal(big);
    expect(configTextToPreparse({ c: big, encoding: 'hex' })).to.equal(null);
  });
});
