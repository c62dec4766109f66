// Chart use cases for authenticated callers: normalise the request against the caller's
// plan, render, and count the generation.
import type { PageBudget } from './pageBudget.js';
import { checkColor, checkDimensions, checkFormat, configJsonField, parseChartConfig, SERVICE_NAME, withZoneLocale, type RenderRequest } from '../chart/request.js';
import { checkLocale, checkTimezone, type ZoneLocale } from '../chart/zoneLocale.js';
import { checkOutputPixels, parseDevicePixelRatio } from '../chart/quickchart.js';
import { pickAlias } from '../chart/fieldAlias.js';
import { chartRequired, forbidden, invalidInput } from '../errors.js';
import { noDataHint } from '../chart/configHints.js';
import { findBadFunctionString } from '../chart/functionStrings.js';
import type { GenerationCount } from '../store/metering.js';
import type { AuthContext } from './accounts.js';
import { renderOwner, type RenderService, type RenderedImage } from './render.js';
import { classOfPlan } from '../render/budgets.js';
import type { SignedImageCache } from './signedCache.js';

export interface ChartFields {
  chart?: unknown;
  c?: unknown;
  format?: unknown;
  width?: unknown;
  height?: unknown;
  backgroundColor?: unknown;
  w?: unknown;
  h?: unknown;
  f?: unknown;
  bkg?: unknown;
  devicePixelRatio?: unknown;
  /** IANA time zone (chart/zoneLocale.ts); absent: TIMEZONE. */
  timezone?: unknown;
  /** BCP 47 locale; absent: LOCALE. */
  locale?: unknown;
}

export interface GenerationOutcome {
  renderMs: number;
  /** Served without a render of its own (it joined an identical render in flight): usage
   *  analytics count it in cacheHitRate, not in averageRenderTime. */
  cacheHit?: boolean;
}

const outcomeOf = (img: RenderedImage): GenerationOutcome => ({ renderMs: img.renderMs, cacheHit: img.coalesced });

/**
 * Counts a generation inside a store write that keeps its result: `write` receives what to
 * count (null: nothing, e.g. a pk_test_ key), stores it in the same transaction as its own
 * rows and returns the period's used count (null when nothing was counted).
 */
export type CountedWrite = (write: (count: GenerationCount | null) => Promise<number | null>) => Promise<void>;

/** One admitted generation: exactly one of commit / commitWith (it succeeded: count it) or release (it failed). */
export interface UsageTicket {
  commit(outcome: GenerationOutcome): Promise<void>;
  /**
   * Counts the generation now, while it renders (generations without a reservation only; absent
   * otherwise): afterwards exactly one of finish (it succeeded: its render time and thresholds)
   * or takeBack (it failed: the count is undone).
   */
  countNow?(): Promise<{ finish(outcome: GenerationOutcome): Promise<void>; takeBack(): Promise<void> }>;
  /** commit(), with the count written by `write` atomically with what it keeps; when `write` throws nothing is counted. */
  commitWith(outcome: GenerationOutcome, write: (count: GenerationCount | null) => Promise<number | null>): Promise<void>;
  release(): Promise<void>;
}

export interface UsageRecorder {
  /**
   * Called before rendering: reserves one generation atomically, or throws when the caller may
   * not generate now (429 trial_limit_reached). The single place generations are admitted.
   */
  admit(auth: AuthContext): Promise<UsageTicket>;
}

const noTicket: UsageTicket = {
  commit: async () => {},
  commitWith: async (_outcome, write) => {
    await write(null);
  },
  release: async () => {},
};
export const noUsage: UsageRecorder = { admit: async () => noTicket };

