// QuickChart's URL API as use cases: /chart for key holders (a counted generation) or, when the
// operator allows it, for anyone (the open endpoint's protections); /chart/create (keyed: a
// stored short chart; keyless: an open-cache image named by its digest); template variants of a
// stored chart on /chart/render/{id}.
import { clientKey } from '../rules/clientAddress.js';
import { KEY_GONE_DETAIL, requestUnderKey } from '../chart/callerCode.js';
import { PLANS } from '../rules/plans.js';
import { checkOutputPixels, configTextToPreparse, parseSide, quickChartRequest, type ParsedConfigText, type QuickChartFields } from '../chart/quickchart.js';
import { checkColor, checkDimensions, renderDigest, withConfigJson, type RenderRequest } from '../chart/request.js';
import { parseTemplateOverrides, templatePatches, type TemplateOverrides } from '../chart/templates.js';
import { forbidden, invalidInput, notFound, rateLimited } from '../errors.js';
import type { AccountStore, ChartStore, KeyStore, OpenRenderWindows } from '../store/types.js';
import type { AuthContext } from './accounts.js';
import type { ChartService } from './charts.js';
import type { ChartMetricsRecorder } from './chartMetrics.js';
import type { ConfigTextParser } from './configTextParser.js';
import type { ImageCache } from './imageCache.js';
import type { OpenChartService } from './open.js';
import type { ServedChart, ShortChart, ShortChartService } from './shortCharts.js';
import { cacheTtlMs } from './shortCharts.js';
import type { Clock } from '../clock.js';
import type { RendererFingerprint } from '../render/fingerprint.js';
import { renderOwner, type RenderService } from './render.js';
import { isChartId, keylessChartId, keylessDigestOf } from '../chart/chartId.js';
import { classOfPlan } from '../render/budgets.js';
import { checkConfigTextSources, remoteContentOf } from '../chart/remoteContent.js';
import { RemoteImages } from './remoteImages.js';


/** Who calls /chart: a key holder, or (QUICKCHART_ANONYMOUS) an address. */
export type QuickChartCaller = { auth: AuthContext } | { anonymousIp: string };

export interface QuickChartImage {
  body: Buffer;
  contentType: string;
  /** X-Chartshot-Renderer of the Chart.js version that drew it. */
  renderer?: string;
  /** False: a keyless image its render's page failed the state check for: not cached anywhere. */
  cached?: boolean;
}

export interface QuickChartDeps {
  charts: Pick<ChartService, 'generate'>;
  shortCharts: Pick<ShortChartService, 'create' | 'serve'>;
  open: Pick<OpenChartService, 'renderPrepared' | 'storedImage'>;
  /** PUBLIC_BASE_URL: the host of the URLs keyless /chart/create returns. */
  publicBaseUrl: string;
  store: { readonly charts: ChartStore; readonly accounts: AccountStore; readonly keys: KeyStore };
  cache: ImageCache;
  metrics: Pick<ChartMetricsRecorder, 'hit' | 'rendered'>;
  /** Draws new template variants (in the owner's share of the fair queue). */
  renderer: Pick<RenderService, 'render'>;
  /** Sliding windows that bound new variants per client address and per chart. */
  windows: OpenRenderWindows;
  clock: Clock;
  /** Names the renderer of anonymous images (key holders' renders carry their own). */
  fingerprint?: Pick<RendererFingerprint, 'header'>;
  /** Parses key holders' large config texts off the event loop (absent: inline, as small ones are). */
  configParser?: Pick<ConfigTextParser, 'parse'>;
  /** Fetches images a config names by URL (REMOTE_IMAGES_ALLOW); absent: none allowed, data URLs only. */
  remoteImages?: Pick<RemoteImages, 'dataUrl'>;
}

/** New template variants (cache misses) one address may have drawn per hour, over all charts. */
export const VARIANTS_PER_ADDRESS_PER_HOUR = 60;
/** New template variants one chart may have drawn per hour, whoever asks. */
export const VARIANTS_PER_CHART_PER_HOUR = 20;
const VARIANT_WINDOW_MS = 3_600_000;

const keyedCaller = (auth: AuthContext) => ({ plan: auth.plan, keyed: true, watermark: auth.key.kind === 'test' ? 'chartshot TEST' : null });

