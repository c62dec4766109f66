// What renders golden cases: the server's own engine in this process (offline), or a running
// server through the typed client. Either way a case file is a POST /v1/chart body, passed on
// whole: every field the API knows reaches the render, new ones included.
import type { Context } from 'koa';
import type { Config } from '../config.js';
import type { AuthContext } from '../services/accounts.js';
import { PLANS } from '../rules/plans.js';
import { AppError, invalidInput } from '../errors.js';
import { MAX_JSON_DEPTH, nestingDepth } from '../chart/jsonDepth.js';
import { Chartshot, ChartshotError, type ChartRequest } from '../client/index.js';
import type { Box } from './compare.js';

export interface Rendered {
  body: Buffer;
  renderer: string | null;
  /** The chart's part boxes in image pixels (offline PNG renders); absent when not known. */
  parts?: Record<string, Box>;
}

export interface Engine {
  render(body: Record<string, unknown>): Promise<Rendered>;
  /** What renders here (Chart.js 4); null until known (a server says it with its first image). */
  renderer(): string | null;
  close(): Promise<void>;
}

/** A render that failed as the API would refuse it: its error code and detail. */
export class RenderRefused extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

// Offline renders stand for the largest plan with a live key: no watermark, every format.
const OFFLINE_CALLER = { plan: PLANS.enterprise, key: { kind: 'live' }, account: { id: 'cli', status: 'active' } } as unknown as AuthContext;

/** The server's engine in this process: the body checked by the route's schema, normalised as the service does, drawn by the same pool. */
export async function offlineEngine(config: Config, jobs: number): Promise<Engine> {
  // imported here, not at the top: bad usage (exit 2) and --server runs never load the renderer.
  // One after another: jest's ESM loader fails imports of one graph made at once ("not in cache").
  const { createLogger } = await import('../log.js');
  const { startPool } = await import('../render/renderer.js');
  const { RenderService } = await import('../services/render.js');
  const { buildRenderRequest } = await import('../services/charts.js');
  const { inputReader } = await import('../http/validate.js');
  const { chartRequestBodySchema } = await import('../http/schemas/chart.js');
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  const pool = await startPool({ ...config, poolSize: jobs, maxQueue: Math.max(config.maxQueue, jobs) }, log);
  const service = new RenderService(pool, undefined, { maxImageBytes: config.maxImageBytes });
  const read = inputReader({ in: 'body', schema: chartRequestBodySchema });
  return {
    async render(body) {
      try {
        // the body parser's own bound, so a config the server refuses fails here too
        if (nestingDepth(JSON.stringify(body)) > MAX_JSON_DEPTH) throw invalidInput(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
        // a fresh copy per render: the normaliser may keep references to what it was given
        const fields = read({ request: { body: structuredClone(body) } } as unknown as Context) as Record<string, unknown>;
        const img = await service.renderWithParts(buildRenderRequest(OFFLINE_CALLER, fields), 'cli');
        return { body: img.body, renderer: img.renderer ?? null, parts: img.parts };
      } catch (err) {
        if (err instanceof AppError) throw new RenderRefused(err.code, err.detail ?? '');
        throw err;
      }
    },
    renderer: () => pool.fingerprint().header(),
    close: () => pool.close(),
  };
}

export function serverEngine(baseUrl: string, apiKey: string): Engine {
  const client = new Chartshot({ baseUrl, apiKey });
  let seen: string | null = null;
  let seenV4 = false;
  return {
    async render(body) {
      let res;
      try {
        // the server measures the parts when asked (X-Chartshot-Parts); an older one answers without
        res = await client.render(body as unknown as ChartRequest, { parts: true });
      } catch (err) {
        if (err instanceof ChartshotError) throw new RenderRefused(err.code, err.detail ?? err.message);
        throw err;
      }
      // the Chart.js 4 fingerprint is the folder's: configs on 2 or 3 name their own version
      const v4 = (body.chartjs ?? 4) === 4;
      if (res.renderer && (seen === null || (v4 && !seenV4))) {
        seen = res.renderer;
        seenV4 = v4;
      }
      return { body: res.body, renderer: res.renderer, ...(res.parts ? { parts: res.parts } : {}) };
    },
    renderer: () => seen,
    close: async () => {},
  };
}
