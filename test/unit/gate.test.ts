import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { findGateViolation } from '../../src/chart/gate.js';
import { MAX_LITERAL, tokenize } from '../../src/chart/jsTokens.js';
import { MAX_PARSE_CHARS, MAX_PARSE_DEPTH, parsedCodeKind } from '../../src/chart/jsParse.js';
import { MAX_PARSES_PER_CONFIG } from '../../src/chart/gate.js';

interface Fixture {
  name: string;
  config: unknown;
}

function loadFixtures(file: string): Fixture[] {
  return JSON.parse(readFileSync(new URL(`../../fixtures/gate/${file}`, import.meta.url), 'utf8')) as Fixture[];
}

/** A minimal valid config with one string placed at options.plugins.title.text or in data. */
function withOption(text: string): unknown {
  return { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { title: { text } } } };
}
function withLabel(label: string): unknown {
  return { type: 'bar', data: { labels: [label], datasets: [{ label, data: [1] }] } };
}
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('security gate (open endpoint)', () => {
  describe('fixtures', () => {
    const hostile = loadFixtures('hostile.json');
    const legit = loadFixtures('legit.json');

    it('has a corpus of at least 110 hostile and 110 legit configs with unique names', () => {
      expect(hostile.length).to.be.at.least(110);
      expect(legit.length).to.be.at.least(110);
      expect(new Set(hostile.map((f) => f.name)).size).to.equal(hostile.length);
      expect(new Set(legit.map((f) => f.name)).size).to.equal(legit.length);
    });

    it('refuses every hostile config', () => {
      const admitted = hostile.filter((f) => findGateViolation(f.config) === null).map((f) => f.name);
      expect(admitted, `hostile configs admitted: ${admitted.join('; ')}`).to.deep.equal([]);
    });

    it('admits every legit config', () => {
      const refused = legit
        .map((f) => [f.name, findGateViolation(f.config)] as const)
        .filter(([, reason]) => reason !== null)
        .map(([name, reason]) => `${name}: ${reason}`);
      expect(refused, `legit configs refused: ${refused.join('; ')}`).to.deep.equal([]);
    });

    it('gives short human-readable reasons', () => {
      for (const f of hostile) {
        const reason = findGateViolation(f.config)!;
        expect(reason.length, f.name).to.be.within(5, 200);
      }
    });
  });

  describe('never throws, whatever the input', () => {
    it('refuses non-object configs', () => {
      for (const v of [null, undefined, 0, 42, NaN, '', 'bar', '{"type":"bar"}', true, [], [{ type: 'bar' }], Symbol('x'), 10n, () => 1]) {
        expect(findGateViolation(v)).to.be.a('string');
      }
    });

    it('refuses a cyclic object without looping', () => {
      const config: Record<string, unknown> = { type: 'bar', data: { datasets: [] } };
      const options: Record<string, unknown> = { plugins: {} };
      options.self = options;
      config.options = options;
      expect(findGateViolation(config)).to.equal('config too deeply nested');
      const arr: unknown[] = [];
      arr.push(arr);
      expect(findGateViolation({ type: 'line', data: { labels: arr } })).to.equal('config too deeply nested');
    });

    it('refuses 10,000-deep nesting without a stack overflow', () => {
      expect(findGateViolation({ type: 'bar', options: nested(10_000) })).to.equal('config too deeply nested');
      let arr: unknown = [];
      for (let i = 0; i < 10_000; i++) arr = [arr];
      expect(findGateViolation({ type: 'bar', data: { labels: arr } })).to.equal('config too deeply nested');
      // the same through JSON.parse, as the endpoint sees it
      const json = `{"type":"bar","data":{"labels":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
      expect(findGateViolation(JSON.parse(json))).to.equal('config too deeply nested');
    });

    it('bounds depth at 32 levels (the config object is level 1)', () => {
      // options itself is level 2, so nested(31) ends at level 32
      expect(findGateViolation({ type: 'bar', options: nested(31) })).to.equal(null);
      expect(findGateViolation({ type: 'bar', options: nested(32) })).to.equal('config too deeply nested');
    });

    it('bounds the number of values at 100,000', () => {
      const ok = { type: 'line', data: { datasets: [{ data: new Array<number>(99_000).fill(1) }] } };
      expect(findGateViolation(ok)).to.equal(null);
      const big = { type: 'line', data: { datasets: [{ data: new Array<number>(100_001).fill(1) }] } };
      expect(findGateViolation(big)).to.equal('config too large');
      const wide = { type: 'line', data: Object.fromEntries(Array.from({ length: 100_001 }, (_, i) => [`k${i}`, i])) };
      expect(findGateViolation(wide)).to.equal('config too large');
      // a sparse array claims a huge length: refused before walking it
      const sparse: unknown[] = [];
      sparse.length = 2 ** 31;
      expect(findGateViolation({ type: 'line', data: { labels: sparse } })).to.equal('config too large');
    });

    it('refuses a DAG that multiplies through shared references', () => {
      let node: unknown = ['x'];
      for (let i = 0; i < 25; i++) node = [node, node];
      expect(findGateViolation({ type: 'bar', data: { labels: node } })).to.equal('config too large');
    });

    it('refuses values parsed JSON cannot contain', () => {
      const cases: unknown[] = [
        { type: 'bar', options: { callback: () => 1 } },
        { type: 'bar', options: { s: Symbol('x') } },
        { type: 'bar', options: { n: 10n } },
        { type: 'bar', options: { when: new Date() } },
        { type: 'bar', options: { m: new Map() } },
        { type: 'bar', options: { r: /x/ } },
        { type: 'bar', options: { [Symbol('k')]: 1 } },
        Object.assign(Object.create({ inherited: true }) as object, { type: 'bar' }),
      ];
      for (const c of cases) expect(findGateViolation(c)).to.be.a('string');
    });

    it('turns a throwing getter or proxy into a refusal', () => {
      const getter = { type: 'bar', options: {} };
      Object.defineProperty(getter.options, 'x', { enumerable: true, get: () => { throw new Error('boom'); } });
      expect(findGateViolation(getter)).to.equal('config could not be checked');
      const proxy = new Proxy({ type: 'bar' }, { ownKeys: () => { throw new Error('boom'); } });
      expect(findGateViolation(proxy)).to.be.a('string');
    });

    it('accepts null-prototype objects and undefined values', () => {
      const options = Object.create(null) as Record<string, unknown>;
      options.plugins = { title: { text: 'ok' } };
      expect(findGateViolation({ type: 'bar', data: { datasets: [{ data: [1, undefined] }] }, options })).to.equal(null);
    });
  });

  describe('rule: chart type', () => {
    it('accepts the eight chart types', () => {
      for (const type of ['bar', 'line', 'pie', 'doughnut', 'radar', 'polarArea', 'scatter', 'bubble']) {
        expect(findGateViolation({ type, data: { datasets: [{ type, data: [] }] } }), type).to.equal(null);
      }
    });

    it('names the refused type', () => {
      expect(findGateViolation({ type: 'sunburst' })).to.equal('unsupported chart type "sunburst"');
      expect(findGateViolation({ type: 'polararea' })).to.equal('unsupported chart type "polararea"');
      expect(findGateViolation({ data: {} })).to.match(/type/);
      expect(findGateViolation({ type: 'bar', data: { datasets: [{ data: [] }, { type: 'heatmap', data: [] }] } }))
        .to.equal('unsupported dataset type "heatmap" at config.data.datasets[1]');
    });

    it('does not echo an unprintable type back', () => {
      expect(findGateViolation({ type: '<script>alert(1)</script>' })).to.equal('unsupported chart type (unprintable)');
    });
  });

  describe('rule: top-level plugins', () => {
    it('refuses any top-level plugins key', () => {
      for (const plugins of [[], [{ id: 'x' }], {}, null, 'x']) {
        expect(findGateViolation({ type: 'bar', plugins })).to.equal('top-level plugins are not allowed');
      }
    });

    it('allows options.plugins objects (annotation, datalabels)', () => {
      const config = { type: 'bar', options: { plugins: { annotation: { annotations: { l: { type: 'line', yMin: 1, yMax: 1 } } }, datalabels: { color: '#333' } } } };
      expect(findGateViolation(config)).to.equal(null);
    });
  });

  describe('rule: forbidden keys', () => {
    it('refuses __proto__, constructor and prototype keys anywhere', () => {
      const parsed = JSON.parse('{"type":"bar","data":{"datasets":[{"data":[1],"__proto__":{"x":1}}]}}') as unknown;
      expect(findGateViolation(parsed)).to.equal('forbidden key "__proto__" at config.data.datasets[0]');
      expect(findGateViolation({ type: 'bar', options: { constructor: 1 } })).to.equal('forbidden key "constructor" at config.options');
      expect(findGateViolation({ type: 'bar', data: { labels: [{ prototype: 1 }] } })).to.equal('forbidden key "prototype" at config.data.labels[0]');
    });

    it('checks keys like values', () => {
      expect(findGateViolation({ type: 'bar', options: { 'https://evil.example': 1 } })).to.match(/remote URL/);
      expect(findGateViolation({ type: 'bar', data: { datasets: [{ data: { 'https://example.com/': 1 } }] } })).to.equal(null);
      expect(findGateViolation({ type: 'bar', data: { datasets: [{ data: { '<script>': 1 } }] } })).to.match(/HTML markup/);
    });
  });

  describe('rule: code-like strings outside data', () => {
    const refused: Array<[string, RegExp]> = [
      ["function(v){return v}", /function expression/],
      ['Function("x")', /function expression/],
      ['v => v * 2', /arrow function/],
      ['eval(1)', /code call/],
      ['EVAL  (1)', /code call/],
      ['setTimeout(x, 1)', /code call/],
      ["import('x')", /code call/],
      ["new Function ('return 1')", /function expression/],
      ['a.constructor.constructor', /prototype access/],
      ['document.title', /DOM access/],
      ['<b>bold</b>', /HTML markup/],
      ['onerror=alert(1)', /event handler/],
      ['javascript:void(0)', /script URL/],
      ['JaVaScRiPt :alert(1)', /script URL/],
      ['\\u006aavascript:alert(1)', /script URL/],
      ['&#106;avascript:alert(1)', /script URL/],
      ['%6Aavascript:alert(1)', /script URL/],
      ['java\u200bscript:alert(1)', /script URL/],
      ['\u0065\u200dval(1)', /code call/],
      ['e&#x76;al(1)', /code call/],
      ['data:text/html,hi', /active data: URL/],
      ['url(x.woff)', /CSS url/],
      // parsed whole by acorn: every function or arrow is refused in an option value, also
      // one that names a value ("Revenue => profit" is an arrow function to JavaScript)
      ['_ => 0', /arrow function/],
      ['ctx => ({ size: 12 })', /arrow function/],
      ['Revenue => profit', /arrow function/],
      ['x => 42', /arrow function/],
      ['async _ => 0', /arrow function/],
      ['[_ => 0]', /arrow function/],
      ['Title: _ => 0', /arrow function/],
      ['_ => 0;', /arrow function/],
      ['({ raw }) => raw', /arrow function/],
      ['function f() {}', /function expression/],
      ['class {}', /class/],
      ['(1, window.eval)?.("x")', /code call|DOM access/],
      ['new self.Function("x")', /code call|DOM access/],
      ['window[`setTimeout`]("x", 1)', /code call|DOM access/],
      ['`a${1}b`', /template substitution/],
      ['_ =\u003e 0', /arrow function/],
    ];
    for (const [text, reason] of refused) {
      it(`refuses ${JSON.stringify(text)}`, () => expect(findGateViolation(withOption(text))).to.match(reason));
    }

    it('names where the string was found', () => {
      expect(findGateViolation(withOption('eval(1)'))).to.equal('looks like code (code call) at config.options.plugins.title.text');
    });

    it('does not take a newline inside a word for a call', () => {
      expect(findGateViolation(withOption('e\nval (1)'))).to.equal(null);
    });

    // Prose with arrows and parentheses that does not parse as JavaScript (acorn says so)
    const admitted = ['a => b is how we write it', 'Sales (EUR) -> up', 'Revenue -> profit', '2019 => 2020 growth', 'Sales (EUR) => up 5%', 'f(x) = x^2', 'Quarterly sales (2024)', 'Profit & Loss: FY 2024', 'Rate: 3.5 req/s', 'rgba(0, 0, 0, 0.5)', 'hsl(120deg 50% 50% / 0.2)',
      "yyyy-MM-dd'T'HH:mm", "'Helvetica Neue', Arial, sans-serif", 'x < 5', 'HTTP: 200 responses', 'Source file: data.csv', '売上（百万円）', 'e.g. 50%'];
    for (const text of admitted) {
      it(`admits ${JSON.stringify(text)}`, () => expect(findGateViolation(withOption(text))).to.equal(null));
    }
  });

  describe('rule: remote URLs outside data', () => {
    const urls = ['https://evil.example/x.png', 'http://evil.example', 'ftp://evil.example/f', '//evil.example/x', 'ws://evil.example',
      'wss://evil.example', 'file:///etc/passwd', 'HTTPS://EVIL.EXAMPLE', 'https:evil.example', 'h%74tps://evil.example', 'ht\ttps://evil.example'];
    for (const url of urls) {
      it(`refuses ${JSON.stringify(url)} in options`, () => expect(findGateViolation(withOption(url))).to.match(/remote URL/));
    }

    it('refuses a URL in a pointStyle option, admits it in data', () => {
      const inOptions = { type: 'line', options: { elements: { point: { pointStyle: 'https://evil.example/p.png' } } } };
      expect(findGateViolation(inOptions)).to.equal('looks like code (remote URL) at config.options.elements.point.pointStyle');
      const inData = { type: 'line', data: { datasets: [{ pointStyle: 'https://example.com/p.png', data: [1] }] } };
      expect(findGateViolation(inData)).to.equal(null);
    });
  });

  describe('rule: only unambiguous code inside data', () => {
    const admitted = ['Revenue => profit', 'x => 42', '_ => 0', 'a => b => c', 'a => b is how we write it', 'Sales (EUR) -> up', 'function of time', 'eval score', 'constructor costs', 'https://example.com/page', 'JavaScript: 62%',
      'Import(s) by region', 'x<y', 'Medieval (500-1500)', 'R&D', 'onload=fast', 'Sales => 5.2%', '👨‍👩‍👧 families', 'window.open rate'];
    for (const label of admitted) {
      it(`admits ${JSON.stringify(label)}`, () => expect(findGateViolation(withLabel(label))).to.equal(null));
    }

    const refused: Array<[string, RegExp]> = [
      ['<script>alert(1)</script>', /HTML markup/],
      ['< SCRIPT >', /HTML markup/],
      ['%3Cscript%3E', /HTML markup/],
      ['<a href="javascript:alert(1)">x</a>', /HTML with script/],
      ['javascript:alert(1)', /script URL/],
      ['function (v) { return v }', /function expression/],
      ['x => { return x }', /arrow function/],
      ['(ctx) => ctx.raw', /arrow function/],
      ['v => alert(v)', /arrow function/],
      ['eval(x)', /code call/],
      ["new Function('x')", /code call/],
      ["setTimeout('x()')", /code call/],
      ['a.constructor.constructor', /prototype access/],
      ['data:text/html,<b>x</b>', /active data: URL/],
      // parsed whole: an arrow that uses its parameter, destructures, or returns anything but a name or literal
      ['ctx => ({ size: 12 })', /arrow function/],
      ['({ raw }) => raw', /arrow function/],
      ['_ => fetch("/x")', /arrow function/],
      ['(a = 1) => 2', /arrow function/],
      ['async x => 1', /arrow function/],
      ['x => /re/', /arrow function/],
      ['(0, eval)("x")', /code call/],
      ['self["eval"]("x")', /code call|DOM access/],
    ];
    for (const [label, reason] of refused) {
      it(`refuses ${JSON.stringify(label)}`, () => expect(findGateViolation(withLabel(label))).to.match(reason));
    }
  });

  describe('cost', () => {
    it('admits a realistic 6 KB config (its speed is measured by npm run bench, not here)', () => {
      const labels = Array.from({ length: 118 }, (_, i) => `Label ${i}: café (${i}%) https://ex.com/${i}`);
      const config = { type: 'line', data: { labels, datasets: [{ label: 'Series', data: labels.map((_, i) => i) }] }, options: { plugins: { title: { text: 'Rate: 3.5 req/s (USD)' } } } };
      expect(JSON.stringify(config).length).to.be.within(5000, 6144);
      expect(findGateViolation(config)).to.equal(null);
    });

    it('has no pathological regex cases on 6 KB strings', () => {
      const nasty = ['function' + ' '.repeat(6000), '/*'.repeat(3000), '<a'.repeat(3000), '('.repeat(6000), '&#'.repeat(3000),
        'a=>'.repeat(2000), 'function('.repeat(700), 'x'.repeat(6000) + '=>', '\\u'.repeat(3000), 'javascript:' + ' '.repeat(6000)];
      for (const s of nasty) {
        const start = performance.now();
        findGateViolation(withOption(s));
        findGateViolation(withLabel(s));
        // catastrophic backtracking would take seconds or hang; a loose bound keeps noise out
        expect(performance.now() - start, JSON.stringify(s.slice(0, 12))).to.be.below(1000);
      }
    });
  });
});