export class QuickChartService {
  private readonly images: Pick<RemoteImages, 'dataUrl'>;

  constructor(private readonly d: QuickChartDeps) {
    this.images = d.remoteImages ?? new RemoteImages({ allow: [] });
  }

  /**
   * GET/POST /chart: a key holder's render is a generation; an anonymous one is the open endpoint's.
   * `bodyJson`: the JSON text of the body's config object as sent (State.bodyConfigJson).
   */
  async render(caller: QuickChartCaller, fields: QuickChartFields, signal?: AbortSignal, bodyJson?: string): Promise<QuickChartImage> {
    if ('auth' in caller) {
      const request = await this.keyedRequest(caller.auth, fields, bodyJson);
      return this.d.charts.generate(caller.auth, {}, async (_req, img) => img, { signal, request });
    }
    const { digest: _digest, ...img } = await this.renderKeyless(caller.anonymousIp, fields, signal, bodyJson);
    return img;
  }

  /**
   * POST /chart/create: with a key, a short chart like /v1/chart/create's (permanent, the
   * account's); keyless (QUICKCHART_ANONYMOUS), keyless /chart's render, whose image stays in
   * the open cache under its digest: the URL names it, and answers 404 once it is evicted.
   */
  async create(caller: QuickChartCaller, fields: QuickChartFields, signal?: AbortSignal, bodyJson?: string): Promise<ShortChart> {
    if ('auth' in caller) {
      return this.d.shortCharts.create(caller.auth, {}, { signal, request: await this.keyedRequest(caller.auth, fields, bodyJson) }, '/chart/render/');
    }
    const { digest } = await this.renderKeyless(caller.anonymousIp, fields, signal, bodyJson);
    const id = keylessChartId(digest);
    return { id, url: `${this.d.publicBaseUrl}/chart/render/${id}` };
  }

  /** Keyless /chart and /chart/create: the open endpoint's gate, caps, window, deadline and cache. */
  private async renderKeyless(ip: string, fields: QuickChartFields, signal?: AbortSignal, bodyJson?: string): Promise<QuickChartImage & { digest: string }> {
    const req = await this.withImages(quickChartRequest(fields, { plan: PLANS.trial, keyed: false, watermark: null }, undefined, { bodyJson }));
    const img = await this.d.open.renderPrepared(req, ip, signal);
    return { ...img, ...(this.d.fingerprint ? { renderer: this.d.fingerprint.header(req.chartjs ?? 4) } : {}) };
  }

  /**
   * A key holder's request, built before the generation starts when it names a remote image (the
   * fetch is asynchronous; the generation's request builder is not). A suspended account's is
   * built by the generation itself, which refuses it (403) before anything is fetched.
   */
  private async keyedRequest(auth: AuthContext, fields: QuickChartFields, bodyJson?: string): Promise<(a: AuthContext) => RenderRequest> {
    const parsed = await this.preparse(fields);
    const build = (a: AuthContext) => quickChartRequest(fields, keyedCaller(a), undefined, { parsed, bodyJson });
    if (auth.account.status !== 'active') return build;
    const ready = await this.withImages(build(auth));
    return (a) => (a === auth ? ready : build(a));
  }

  /** Remote content a request names: images fetched (or data URLs checked) and handed in; data sources refused. */
  private async withImages(req: RenderRequest): Promise<RenderRequest> {
    if (req.configJs !== undefined) {
      // never evaluated here: the page refuses a backgroundImageUrl it was not handed
      checkConfigTextSources(req.configJs);
      return req;
    }
    const refs = remoteContentOf(req.config);
    if (refs.backgroundImageUrl === undefined) return req;
    return { ...req, images: [{ src: await this.images.dataUrl(refs.backgroundImageUrl, 'backgroundImageUrl') }] };
  }

  /** A key holder's large config text (up to the body limit, 2 MB) parsed in a worker; small
   *  ones and keyless ones (at most 6144 bytes) are parsed inline where the request is built. */
  private async preparse(fields: QuickChartFields): Promise<ParsedConfigText | undefined> {
    const text = this.d.configParser ? configTextToPreparse(fields) : null;
    return text === null ? undefined : this.d.configParser!.parse(text);
  }

