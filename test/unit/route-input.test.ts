// A route's input: typed by its schema at compile time (FromSchema; `npm run typecheck` fails if
// a line marked @ts-expect-error compiles), checked by the same schema at run time (inputReader).
import { expect } from 'chai';
import type { Context } from 'koa';
import type { FromSchema } from '../../src/http/schemaType.js';
import { inputReader } from '../../src/http/validate.js';
import { route } from '../../src/http/route.js';
import { barChartSchema } from '../../src/http/schemas/automation.js';
import { openChartQuerySchema } from '../../src/http/schemas/open.js';

const querySchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' }, days: { type: 'integer', default: 30 }, kind: { enum: ['a', 'b'] } },
} as const;

const ctxWith = (query: Record<string, unknown>, body?: unknown) => ({ query, request: { body } }) as unknown as Context;

describe('route input', () => {
  it('is typed by its schema: required, optional, defaulted (form) and enum properties', () => {
    const plain: FromSchema<typeof querySchema> = { id: 'x' };
    const days: number | undefined = plain.days;
    // @ts-expect-error days is optional without ajv's defaults
    const notDefaulted: number = plain.days;
    // @ts-expect-error id is required
    const missing: FromSchema<typeof querySchema> = { days: 1 };
    // @ts-expect-error kind is 'a' | 'b'
    const wrongEnum: FromSchema<typeof querySchema> = { id: 'x', kind: 'c' };
    const form: FromSchema<typeof barChartSchema, true> = {
      title: 't', labels: 'a', values: '1', width: 1, height: 1, format: 'svg', backgroundColor: 'white', color: '#000', showLegend: true, showGrid: false,
    };
    const width: number = form.width;
    const open: FromSchema<typeof openChartQuerySchema> = {};
    // @ts-expect-error w is a number once validated
    open.w = '100';
    expect([days, notDefaulted, missing, wrongEnum, width]).to.have.length(5);
  });

  it('reaches the handler typed, without a cast', () => {
    const r = route({
      method: 'GET',
      path: '/x',
      auth: 'none',
      input: { in: 'query', schema: querySchema },
      doc: { tags: [], operationId: 'x', summary: 'x' },
      responses: {},
      errors: {},
      handler: (_ctx, input) => {
        const id: string = input.id;
        // @ts-expect-error days may be absent
        const days: number = input.days;
        void [id, days];
      },
    });
    expect(r.path).to.equal('/x');
  });

  it('is checked at run time by the same schema: query values coerced, forms given their defaults', () => {
    expect(inputReader({ in: 'query', schema: querySchema })(ctxWith({ id: 'x', days: '7' }))).to.deep.equal({ id: 'x', days: 7 });
    expect(() => inputReader({ in: 'query', schema: querySchema })(ctxWith({ days: '7' }))).to.throw(/id/);
    expect(() => inputReader({ in: 'query', schema: querySchema })(ctxWith({ id: ['a', 'b'] }))).to.throw(/more than once/);
    const bar = inputReader({ in: 'body', schema: barChartSchema, form: true })(ctxWith({}, { title: 't', labels: 'a,b', values: '1,2', width: '300' }));
    expect(bar).to.include({ width: 300, height: 400, format: 'png', showLegend: true });
  });

  it('an optional body may be absent but not null; a required one is checked as {} when absent or null', () => {
    const optional = inputReader({ in: 'body', schema: { type: 'object' }, optional: true });
    expect(optional(ctxWith({}, undefined))).to.deep.equal({});
    expect(() => optional(ctxWith({}, null))).to.throw(/or empty/);
    const required = inputReader({ in: 'body', schema: { type: 'object' } });
    expect(required(ctxWith({}, null))).to.deep.equal({});
    expect(() => required(ctxWith({}, [1]))).to.throw('the body must be a JSON object');
  });
});
