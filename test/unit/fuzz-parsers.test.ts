// Fuzzing at unit level: the pure parsers under fast-check with many runs. Whatever the
// input, they return a value or throw an AppError with a 4xx status: never a TypeError, a
// RangeError or anything the error mapper would turn into a 500. FUZZ_SEED / FUZZ_RUNS as in
// test/integration/fuzz.test.ts.
import { expect } from 'chai';
import fc from 'fast-check';
import { AppError } from '../../src/errors.js';
import { checkColor, checkDimensions, checkFormat, parseChartConfig, requestDigest } from '../../src/chart/request.js';
import { parseOpenQuery, type OpenChartQuery } from '../../src/chart/open.js';
import { findGateViolation } from '../../src/chart/gate.js';
import { findCode, tokenize } from '../../src/chart/jsTokens.js';
import { parsedCodeKind } from '../../src/chart/jsParse.js';
import { AUTOMATION_BUILDERS, parseLabels, parseSeries, parseValues, splitList } from '../../src/chart/automation.js';
import { PLANS } from '../../src/rules/plans.js';
import { nestingDepth } from '../../src/chart/jsonDepth.js';

const SEED = Number(process.env.FUZZ_SEED ?? 7_0307);
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 3000;
const params = { numRuns: RUNS, seed: SEED };

