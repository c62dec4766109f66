// The query string, parsed once per request in linear time and capped in size, before
// authentication and routing. Koa's own ctx.query calls URLSearchParams.getAll once per key,
// which is quadratic in repeated keys (8,000 of them cost 0.45 s of event loop per request).
import type { Context } from 'koa';
import { checkRequestTarget } from '../chart/open.js';
import { invalidConfig, invalidInput } from '../errors.js';

/** More parameters than any route takes by far (the open endpoint has 8). */
export const MAX_QUERY_PARAMS = 100;

/** A parameter given once is a string; given more often, an array (as Koa would give it). */
export type ParsedQuery = Record<string, string | string[]>;

const OPEN_CHART = /^\/v1\/open\/chart\/?$/;

/** Number of non-empty "&"-separated parameters, counting stops past `limit` (linear). */
export function countParams(raw: string, limit: number): number {
  let n = 0;
  let start = 0;
  while (start <= raw.length && n <= limit) {
    let end = raw.indexOf('&', start);
    if (end < 0) end = raw.length;
    if (end > start) n++;
    start = end + 1;
  }
  return n;
}

/** Parses a raw query string (no leading "?"); null when it has more than maxParams parameters. */
export function parseQuery(raw: string, maxParams = MAX_QUERY_PARAMS): ParsedQuery | null {
  if (countParams(raw, maxParams) > maxParams) return null;
  const out: ParsedQuery = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    const prev = Object.prototype.hasOwnProperty.call(out, k) ? out[k] : undefined;
    // defineProperty: a key named "__proto__" stays an own data property
    const value = prev === undefined ? v : Array.isArray(prev) ? (prev.push(v), prev) : [prev, v];
    Object.defineProperty(out, k, { value, writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/**
 * Before auth and routing (envelope.ts): parses ctx.querystring once and puts the result where ctx.query reads it, so that every
 * later reader (auth's api_key, validate, routes) gets this bounded parse. Too many parameters:
 * 400 invalid_input, or invalid_config on the open endpoint (which answers with its own codes).
 */
export function parseRequestQuery(ctx: Context, maxParams = MAX_QUERY_PARAMS): void {
  const open = OPEN_CHART.test(ctx.path);
  // the open endpoint answers an over-long target with its own code before anything else
  if (open) checkRequestTarget(ctx.originalUrl);
  const parsed = parseQuery(ctx.querystring, maxParams);
  if (!parsed) {
    const detail = `the query string has more than ${maxParams} parameters`;
    throw open ? invalidConfig(detail) : invalidInput(detail);
  }
  Object.defineProperty(ctx.request, 'query', { value: parsed, writable: true, configurable: true, enumerable: true });
}
