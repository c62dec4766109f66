// AppError and one factory per error code of the API; the error mapper turns it into {error, detail}.
// The codes and their statuses: errorCodes.ts.
import { ERROR_STATUS, type ErrorCode } from './errorCodes.js';

export type { ErrorCode };

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

export const invalidInput = (detail: string) => new AppError(ERROR_STATUS.invalid_input, 'invalid_input', detail);
export const chartRequired = (detail = 'chart (or c) is required') => new AppError(ERROR_STATUS.chart_required, 'chart_required', detail);
export const invalidDimensions = (detail: string) => new AppError(ERROR_STATUS.invalid_dimensions, 'invalid_dimensions', detail);
export const unauthorized = (detail = 'a valid API key is required') => new AppError(ERROR_STATUS.unauthorized, 'unauthorized', detail);
export const invalidSession = (detail = 'invalid or expired session token') => new AppError(ERROR_STATUS.invalid_session, 'invalid_session', detail);
export const forbidden = (detail: string) => new AppError(ERROR_STATUS.forbidden, 'forbidden', detail);
export const notFound = (detail = 'not found') => new AppError(ERROR_STATUS.not_found, 'not_found', detail);
export const rateLimitExceeded = (retryAfterS: number, detail = 'rate limit exceeded') =>
  new AppError(ERROR_STATUS.rate_limit_exceeded, 'rate_limit_exceeded', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
/** retryAfterS: seconds until the trial ends (every 429 carries Retry-After). */
export const trialLimitReached = (detail = 'trial usage exhausted (100 charts)', retryAfterS = 30 * 86400) =>
  new AppError(ERROR_STATUS.trial_limit_reached, 'trial_limit_reached', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
export const renderFailed = (detail = 'rendering failed') => new AppError(ERROR_STATUS.render_failed, 'render_failed', detail);
export const urlTooLong = (detail = 'URL longer than 8192 bytes') => new AppError(ERROR_STATUS.url_too_long, 'url_too_long', detail);
export const configTooLarge = (detail = 'c larger than 6144 bytes') => new AppError(ERROR_STATUS.config_too_large, 'config_too_large', detail);
export const invalidConfig = (detail: string) => new AppError(ERROR_STATUS.invalid_config, 'invalid_config', detail);
export const rateLimited = (retryAfterS: number, detail = 'too many renders from this address') =>
  new AppError(ERROR_STATUS.rate_limited, 'rate_limited', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
/** Overload: the pool queue is full or the wait for a page ran out. */
export const serviceUnavailable = (retryAfterS: number, detail = 'server busy, try again') =>
  new AppError(ERROR_STATUS.service_unavailable, 'service_unavailable', detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