describe('parser bounds (fail closed)', () => {
  it('skips strings that cannot be code without parsing them', () => {
    for (const text of ['Quarterly sales', 'e.g. 50%', 'Rate: 3.5 req/s', 'rgba(0, 0, 0, 0.5)', 'f(x) = x^2', `f(${'x'.repeat(MAX_PARSE_CHARS)})`]) {
      expect(parsedCodeKind(text, true)).to.equal(null);
    }
  });

  it('refuses a candidate longer than MAX_PARSE_CHARS or nested deeper than MAX_PARSE_DEPTH unparsed', () => {
    expect(parsedCodeKind(`eval(${'x'.repeat(MAX_PARSE_CHARS)})`, true)).to.equal('too long to check');
    expect(parsedCodeKind('('.repeat(MAX_PARSE_DEPTH - 1) + 'eval(1)' + ')'.repeat(MAX_PARSE_DEPTH - 1), true)).to.equal('code call');
    expect(parsedCodeKind('('.repeat(MAX_PARSE_DEPTH) + 'eval(1)' + ')'.repeat(MAX_PARSE_DEPTH), true)).to.equal('too deeply nested to check');
    expect(parsedCodeKind('a=>'.repeat(MAX_PARSE_DEPTH + 1) + '0', false)).to.equal('too deeply nested to check');
    expect(parsedCodeKind('(a)=>'.repeat(MAX_PARSE_DEPTH + 1) + '0', false)).to.equal('too deeply nested to check');
    // arrows in a list do not nest: prose with many of them is parsed (and is prose)
    expect(parsedCodeKind('Sales (EUR) => up 5%, '.repeat(200), true)).to.equal(null);
    expect(findGateViolation(withLabel(`${'{'.repeat(6000)}a`))).to.match(/too deeply nested to check/);
  });

  it('turns a stack overflow inside the parser into a refusal, never a throw', () => {
    // unary operators recurse without brackets; whatever the stack, the answer is a string or null
    expect(parsedCodeKind(`${'!'.repeat(MAX_PARSE_CHARS - 7)}eval(x)`, true)).to.equal('too deeply nested to check');
    expect(findGateViolation(withOption(`${'- '.repeat(3000)}eval(x)`))).to.be.a('string');
    expect(findGateViolation(withLabel(`${'!'.repeat(6000)}eval(x)`))).to.be.a('string');
  });

  it('parses at most MAX_PARSES_PER_CONFIG strings of one config, then refuses it', () => {
    // set notation in labels: harmless, but only a parse can tell
    const labels = Array.from({ length: MAX_PARSES_PER_CONFIG }, (_, i) => `{${i}}`);
    const ok = { type: 'bar', data: { labels, datasets: [{ data: [1] }] } };
    expect(findGateViolation(ok)).to.equal(null);
    const over = { type: 'bar', data: { labels: [...labels, '{a, b}'], datasets: [{ data: [1] }] } };
    expect(findGateViolation(over)).to.match(/^too many strings that may be code to check/);
    // answered without a parse, so not counted: prose arrows in data, strings naming no code
    const prose = Array.from({ length: 1000 }, (_, i) => (i % 2 ? `Q${i} => Q${i + 1}` : `Imports ${i} (EUR)`));
    expect(findGateViolation({ type: 'bar', data: { labels: prose, datasets: [{ data: [1] }] } })).to.equal(null);
  });
});

