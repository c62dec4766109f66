// The API's error codes and the status each is answered with: the one table the server's errors
// (errors.ts), the OpenAPI document's ErrorObject, the typed client (src/client/) and the tests
// read. A method a path does not take is the one exception: 405 invalid_input (http/noRoute.ts).
// No imports: the client ships this file as it is.
export const ERROR_STATUS = {
  invalid_input: 400,
  chart_required: 400,
  invalid_dimensions: 400,
  unauthorized: 401,
  invalid_session: 401,
  forbidden: 403,
  not_found: 404,
  rate_limit_exceeded: 429,
  trial_limit_reached: 429,
  internal_error: 500,
  render_failed: 500,
  url_too_long: 400,
  config_too_large: 400,
  invalid_config: 400,
  rate_limited: 429,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every code, in the table's order. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
