// AppError and one factory per error code of the API; the error mapper turns it into {error, detail}.
export type ErrorCode =
  | 'invalid_input'
  | 'chart_required'
  | 'invalid_dimensions'
  | 'unauthorized'
  | 'invalid_session'
  | 'forbidden'
  | 'not_found'
  | 'rate_limit_exceeded'
  | 'trial_limit_reached'
  | 'internal_error'
  | 'render_failed'
  | 'url_too_long'
  | 'config_too_large'
  | 'invalid_config'
  | 'rate_limited'
  | 'service_unavailable';

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail?: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ? `${code}: ${detail}` : code);
    this.name = 'AppError';
  }
}

export const invalidInput = (detail: string) => new AppError(400, 'invalid_input', detail);
export const chartRequired = (detail = 'chart (or c) is required') => new AppError(400, 'chart_required', detail);
export const invalidDimensions = (detail: string) => new AppError(400, 'invalid_dimensions', detail);
export const unauthorized = (detail = 'a valid API key is required') => new AppError(401, 'unauthorized', detail);
export const invalidSession = (detail = 'invalid or expired session token') => new AppError(401, 'invalid_session', detail);
export const forbidden = (detail: string) => new AppError(403, 'forbidden', detail);
export const notFound = (detail = 'not found') => new AppError(404, 'not_found', detail);
export const rateLimitExceeded = (retryAfterS: number, detail = 'rate limit exceeded') =>
  new AppError(429, 'rate_limit_exceeded', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
/** retryAfterS: seconds until the trial ends (every 429 carries Retry-After). */
export const trialLimitReached = (detail = 'trial usage exhausted (100 charts)', retryAfterS = 30 * 86400) =>
  new AppError(429, 'trial_limit_reached', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
export const renderFailed = (detail = 'rendering failed') => new AppError(500, 'render_failed', detail);
export const urlTooLong = (detail = 'URL longer than 8192 bytes') => new AppError(400, 'url_too_long', detail);
export const configTooLarge = (detail = 'c larger than 6144 bytes') => new AppError(400, 'config_too_large', detail);
export const invalidConfig = (detail: string) => new AppError(400, 'invalid_config', detail);
export const rateLimited = (retryAfterS: number, detail = 'too many renders from this address') =>
  new AppError(429, 'rate_limited', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
/** Overload: the pool queue is full or the wait for a page ran out. */
export const serviceUnavailable = (retryAfterS: number, detail = 'server busy, try again') =>
  new AppError(503, 'service_unavailable', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
