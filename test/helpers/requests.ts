// Parsed render requests for unit tests that need one without going through the parser.
import type { RenderRequest } from '../../src/chart/request.js';

/** A one-bar PNG request, 100x50, functions allowed, no watermark; `overrides` change any field. */
export function renderRequest(overrides: Partial<RenderRequest> = {}): RenderRequest {
  return {
    config: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } },
    width: 100,
    height: 50,
    format: 'png',
    backgroundColor: null,
    allowFunctions: true,
    watermark: null,
    ...overrides,
  };
}