  /**
   * GET /chart/render/{id}: the stored chart as /v1/chart/{id} serves it; with template
   * overrides, a variant: cached by its request; a miss is drawn like a re-render of the stored
   * chart (the owner's share of the queue, not a generation: it spends neither the owner's rate
   * limit nor allowance), bounded per client address and per chart so that nobody holding the
   * URL can run up the owner's costs or crowd the cache.
   */
  async renderTemplate(id: string, query: Record<string, unknown>, clientIp: string, signal?: AbortSignal): Promise<ServedChart> {
    const overrides = parseTemplateOverrides(query);
    const keyless = keylessDigestOf(id);
    if (keyless !== null) return this.serveKeyless(keyless, overrides !== null);
    if (!overrides) return this.d.shortCharts.serve(id);
    if (!isChartId(id)) throw notFound('no such chart');
    const rec = await this.d.store.charts.find(id);
    const account = rec ? await this.d.store.accounts.find(rec.accountId) : null;
    const key = rec ? await this.d.store.keys.find(rec.keyId) : null;
    if (!rec || !account || !key || account.status === 'terminated') throw notFound('no such chart');
    if (account.status !== 'active') throw forbidden(`the chart's account is ${account.status}: template variants are disabled`);
    const now = this.d.clock.now();
    const base = requestUnderKey(rec.request, key, now);
    if (!base) throw notFound(KEY_GONE_DETAIL);
    const plan = PLANS[account.plan];
    const variant = withConfigJson(templateVariant(base, overrides, plan));
    const digest = renderDigest(variant);
    const cacheKey = `tpl:${id}:${digest}`;
    const hit = await this.d.cache.get(cacheKey);
    if (hit) {
      this.d.metrics.hit(id, now);
      return { image: hit.image, tier: hit.tier };
    }
    // the chart's window first: a variant it refuses spends nothing of the address's
    await this.admitVariant(`variant-chart:${id}`, VARIANTS_PER_CHART_PER_HOUR, 'of one chart', now);
    await this.admitVariant(`variant-client:${clientKey(clientIp)}`, VARIANTS_PER_ADDRESS_PER_HOUR, 'from one address', now);
    const img = await this.d.renderer.render(variant, renderOwner.account(account.id), digest, signal, classOfPlan(plan.name));
    this.d.metrics.rendered(id, img.renderMs);
    const image = await this.d.cache.put(cacheKey, img.body, img.contentType, cacheTtlMs(plan), img.renderer);
    this.d.metrics.hit(id, this.d.clock.now());
    return { image, tier: 'render' };
  }

  /** A keyless chart: its image while the open cache holds it; no variants (no stored request to vary). */
  private async serveKeyless(digest: string, overrides: boolean): Promise<ServedChart> {
    if (overrides) throw invalidInput('template overrides need a chart made with an API key; this one was made without');
    const hit = await this.d.open.storedImage(digest);
    if (!hit) throw notFound('no such chart (a chart made without an API key lives in the open cache and may have been evicted)');
    return { image: hit.image, tier: hit.tier };
  }

  private async admitVariant(window: string, limit: number, what: string, now: number): Promise<void> {
    const take = await this.d.windows.take(window, now, VARIANT_WINDOW_MS, limit);
    if (!take.allowed) {
      throw rateLimited(take.retryAfterMs / 1000, `at most ${limit} new template variants per hour ${what}; variants drawn before are still served`);
    }
  }
}

/** The stored request with a template's overrides: config changes, then size and background within the owner's plan. */
export function templateVariant(base: RenderRequest, o: TemplateOverrides, plan: (typeof PLANS)[keyof typeof PLANS]): RenderRequest {
  const chartjs = base.chartjs ?? 4;
  let req: RenderRequest = base;
  if (o.config) {
    req = { ...base, textPatches: templatePatches(o.config, chartjs) };
  }
  if (o.width !== undefined || o.height !== undefined) {
    const { width, height } = checkDimensions(parseSide(o.width, 'width', base.width), parseSide(o.height, 'height', base.height), plan);
    checkOutputPixels(width, height, base.format === 'svg' ? 1 : (base.devicePixelRatio ?? 1), plan);
    req = { ...req, width, height };
  }
  if (o.backgroundColor !== undefined) req = { ...req, backgroundColor: checkColor(o.backgroundColor) };
  return req;
}
