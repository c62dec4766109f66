// What the MCP tools do, behind one interface: the local engine (stdio: a pool of its own and the
// largest plan, as `chartshot render`) and a caller's engine (POST /mcp: the API key's plan, its
// generation count and trial cap, as POST /v1/chart and /v1/chart/create).
import { buildRenderRequest, type ChartService, type RequestCaller } from '../services/charts.js';
import type { ShortChartService } from '../services/shortCharts.js';
import type { AuthContext } from '../services/accounts.js';
import type { RenderService } from '../services/render.js';
import { parseChartjsVersion, quickChartRequest } from '../chart/quickchart.js';
import { SERVICE_NAME, type RenderRequest } from '../chart/request.js';
import { PLANS, type Plan } from '../rules/plans.js';
import { invalidInput } from '../errors.js';
import type { ZoneLocale } from '../chart/zoneLocale.js';
import type { ChartArgs } from './tools.js';

export interface DrawnChart {
  body: Buffer;
  contentType: string;
  request: RenderRequest;
  /** The permanent short URL, when one was asked for. */
  url?: string;
}

export interface McpEngine {
  /** The plan whose caps the arguments are checked against. */
  readonly plan: Plan;
  /** False where there is no store to keep short charts in (stdio). */
  readonly shortUrls: boolean;
  /** TIMEZONE and LOCALE: what a call that names no zone or locale is drawn in. */
  readonly zone: ZoneLocale;
  /** The request a render would draw, or the error it would answer; nothing drawn or counted. */
  request(args: ChartArgs): RenderRequest;
  render(args: ChartArgs, signal: AbortSignal): Promise<DrawnChart>;
  createShortUrl(args: ChartArgs, signal: AbortSignal): Promise<{ id: string; url: string }>;
}

/**
 * A chart request from a tool's arguments: Chart.js 4 (the default) as POST /v1/chart reads its
 * body, with its hints; 2 and 3 as a keyed QuickChart request (its chart types, JavaScript configs).
 */
export function chartRequest(caller: RequestCaller, args: ChartArgs): RenderRequest {
  const major = parseChartjsVersion(args.version, 4);
  const fields = { chart: args.chart, width: args.width, height: args.height, format: args.format, backgroundColor: args.backgroundColor, timezone: args.timezone, locale: args.locale };
  if (major === 4) return buildRenderRequest(caller, { ...fields, devicePixelRatio: args.devicePixelRatio });
  if (typeof args.chart !== 'string' && (typeof args.chart !== 'object' || args.chart === null)) throw invalidInput('chart is required');
  const watermark = caller.key.kind === 'test' ? `${SERVICE_NAME} TEST` : null;
  // QuickChart's defaults (ratio 2) are its routes' own: a tool's absent ratio is 1, as on /v1
  return quickChartRequest({ ...fields, devicePixelRatio: args.devicePixelRatio ?? 1, version: major }, { plan: caller.plan, keyed: true, watermark }, major);
}

const shortUrlsNeedTheServer = () => invalidInput('short URLs are kept by the server: call this tool over POST /mcp with an API key');

/** stdio: renders in this process's pool, with the largest plan's caps (the machine is the caller's own). */
export function localEngine(renderer: Pick<RenderService, 'render' | 'zone'>): McpEngine {
  const caller: RequestCaller = { plan: PLANS.enterprise, key: { kind: 'live' } };
  return {
    plan: caller.plan,
    shortUrls: false,
    zone: renderer.zone,
    request: (args) => chartRequest(caller, args),
    async render(args, signal) {
      if (args.shortUrl === true) throw shortUrlsNeedTheServer();
      const request = chartRequest(caller, args);
      const img = await renderer.render(request, undefined, undefined, signal);
      return { body: img.body, contentType: img.contentType, request };
    },
    createShortUrl: async () => {
      throw shortUrlsNeedTheServer();
    },
  };
}

export interface CallerEngineDeps {
  charts: Pick<ChartService, 'generate' | 'zone'>;
  shortCharts: Pick<ShortChartService, 'create' | 'serve'>;
}

/** POST /mcp: one authenticated caller, its plan's caps, each drawing counted as a generation. */
export function callerEngine(deps: CallerEngineDeps, auth: AuthContext): McpEngine {
  return {
    plan: auth.plan,
    shortUrls: true,
    zone: deps.charts.zone,
    request: (args) => chartRequest(auth, args),
    async render(args, signal) {
      if (args.shortUrl === true) {
        let request: RenderRequest | undefined;
        const chart = await deps.shortCharts.create(auth, {}, { signal, request: (a) => (request = chartRequest(a, args)) });
        // the image just kept (a cache read, not another render or generation)
        const served = await deps.shortCharts.serve(chart.id);
        return { body: served.image.body, contentType: served.image.contentType, request: request!, url: chart.url };
      }
      return deps.charts.generate(auth, {}, async (request, img) => ({ body: img.body, contentType: img.contentType, request }), {
        signal,
        request: (a) => chartRequest(a, args),
      });
    },
    createShortUrl: (args, signal) => deps.shortCharts.create(auth, {}, { signal, request: (a) => chartRequest(a, args) }),
  };
}