/** How a caller's fields are to be taken, beyond the fields themselves. */
export interface GenerateOptions {
  /**
   * Function strings become functions in the page (default true on authenticated endpoints).
   * False for configs built from plain-text inputs (automation endpoints): a title that reads
   * "function(){...}" is text there, never code.
   */
  allowFunctions?: boolean;
  /** Aborts when the client goes away: a request still queued for a page leaves the queue. */
  signal?: AbortSignal;
  /** Count the generation while it renders (GET/POST /v1/chart): the count's round trip is off
   *  the answer's path. Every answered image is still counted before the answer; a render that
   *  fails takes its count back. */
  countWhileRendering?: boolean;
  /** The request's rate limit, when it was still being decided as the render started: nothing
   *  is kept or counted before it settles, and a refusal is the answer. */
  decided?: Promise<void>;
  /** The JSON text of the fields' chart (or c) object as the request body held it (State.bodyConfigJson):
   *  the request carries it to the digest and the page. From the body reader only, never from the fields. */
  bodyJson?: string;
  /** Golden tests through a server (X-Chartshot-Parts: 1): the image comes with its chart's part
   *  boxes (RenderService.renderWithParts; never shares a render with other requests). */
  parts?: boolean;
  /** Builds the request from the caller instead of buildRenderRequest (QuickChart's vocabulary, template variants). */
  request?: (auth: AuthContext) => RenderRequest;
  /** The raw query of a signed GET /v1/chart whose signature and key were checked: its image is
   *  served again from the signed-URL cache for a short while. */
  signedQuery?: string;
}

/** A body that is itself a Chart.js config ({"type": ..., "data": ...}) lacks the {"chart": ...} wrapper. */
const BARE_CONFIG_HINT =
  'chart (or c) is required: the body looks like a bare Chart.js config; wrap it as {"chart": {"type": ..., "data": ...}, "width": 600, "height": 400}';

/** A caller as far as a request's checks need it (the local MCP server has a plan but no key). */
export type RequestCaller = Pick<AuthContext, 'plan'> & { key: Pick<AuthContext['key'], 'kind'> };

export function buildRenderRequest(auth: RequestCaller, f: ChartFields, opts: GenerateOptions = {}): RenderRequest {
  const fields = f as Record<string, unknown>;
  const raw = pickAlias(fields, 'chart', 'c');
  if ((raw === undefined || raw === null || raw === '') && ('type' in f || 'data' in f)) throw chartRequired(BARE_CONFIG_HINT);
  const field = f.chart !== undefined ? 'chart' : 'c';
  const config = parseChartConfig(raw, field);
  const allowFunctions = opts.allowFunctions ?? true;
  const badFunction = allowFunctions ? findBadFunctionString(config, field) : null;
  if (badFunction) throw invalidInput(badFunction);
  const { width, height } = checkDimensions(pickAlias(fields, 'width', 'w'), pickAlias(fields, 'height', 'h'), auth.plan);
  const format = checkFormat(pickAlias(fields, 'format', 'f'), auth.plan);
  const ratio = parseDevicePixelRatio(f.devicePixelRatio, 1);
  checkOutputPixels(width, height, format === 'svg' ? 1 : ratio, auth.plan);
  const timezone = checkTimezone(f.timezone);
  const locale = checkLocale(f.locale);
  return {
    config,
    // the text the config came as: a JSON string given as the field, or the body's own span
    ...(typeof raw === 'string' ? { configJson: raw } : configJsonField(opts.bodyJson)),
    width,
    height,
    format,
    backgroundColor: checkColor(pickAlias(fields, 'backgroundColor', 'bkg')),
    allowFunctions,
    watermark: auth.key.kind === 'test' ? `${SERVICE_NAME} TEST` : null,
    // absent at 1: the digest of today's requests stays what it was
    ...(ratio !== 1 ? { devicePixelRatio: ratio } : {}),
    ...(timezone !== undefined ? { timezone } : {}),
    ...(locale !== undefined ? { locale } : {}),
  };
}

export class ChartService {
  constructor(
    private readonly renderer: RenderService,
    private readonly usage: UsageRecorder = noUsage,
    /** Page time per trial account: renders past it are refused at once (429 rate_limit_exceeded). */
    private readonly pageBudget?: PageBudget,
    /** Signed URLs' images, served again for a short while (signedCache.ts). */
    private readonly signedCache?: SignedImageCache,
  ) {}

  /** TIMEZONE and LOCALE: what a request that names no zone or locale is drawn (and kept) in. */
  get zone(): ZoneLocale {
    return this.renderer.zone;
  }