describe('parser fast path for prose arrows in data', () => {
  it('gives the answer of the parser on arrow-shaped text', () => {
    const parts = ['x', 'y', 'Q1', 'Q2', '42', '1.5', 'this', 'null', 'true', 'async', 'eval', 'new', '$', '_', 'x.y', 'f(x)', '{}', '`a`', ' '];
    let checked = 0;
    for (const a of parts) for (const b of parts) for (const c of [null, ...parts]) {
      const text = c === null ? `${a} => ${b}` : `${a} => ${b} => ${c}`;
      expect(parsedCodeKind(text, false), text).to.equal(parsedCodeKind(text, false, undefined, false));
      checked++;
    }
    expect(checked).to.be.above(7000);
  });
});

describe('tokenizer cost', () => {
  it('a quote or slash that never closes is looked for within MAX_LITERAL characters: cost linear in the text', () => {
    for (const unit of ['(/[', '"\\', "'\\", '/', '"']) {
      for (const reps of [1000, 8000]) {
        const text = unit.repeat(reps);
        const stats = { literalChars: 0 };
        tokenize(text, 1_000_000, stats);
        // quadratic scanning examined about text.length^2 / 2 characters here (millions)
        expect(stats.literalChars, `${JSON.stringify(unit)} x ${reps}`).to.be.at.most((MAX_LITERAL + 1) * text.length);
      }
    }
  });

  it('a string or regular expression within the bound is still one token', () => {
    const long = 'x'.repeat(MAX_LITERAL - 1);
    expect(tokenize(`'${long}'`).map((t) => t.kind)).to.deep.equal(['str']);
    expect(tokenize(`(/${long}/g)`).map((t) => t.kind)).to.deep.equal(['p', 're', 'p']);
    // past it the quote is a punctuator and the text after it stays visible
    expect(tokenize(`'${'x'.repeat(MAX_LITERAL + 10)} eval(1)'`).some((t) => t.kind === 'id' && t.v === 'eval')).to.equal(true);
  });
});
