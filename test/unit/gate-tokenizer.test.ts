// Why the gate keeps its own tokenizer (src/chart/jsTokens.ts) beside acorn's parser
// (decision 15, "Why not acorn's tokenizer"): the gate reads prose that may hide code, and prose is
// not JavaScript. acorn's tokenizer stops with an error at the first apostrophe, inch mark or
// character outside the language, so the code after it is never seen; the gate's tokenizer
// treats such a character as a punctuator and goes on, and finds the code.
import { expect } from 'chai';
import { tokenizer } from 'acorn';
import { findCode } from '../../src/chart/jsTokens.js';

/** The token labels acorn's tokenizer gives, or the error that stopped it. */
function acornTokens(text: string): { labels: string[]; error: string | null } {
  const labels: string[] = [];
  try {
    for (const t of tokenizer(text, { ecmaVersion: 'latest' })) labels.push(t.type.label);
    return { labels, error: null };
  } catch (e) {
    return { labels, error: (e as Error).message };
  }
}

describe("the gate's tokenizer reads prose acorn's tokenizer cannot", () => {
  // de-obfuscated and lower-cased, as the gate hands strings to findCode
  const cases: Array<{ text: string; strict: boolean; kind: string; acorn: RegExp }> = [
    { text: "don't eval(1) now", strict: false, kind: 'code call', acorn: /Unterminated string constant/ },
    { text: "it's `${fetch('/x')}` items", strict: false, kind: 'template substitution', acorn: /Unterminated string constant/ },
    { text: "5' 10\" tall; settimeout(x, 1)", strict: true, kind: 'code call', acorn: /Unterminated string constant/ },
    { text: 'total: #€ eval(2)', strict: false, kind: 'code call', acorn: /Unexpected character/ },
    { text: "price 5 € self['eval'](1)", strict: false, kind: 'DOM access', acorn: /Unexpected character/ },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.text)}: acorn stops before the code, the gate finds ${c.kind}`, () => {
      const a = acornTokens(c.text);
      expect(a.error, 'acorn tokenizes it whole').to.match(c.acorn);
      // acorn never reached the call: no "(" after the name in what it gave
      expect(a.labels).to.not.include('(');
      expect(findCode(c.text, c.strict)).to.equal(c.kind);
    });
  }

  it('on text that is JavaScript both see the same call', () => {
    expect(acornTokens('eval(1)').labels).to.deep.equal(['name', '(', 'num', ')']);
    expect(findCode('eval(1)', false)).to.equal('code call');
  });
});
