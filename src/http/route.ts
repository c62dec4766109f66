// What a route is: one descriptor feeds the router (auth, rate limit, input check, handler) and
// the OpenAPI document (parameters, request body, responses, error codes), so they cannot drift.
import type { RouterContext } from '@koa/router';
import type { ErrorObject } from 'ajv';
import type { Middleware } from 'koa';
import type { AppError, ErrorCode } from '../errors.js';
import type { FromSchema } from './schemaType.js';
import type { Plan } from '../rules/plans.js';
import type { State } from './state.js';

/**
 * Who may call: anyone, an API key, an API key or a signed URL, a session token, the metrics
 * token; QuickChart's callers (quickchartKey: a key in X-Api-Key, or key/api_key in the query or
 * the JSON body; quickchartKeyOptional: the same, or none at all when QUICKCHART_ANONYMOUS allows
 * keyless use); a dashboard page's signed-in visitor (the session cookie).
 */
export type RouteAuth = 'none' | 'apiKey' | 'apiKeyOrSigned' | 'session' | 'metricsToken' | 'quickchartKey' | 'quickchartKeyOptional' | 'dashboardSession';

/**
 * How the error mapper answers a refusal: the error object {error, detail}, or QuickChart's way
 * (an image of the message in the requested format, the message in X-quickchart-error).
 */
export type ErrorFormat = 'json' | 'quickchart';

/** Per-account limits after auth; on generation routes the trial cap is checked first. */
export type RouteRateLimit = 'generation' | 'render' | 'request';

/** Turns the first schema failure into the error the route answers with (plan: the caller's, when a key authenticated it). */
export type ErrorMapper = (e: ErrorObject, plan?: Plan) => AppError;

export interface InputSpec {
  in: 'query' | 'body';
  schema: object;
  /** body: an absent body is an empty object (JSON null or a non-object is still refused). */
  optional?: boolean;
  /** Form tools' input: scalars coerced ("800", "true"), defaults filled, errors name the field path. */
  form?: boolean;
  mapError?: ErrorMapper;
}

/** The handler's input: the type of a value that passed the route's schema. */
export type InputOf<I> = I extends { schema: infer S; form: true } ? FromSchema<S, true> : I extends { schema: infer S } ? FromSchema<S> : undefined;

type Json = Record<string, unknown>;
export interface SuccessDoc {
  description: string;
  headers?: Json;
  content?: Json;
}
export interface ErrorDoc {
  description: string;
  codes: readonly ErrorCode[];
  headers?: Json;
  /** The body when it is not the error object (e.g. an image of the message). */
  content?: Json;
}
export interface ParamDoc {
  description: string;
  schema: object;
}

export interface RouteDoc {
  tags: string[];
  operationId: string;
  summary: string;
  description?: string;
  /** Every `:name` of the path. */
  params?: Record<string, ParamDoc>;
  /** Query parameters read by the page in the browser, not by the server. */
  pageQuery?: Record<string, ParamDoc>;
}

export interface Route<I extends InputSpec | undefined> {
  /** 'ANY': every method the router knows (a page's fallback). */
  method: 'GET' | 'POST' | 'ANY';
  /** Router syntax: /v1/chart/:id */
  path: string;
  auth: RouteAuth;
  rateLimit?: RouteRateLimit;
  /** How this route's errors are answered (errors.ts); 'json' when absent. */
  errorFormat?: ErrorFormat;
  /**
   * A server-rendered page (the dashboard), not an API operation: not in /openapi.json, and its
   * path matches exactly (case and trailing slash), as the pages always matched.
   */
  page?: true;
  /** Checks before the schema, with codes of their own (e.g. size limits). */
  precheck?: Middleware;
  input?: I;
  doc: RouteDoc;
  /** Success responses by status. */
  responses: Record<string, SuccessDoc>;
  /** Error responses by status, with the codes each can carry. */
  errors: Record<string, ErrorDoc>;
  /** `pendingRate`: the request's rate decision when it is still being made (rateLimit 'render'):
   *  the render may start, but counts and answers nothing before it settles. */
  handler(ctx: RouterContext<State>, input: InputOf<I>, pendingRate: Promise<void> | undefined): Promise<void> | void;
}

/** A route with its input type erased, as the route table holds it. */
export interface RouteDescriptor extends Omit<Route<InputSpec | undefined>, 'handler'> {
  handler(ctx: RouterContext<State>, input: never, pendingRate: Promise<void> | undefined): Promise<void> | void;
}

/** A fixed file (a page's script, style or icon): not part of the API, not in the document. */
export interface StaticAsset {
  path: string;
  file: { type: string; body: Buffer | string; headers: Record<string, string> };
}

export type RouteEntry = RouteDescriptor | StaticAsset;

export const isAsset = (e: RouteEntry): e is StaticAsset => 'file' in e;

/**
 * QuickChart's callers are known only once the body is read (the key may be in it): their
 * guard reads the body (quickchartAuth.ts). Every other route's body is read by the router,
 * after auth and the rate limit, with the limit of its caller's class.
 */
export const authReadsBody = (a: RouteAuth): boolean => a === 'quickchartKey' || a === 'quickchartKeyOptional';

/** Documented in /openapi.json: every route but the server-rendered pages. */
export const isDocumented = (e: RouteEntry): e is RouteDescriptor => !isAsset(e) && !e.page;

/** Types the handler's input from `input.schema`. */
export function route<const I extends InputSpec | undefined = undefined>(r: Route<I>): RouteDescriptor {
  return r;
}