/** Runs f; a throw must be a client-error AppError. Returns what f returned (or undefined). */
function clientErrorsOnly<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (err) {
    if (!(err instanceof AppError)) throw new Error(`threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
    expect(err.status).to.be.within(400, 499);
    return undefined;
  }
}

const protoKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'then', 'toJSON');
/** Any value, including objects with prototype-named own keys, getters excluded (inputs are parsed JSON). */
const anyValue = fc.oneof(
  fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: true, withMap: false, withSet: false, withSparseArray: true, withTypedArray: true, maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 5 }),
  fc.dictionary(fc.oneof(fc.string(), protoKeys), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }).map((o) => JSON.parse(JSON.stringify(o)) as unknown),
  fc.string().map((s) => `{"__proto__":{"polluted":1},"type":${JSON.stringify(s)}}`),
);

const chartShaped = fc.record(
  {
    type: fc.oneof(fc.constantFrom('bar', 'line', 'pie', 'bubble', 'Bar', ''), anyValue),
    data: fc.oneof(
      fc.record({ labels: anyValue, datasets: fc.oneof(fc.array(fc.oneof(fc.record({ type: anyValue, data: anyValue }, { requiredKeys: [] }), anyValue), { maxLength: 4 }), anyValue) }, { requiredKeys: [] }),
      anyValue,
    ),
    options: anyValue,
    plugins: anyValue,
  },
  { requiredKeys: [] },
);

describe('pure parsers under fast-check (never throw anything but a 4xx AppError)', function () {
  this.timeout(60_000);
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).join(',');

  it('parseChartConfig: objects, JSON strings and garbage; a returned config digests', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, chartShaped, chartShaped.map((c) => JSON.stringify(c)), fc.string()), (raw) => {
        const config = clientErrorsOnly(() => parseChartConfig(raw));
        if (config !== undefined) {
          expect(config).to.be.an('object');
          const digest = requestDigest({ config, width: 1, height: 1, format: 'png', backgroundColor: null, allowFunctions: false, watermark: null });
          expect(digest).to.match(/^[A-Za-z0-9_-]{43}$/);
        }
      }),
      params,
    );
  });

  it('checkDimensions / checkFormat: any width, height and format on every plan', () => {
    const dim = fc.oneof(anyValue, fc.integer(), fc.double(), fc.constantFrom('12', ' 12 ', '1e3', '0x10', '-1', '', '2001', '99999999999999999999'));
    fc.assert(
      fc.property(dim, dim, anyValue, fc.constantFrom(...Object.values(PLANS)), (w, h, f, plan) => {
        const r = clientErrorsOnly(() => checkDimensions(w, h, plan));
        if (r) {
          expect(Number.isInteger(r.width) && r.width >= 1 && r.width <= plan.maxSide).to.equal(true);
          expect(Number.isInteger(r.height) && r.height >= 1 && r.height <= plan.maxSide).to.equal(true);
          expect(r.width * r.height).to.be.at.most(plan.maxPixels);
        }
        const format = clientErrorsOnly(() => checkFormat(f, plan));
        if (format !== undefined) expect(plan.formats).to.include(format);
      }),
      params,
    );
  });

  it('checkColor: whatever is accepted is a short string without quotes, angle brackets or semicolons', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, fc.string(), fc.string({ unit: fc.constantFrom('#', 'a', 'f', '0', '(', ')', ',', ' ', ';', '"', '<', 'r', 'g', 'b', '%', '.', '/') })), (v) => {
        const c = clientErrorsOnly(() => checkColor(v));
        if (typeof c === 'string') {
          expect(c.length).to.be.at.most(100);
          expect(c).to.not.match(/["'<>;{}\\]/);
        }
      }),
      params,
    );
  });

  it('parseOpenQuery: random query objects; only the open endpoint codes come out', () => {
    const field = fc.option(fc.oneof(fc.string(), fc.constantFrom('bar', 'pie', '1,2,3', 'a,b', '500', '0', 'svg', 'png', 'white', '{"type":"bar","data":{"datasets":[{"data":[1]}]}}')), { nil: undefined });
    const query = fc.record({ c: fc.oneof(field, chartShaped.map((c) => JSON.stringify(c)), anyValue.map((v) => JSON.stringify(v) ?? '')), type: field, data: field, labels: field, w: fc.oneof(field, fc.integer()), h: fc.oneof(field, fc.integer()), format: field, bkg: field }, { requiredKeys: [] });
    fc.assert(
      fc.property(query, (q) => {
        try {
          const r = parseOpenQuery(q as OpenChartQuery);
          expect(r.render.allowFunctions).to.equal(false);
          expect(r.render.watermark).to.be.a('string');
          expect(findGateViolation(r.config)).to.equal(null);
        } catch (err) {
          if (!(err instanceof AppError)) throw new Error(`threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
          expect(['invalid_config', 'config_too_large', 'url_too_long']).to.include(err.code);
        }
      }),
      params,
    );
  });

  it('findGateViolation: never throws, whatever the value (cycles and deep nesting included)', () => {
    const cyclic = fc.jsonValue({ maxDepth: 3 }).map((v) => {
      const o: Record<string, unknown> = { v };
      o.self = o;
      return o;
    });
    const deep = fc.integer({ min: 10, max: 3000 }).map((d) => JSON.parse('{"a":'.repeat(d) + '1' + '}'.repeat(d)) as unknown);
    fc.assert(
      fc.property(fc.oneof(anyValue, chartShaped, cyclic, deep), (v) => {
        const r = findGateViolation(v);
        expect(r === null || typeof r === 'string').to.equal(true);
      }),
      params,
    );
  });

  it('automation: list parsers and the four builders on inputs of the validated shape', () => {
    const list = fc.oneof(fc.string(), fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.double().map(String), fc.integer().map(String)), { maxLength: 12 }).map((a) => a.join(',')));
    fc.assert(
      fc.property(list, (t) => {
        expect(splitList(t)).to.be.an('array');
        clientErrorsOnly(() => parseLabels(t));
        const values = clientErrorsOnly(() => parseValues(t));
        if (values) for (const n of values) expect(Number.isFinite(n)).to.equal(true);
      }),
      params,
    );
    const common = { title: fc.string({ minLength: 1 }), labels: list, values: list, width: fc.integer({ min: 1, max: 8000 }), height: fc.integer({ min: 1, max: 8000 }), format: fc.constantFrom('png' as const, 'svg' as const), backgroundColor: fc.string({ maxLength: 100 }), showLegend: fc.boolean(), showGrid: fc.boolean() };
    const inputs = fc.oneof(
      fc.record({ kind: fc.constant('bar' as const), input: fc.record({ ...common, color: fc.string({ maxLength: 100 }) }) }),
      fc.record({ kind: fc.constant('line' as const), input: fc.record({ ...common, color: fc.string({ maxLength: 100 }), fillArea: fc.boolean(), showPoints: fc.boolean(), tension: fc.double({ min: 0, max: 1, noNaN: true }) }) }),
      fc.record({ kind: fc.constant('pie' as const), input: fc.record({ ...common, colors: fc.option(list, { nil: undefined }), legendPosition: fc.constantFrom('top' as const, 'bottom' as const, 'left' as const, 'right' as const) }) }),
      fc.record({ kind: fc.constant('multi' as const), input: fc.record({ ...common, type: fc.constantFrom('bar' as const, 'line' as const), series: fc.oneof(anyValue, fc.string(), fc.array(fc.record({ name: anyValue, values: fc.oneof(list, anyValue), color: anyValue }, { requiredKeys: [] }), { maxLength: 5 })) }) }),
    );
    fc.assert(
      fc.property(inputs, ({ kind, input }) => {
        const built = clientErrorsOnly(() => (AUTOMATION_BUILDERS[kind] as (i: unknown) => { chart: unknown })(input));
        if (built) expect(clientErrorsOnly(() => parseChartConfig(built.chart))).to.be.an('object');
      }),
      params,
    );
    fc.assert(
      fc.property(anyValue, (v) => {
        clientErrorsOnly(() => parseSeries(v as string));
      }),
      params,
    );
  });

  it('nestingDepth agrees with the parsed depth of any JSON text', () => {
    const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depthOf)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
        const text = JSON.stringify(v);
        expect(nestingDepth(text)).to.equal(depthOf(JSON.parse(text)));
      }),
      params,
    );
  });

  it('the gate tokenizer: any JavaScript-ish text tokenizes and is judged without throwing', () => {
    const piece = fc.constantFrom('(', ')', '{', '}', '[', ']', '=>', '`', '${', '"', "'", '/', '/*', '*/', '//', '\\', '\n', ' ', '.', '?.', ',', '=',
      'eval', 'function', 'class', 'async', 'x', '1', '1e5', 'self', 'window', 'constructor', 'new', 'get', '*', '$5', 'é',
      '!', '?', ':', ';', 'yield', 'await', '#x', '0n', '/re/g', 'import', 'super', 'this', 'let');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), fc.boolean(), (parts, strict) => {
        const text = parts.join('');
        const kind = findCode(text, strict);
        expect(kind === null || typeof kind === 'string').to.equal(true);
        const tokens = tokenize(text);
        expect(tokens.length).to.be.at.most(text.length);
        // the parser's answer: a kind, a refusal unchecked, or null; never a throw
        const parsed = parsedCodeKind(text, strict);
        expect(parsed === null || typeof parsed === 'string').to.equal(true);
      }),
      params,
    );
  });

  it('parseOpenQuery: any number in any capped option is rendered-or-refused, never a non-AppError', () => {
    const key = fc.constantFrom('count', 'maxTicksLimit', 'stepSize', 'sides', 'size', 'radius', 'borderWidth', 'padding', 'borderDash', 'labels', 'unit', 'min', 'max');
    const value = fc.oneof(fc.double(), fc.integer(), fc.string({ maxLength: 8 }), fc.array(fc.double(), { maxLength: 20 }), fc.constant(null), fc.dictionary(fc.string({ maxLength: 3 }), fc.double(), { maxKeys: 12 }));
    fc.assert(
      fc.property(key, value, fc.constantFrom('time', 'linear', 'logarithmic', 'timeseries'), (k, v, type) => {
        const config = { type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2], [k]: v }] }, options: { scales: { x: { type, [k]: v, ticks: { [k]: v }, time: { [k]: v } } } } };
        clientErrorsOnly(() => parseOpenQuery({ c: JSON.stringify(config) }));
      }),
      params,
    );
  });

  it('nothing reached Object.prototype', () => {
    expect(Object.getOwnPropertyNames(Object.prototype).join(',')).to.equal(protoBefore);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });
});
