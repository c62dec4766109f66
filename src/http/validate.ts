// ajv validation at the edge, mapped to SPEC's error codes.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Middleware } from 'koa';
import { invalidDimensions, invalidInput, type AppError } from '../errors.js';

const ajvBody = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
const ajvQuery = new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: false });

const cache = new WeakMap<object, ValidateFunction>();

function compile(schema: object, coerce: boolean): ValidateFunction {
  let v = cache.get(schema);
  if (!v) {
    const { $id: _ignored, ...rest } = schema as { $id?: string };
    v = (coerce ? ajvQuery : ajvBody).compile(rest);
    cache.set(schema, v);
  }
  return v;
}

export type ErrorMapper = (e: ErrorObject) => AppError;

/** width/height problems are invalid_dimensions; everything else invalid_input, naming the field. */
export const defaultErrorMapper: ErrorMapper = (e) => {
  const field = (e.instancePath.replace(/^\//, '').split('/')[0] || (e.params as { missingProperty?: string }).missingProperty) ?? '';
  const detail = `${field || 'request'} ${e.message ?? 'is invalid'}`.trim();
  if (field === 'width' || field === 'height') return invalidDimensions(detail);
  return invalidInput(detail);
};

/** Validates ctx.request.body (POST) or ctx.query (GET); the value validated is left on ctx.state.input. */
export function validate(schema: object, where: 'body' | 'query', mapError: ErrorMapper = defaultErrorMapper): Middleware {
  const check = compile(schema, where === 'query');
  return async (ctx, next) => {
    const raw = where === 'body' ? (ctx.request as { body?: unknown }).body : { ...ctx.query };
    // Repeated query parameters arrive as arrays: take none of them.
    if (where === 'query') {
      for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
        if (Array.isArray(v)) throw invalidInput(`${k} is given more than once`);
      }
    }
    const input = raw ?? {};
    if (typeof input !== 'object' || Array.isArray(input)) throw invalidInput('the body must be a JSON object');
    if (!check(input)) throw mapError(check.errors![0]!);
    ctx.state.input = input;
    await next();
  };
}

export function validator(schema: object, coerce = false): ValidateFunction {
  return compile(schema, coerce);
}
