// The words route descriptors describe their responses with: shared headers, content types and
// the error responses every authenticated, rendering route can give.
import type { ErrorCode } from '../errors.js';
import type { ErrorDoc, SuccessDoc } from './route.js';

type Json = Record<string, unknown>;

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const rateLimitHeaders = {
  'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
};
export const retryAfter = { 'Retry-After': headerRef('Retry-After') };

export const json = (schema: Json, description: string, headers?: Json): SuccessDoc => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});

const binary = (type: string) => ({ type: 'string', contentMediaType: type });
export const pdfContent = { 'application/pdf': { schema: binary('application/pdf') } };
export const imageContent = (pdf = false): Json => ({
  'image/png': { schema: binary('image/png') },
  'image/svg+xml': { schema: { type: 'string', contentMediaType: 'image/svg+xml' } },
  ...(pdf ? pdfContent : {}),
});
export const htmlPage = (description: string): SuccessDoc => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

export const CHART_BAD: readonly ErrorCode[] = ['invalid_input', 'chart_required', 'invalid_dimensions'];

/** Error responses of every route behind an API key, the rate limit and a render. */
export function renderErrors(badCodes: readonly ErrorCode[]): Record<string, ErrorDoc> {
  return {
    '400': { description: 'Invalid request.', codes: badCodes, headers: rateLimitHeaders },
    '401': { description: 'Missing or invalid API key (or signature).', codes: ['unauthorized'] },
    '403': { description: 'The account is suspended or cancelled: new charts are disabled.', codes: ['forbidden'], headers: rateLimitHeaders },
    '429': {
      description: "Rate limit or trial cap reached, or (trial keys) the account's page time is spent (PAGE_BUDGET_MS).",
      codes: ['rate_limit_exceeded', 'trial_limit_reached'],
      headers: { ...retryAfter, ...rateLimitHeaders },
    },
    '500': { description: 'Server or rendering error.', codes: ['internal_error', 'render_failed'] },
    '503': {
      description:
        'Every renderer is busy, the database (PostgreSQL) cannot be reached for the moment, or (requests with a body) the server is receiving as many body bytes as it may (MAX_BODY_BYTES_IN_FLIGHT); retry after Retry-After seconds.',
      codes: ['service_unavailable'],
      headers: retryAfter,
    },
  };
}

export const invalidSession: ErrorDoc = { description: 'Invalid or expired session token.', codes: ['invalid_session'] };
