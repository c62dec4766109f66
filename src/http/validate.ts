// ajv validation at the edge: a route's query or body checked against its schema, failures
// mapped to the error codes of the API.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Context } from 'koa';
import { invalidDimensions, invalidInput } from '../errors.js';
import { sideRange } from '../chart/request.js';
import { malformedZoneField } from '../chart/zoneLocale.js';
import type { Plan } from '../rules/plans.js';
import type { ErrorMapper, InputSpec } from './route.js';

const ajvBody = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
const ajvQuery = new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: false });
// Form tools send "800" and "true": coerce scalar types and fill the documented defaults.
const ajvForm = new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: true });

function compile(ajv: Ajv, schema: object): ValidateFunction {
  const { $id: _ignored, ...rest } = schema as { $id?: string };
  return ajv.compile(rest);
}

/** ajv's message, with the allowed values of an enum spelled out ("must be one of png, svg"). */
export function schemaMessage(e: ErrorObject): string {
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  if (e.keyword === 'enum' && Array.isArray(allowed)) return `must be one of ${allowed.map(String).join(', ')}`;
  return e.message ?? 'is invalid';
}

/** A width or height out of the schema's range: worded as the plan check words it, for the caller's plan. */
function sideMessage(field: string, e: ErrorObject, plan: Plan | undefined): string | null {
  if ((field !== 'width' && field !== 'height') || !plan || !['minimum', 'maximum', 'type'].includes(e.keyword)) return null;
  return sideRange(field, plan);
}

/** timezone and locale are refused as their own check refuses them: 400 invalid_config with an example. */
const zoneField = (field: string) => (field === 'timezone' || field === 'locale' ? malformedZoneField(field) : null);

/** width/height problems are invalid_dimensions; everything else invalid_input, naming the field. */
const defaultErrorMapper: ErrorMapper = (e, plan) => {
  const field = (e.instancePath.replace(/^\//, '').split('/')[0] || (e.params as { missingProperty?: string }).missingProperty) ?? '';
  const zone = zoneField(field);
  if (zone) return zone;
  const detail = sideMessage(field, e, plan) ?? `${field || 'request'} ${schemaMessage(e)}`.trim();
  if (field === 'width' || field === 'height') return invalidDimensions(detail);
  return invalidInput(detail);
};

/** "/series/0/values" -> "series[0].values"; a missing property names itself. */
function fieldOf(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1);
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  if (missing) parts.push(missing);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || 'body';
}

const formErrorMapper: ErrorMapper = (e, plan) => {
  const field = fieldOf(e);
  const zone = zoneField(field);
  if (zone) return zone;
  return invalidInput(e.keyword === 'required' ? `${field} is required` : (sideMessage(field, e, plan) ?? `${field} ${schemaMessage(e)}`));
};

type InputReader = (ctx: Context) => unknown;

/** The caller's plan when a key authenticated the request (auth runs before the input check). */
const planOf = (ctx: Context): Plan | undefined => (ctx.state?.auth as { plan?: Plan } | undefined)?.plan;

/** Reads ctx.query (spec.in 'query') or the JSON body and returns it once it passed spec.schema. */
export function inputReader(spec: InputSpec): InputReader {
  if (spec.form) return formReader(spec.schema);
  const check = compile(spec.in === 'query' ? ajvQuery : ajvBody, spec.schema);
  const mapError = spec.mapError ?? defaultErrorMapper;
  const notObject = spec.optional ? 'the body must be a JSON object (or empty)' : 'the body must be a JSON object';
  return (ctx) => {
    let raw: unknown;
    if (spec.in === 'query') {
      raw = { ...ctx.query };
      // Repeated query parameters arrive as arrays: take none of them.
      for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
        if (Array.isArray(v)) throw invalidInput(`${k} is given more than once`);
      }
    } else {
      raw = (ctx.request as { body?: unknown }).body;
    }
    // A required body that is absent or null is checked as {}: the schema (or the service) names what is missing.
    const input = raw === undefined || (raw === null && !spec.optional) ? {} : raw;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidInput(notObject);
    if (!check(input)) throw mapError(check.errors![0]!, planOf(ctx));
    return input;
  };
}

function formReader(schema: object): InputReader {
  const check = compile(ajvForm, schema);
  return (ctx) => {
    const body = (ctx.request as { body?: unknown }).body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidInput('the body must be a JSON object');
    // Defaults are written into the object validated: work on a copy.
    const input = structuredClone(body) as Record<string, unknown>;
    if (!check(input)) throw formErrorMapper(check.errors![0]!, planOf(ctx));
    return input;
  };
}
