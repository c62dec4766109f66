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

/** One admitted generation: exactly one of commit (it succeeded: count it) or release (it failed). */
export interface UsageTicket {
  commit(outcome: { renderMs: number; cacheHit?: boolean }): Promise<void>;
  release(): Promise<void>;
}

export interface UsageRecorder {
  /**
   * Called before rendering: reserves one generation atomically, or throws when the caller may
   * not generate now (429 trial_limit_reached). The single place generations are admitted.
   */
  admit(auth: AuthContext): Promise<UsageTicket>;
}

const noTicket: UsageTicket = { commit: async () => {}, release: async () => {} };
export const noUsage: UsageRecorder = { admit: async () => noTicket };

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
    return this.generate(auth, fields, async (_req, img) => img);
  }

  /**
   * One generation whose result `keep` handles before it is counted (POST /v1/chart/create
   * stores the request and image there): when keeping fails, nothing is counted.
   */
  async generate<T>(auth: AuthContext, fields: ChartFields, keep: (req: RenderRequest, img: RenderedImage) => Promise<T>): Promise<T> {
    if (auth.account.status !== 'active') throw forbidden(`account is ${auth.account.status}: new charts are disabled`);
    const req = buildRenderRequest(auth, fields);
    const ticket = await this.usage.admit(auth);
    let kept: T;
    let img: RenderedImage;
    try {
      img = await this.renderer.render(req);
      kept = await keep(req, img);
    } catch (err) {
      await ticket.release();
      throw err;
    }
    await ticket.commit({ renderMs: img.renderMs });
    return kept;
  }
}
