// Chart use cases for authenticated callers: normalise the request against the caller's
// plan, render, and count the generation.
import { checkColor, checkDimensions, checkFormat, parseChartConfig, SERVICE_NAME, type RenderRequest } from '../chart/request.js';
import { forbidden } from '../errors.js';
import type { AuthContext } from './accounts.js';
import type { RenderService, RenderedImage } from './render.js';

export interface ChartFields {
  chart?: unknown;
  c?: unknown;
  format?: unknown;
  width?: unknown;
  height?: unknown;
  backgroundColor?: unknown;
}

export interface UsageRecorder {
  /** Called before rendering: throws when the caller may not generate now (quota, trial cap). */
  admit(auth: AuthContext): Promise<void>;
  /** Called after a successful generation. */
  record(auth: AuthContext, renderMs: number): Promise<void>;
}

export const noUsage: UsageRecorder = { admit: async () => {}, record: async () => {} };

export function buildRenderRequest(auth: AuthContext, f: ChartFields): RenderRequest {
  const config = parseChartConfig(f.chart ?? f.c, f.chart !== undefined ? 'chart' : 'c');
  const { width, height } = checkDimensions(f.width, f.height, auth.plan);
  const format = checkFormat(f.format, auth.plan);
  return {
    config,
    width,
    height,
    format,
    backgroundColor: checkColor(f.backgroundColor),
    allowFunctions: true,
    watermark: auth.key.kind === 'test' ? `${SERVICE_NAME} TEST` : null,
  };
}

export class ChartService {
  constructor(
    private readonly renderer: RenderService,
    private readonly usage: UsageRecorder = noUsage,
  ) {}

  /** GET/POST /v1/chart: one generation (test keys are not counted). */
  async renderForCaller(auth: AuthContext, fields: ChartFields): Promise<RenderedImage> {
    if (auth.account.status !== 'active') throw forbidden(`account is ${auth.account.status}: new charts are disabled`);
    const req = buildRenderRequest(auth, fields);
    await this.usage.admit(auth);
    const img = await this.renderer.render(req);
    await this.usage.record(auth, img.renderMs);
    return img;
  }
}
