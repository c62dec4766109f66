// The render call's text on the Node side (renderer-page/protocol.d.ts RequestText, AnswerText):
// the arguments sent, the answer read back.
import { expect } from 'chai';
import { fromAnswerText, wireArguments } from '../../src/render/wire.js';

describe('wireArguments', () => {
  const options = { width: 100, height: 80, format: 'png' as const, backgroundColor: null, allowFunctions: false, watermark: null };

  it('the options as JSON text, the config text on its own, as it is', () => {
    const configJson = '{"type":"bar","data":{"labels":["a \\"b\\""]}}';
    const [head, json, deflated, js] = wireArguments({ ...options, configJson });
    expect(JSON.parse(head)).to.deep.equal(options);
    expect([json, deflated, js]).to.deep.equal([configJson, null, null]);
  });

  it('a deflated config and a JavaScript config each in their own place, never in the options', () => {
    const [head, json, deflated, js] = wireArguments({ ...options, allowFunctions: true, configDeflated: 'eJwr', configJs: '({ type: "bar" })' });
    expect(JSON.parse(head)).to.deep.equal({ ...options, allowFunctions: true });
    expect([json, deflated, js]).to.deep.equal([null, 'eJwr', '({ type: "bar" })']);
  });
});

describe('fromAnswerText', () => {
  it('a drawn image: the fields up to the first newline, the image after it, whole', () => {
    const image = 'iVBORw0KGgo' + 'A'.repeat(100) + '==';
    expect(fromAnswerText(`{"ok":true,"ms":2.5,"ranFunctions":false,"needsReset":false}\n${image}`)).to.deep.equal({ ok: true, ms: 2.5, ranFunctions: false, needsReset: false, data: image });
  });

  it('an SVG keeps its own newlines: only the first one ends the fields', () => {
    const svg = '<svg>\n<g>\n</g>\n</svg>';
    expect(fromAnswerText(`{"ok":true,"ms":1}\n${svg}`)).to.deep.equal({ ok: true, ms: 1, data: svg });
  });

  it('a refused render: its fields, and no data even when something follows', () => {
    expect(fromAnswerText('{"ok":false,"error":"bad","ranFunctions":false,"needsReset":true}\nAAAA')).to.deep.equal({ ok: false, error: 'bad', ranFunctions: false, needsReset: true });
  });

  it('anything that is not an answer string is no answer', () => {
    for (const bad of [undefined, null, 1, { ok: true, data: 'AAAA' }, 'AAAA', '{"ok":true', 'not json\nAAAA', '[true]\nAAAA', 'null\nAAAA', '"ok"\nAAAA']) {
      expect(fromAnswerText(bad), JSON.stringify(bad)).to.equal(undefined);
    }
  });
});
