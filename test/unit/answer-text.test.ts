// The page's answer string (renderer-page/protocol.d.ts AnswerText) read back on the Node side.
import { expect } from 'chai';
import { fromAnswerText } from '../../src/render/page.js';

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