  /** The render of a generation; a trial account's is charged to its page-time budget (failed ones too). */
  private async renderFor(auth: AuthContext, req: RenderRequest, signal: AbortSignal | undefined, parts = false, signedQuery?: string): Promise<RenderedImage> {
    // a signed URL fetched again: its image, counted as a generation served without a render
    const cache = signedQuery !== undefined && !parts ? this.signedCache : undefined;
    const held = cache?.get(signedQuery!);
    if (held) return { ...held, coalesced: true };
    const img = await this.renderUncached(auth, req, signal, parts);
    cache?.set(signedQuery!, img);
    return img;
  }

  private renderUncached(auth: AuthContext, req: RenderRequest, signal: AbortSignal | undefined, parts: boolean): Promise<RenderedImage> {
    const owner = renderOwner.account(auth.account.id);
    const cls = classOfPlan(auth.plan.name);
    const render = (later?: (pageMs: number) => void) => (parts ? this.renderer.renderWithParts(req, owner, signal, cls, later) : this.renderer.render(req, owner, undefined, signal, cls, later));
    if (!this.pageBudget || auth.account.plan !== 'trial') return render();
    return this.pageBudget.run({ account: auth.account.id }, render, (img) => (img.coalesced ? 0 : img.renderMs));
  }

  /** GET/POST /v1/chart: one generation (test keys are not counted). */
  /** The image, with a hint when the config has no data (drawn as Chart.js draws it: axes and legend only). */
  async renderForCaller(auth: AuthContext, fields: ChartFields, opts: Pick<GenerateOptions, 'signal' | 'decided' | 'bodyJson' | 'parts' | 'signedQuery'> = {}): Promise<RenderedImage & { hint?: string }> {
    return this.generate(
      auth,
      fields,
      async (req, img) => {
        const hint = req.configJs === undefined ? noDataHint(req.config as Record<string, unknown>) : null;
        return hint ? { ...img, hint } : img;
      },
      { ...opts, countWhileRendering: true },
    );
  }

  /**
   * One generation whose result `keep` handles before it is counted (POST /v1/chart/create
   * stores the request and image there): when keeping fails, nothing is counted. A `keep` that
   * stores something calls `counted` with its store write, so the count commits in the same
   * transaction (a crash cannot leave a chart uncounted or a count without its chart).
   */
  async generate<T>(
    auth: AuthContext,
    fields: ChartFields,
    keep: (req: RenderRequest, img: RenderedImage, counted: CountedWrite) => Promise<T>,
    opts: GenerateOptions = {},
  ): Promise<T> {
    if (auth.account.status !== 'active') throw forbidden(`account is ${auth.account.status}: new charts are disabled`);
    // the zone and locale it is drawn in are fixed now (TIMEZONE and LOCALE where it names none):
    // a chart it keeps draws in them for good
    const req = withZoneLocale(opts.request ? opts.request(auth) : buildRenderRequest(auth, fields, opts), this.renderer.zone);
    const ticket = await this.usage.admit(auth);
    // counted while it renders (once its rate limit allows it), when the caller keeps nothing
    const early = opts.countWhileRendering === true && ticket.countNow ? (opts.decided ?? Promise.resolve()).then(() => ticket.countNow!()) : null;
    early?.catch(() => {});
    let kept: T;
    let img: RenderedImage;
    let countedInKeep = false;
    try {
      img = await this.renderFor(auth, req, opts.signal, opts.parts === true, opts.signedQuery);
      if (opts.decided) await opts.decided;
      const rendered = img;
      if (early) {
        await (await early).finish(outcomeOf(rendered));
        return await keep(req, img, async () => {
          throw new Error('a generation counted while rendering cannot be counted again with what is kept');
        });
      }
      kept = await keep(req, img, async (write) => {
        countedInKeep = true;
        await ticket.commitWith(outcomeOf(rendered), write);
      });
    } catch (err) {
      if (early) {
        // counted (and not refused): the failed generation's count is taken back
        const counted = await early.then((c) => c, () => null);
        if (counted) await counted.takeBack();
      } else await ticket.release();
      throw err;
    }
    if (!countedInKeep) await ticket.commit(outcomeOf(img));
    return kept;
  }
}
