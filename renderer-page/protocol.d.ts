// The renderer page's protocol: what Node sends to window.chartshot through CDP and what comes
// back. Declared once, here: the harness modules (renderer-page/harness/*.js, `// @ts-check`)
// type their side with it, src/render/page.ts takes its request and result types from it, and
// `npm run typecheck` checks both (tsconfig.page.json for the page).
import type { PageBudget } from '../src/render/budgets.js';

export type { PageBudget };

/**
 * Every limit the page applies, sent once by Node when the page has loaded (init), from their
 * single definitions on the Node side (src/render/pageLimits.ts). Numbers only.
 */
export interface PageLimits {
  /** Deepest nesting of a config (JSON or built by a JavaScript config). */
  readonly maxJsonDepth: number;
  /** Output pixels per side (width or height times the device pixel ratio): the canvas's limit. */
  readonly maxSidePx: number;
  /** Largest devicePixelRatio. */
  readonly maxDevicePixelRatio: number;
  /** Longest JavaScript config text evaluated (configJs). */
  readonly maxJsConfigChars: number;
  /** Longer function strings stay text. */
  readonly maxFunctionChars: number;
  /** Most text patches in one request, most keys in one patch's path, and the highest index + 1. */
  readonly maxTextPatches: number;
  readonly maxTextPatchKeys: number;
  readonly maxTextPatchIndex: number;
  /** Longest watermark drawn (longer is cut). */
  readonly maxWatermarkChars: number;
  /** The image byte ceiling when a request names none (maxImageBytes). */
  readonly maxImageBytes: number;
  /** Most renders one floor call runs. */
  readonly maxFloorRenders: number;
}

/** A text patch: a value set at a path after function revival (never revived itself). */
export interface TextPatch {
  readonly path: ReadonlyArray<string | number>;
  readonly value: unknown;
}

/** What a render asks for, whichever way its config travels. */
export interface PageOptions {
  width: number;
  height: number;
  format: 'png' | 'svg';
  backgroundColor: string | null;
  allowFunctions: boolean;
  watermark: string | null;
  /** Chart.js major version (which harness draws it); absent = the page's own. */
  chartjs?: 2 | 3 | 4;
  /** Output pixels per CSS pixel (1 to maxDevicePixelRatio); absent = 1: a PNG is width x ratio by
   *  height x ratio pixels; an SVG keeps its size. */
  devicePixelRatio?: number;
  /** JavaScript config text evaluated inside the page (only with allowFunctions); when present,
   *  the config text is not read. */
  configJs?: string;
  /** Values set after function revival (template overrides): the page never revives them. */
  textPatches?: ReadonlyArray<TextPatch>;
  /** Largest image the page may hand back (PNG: decoded bytes; SVG: UTF-8 bytes); larger is
   *  refused inside the page, so the bytes never cross CDP. Absent: PageLimits.maxImageBytes. */
  maxImageBytes?: number;
  /** MB caller code may allocate in typed arrays, canvases and images in this render
   *  (renderer-page/alloc-guard.js); absent: the page's default. */
  memoryBudgetMb?: number;
  /** Ticks, elements and log decades this render may cost (renderer-page/budgets.js); absent: none. */
  budget?: PageBudget;
  /** format png only: encode the canvas as WebP or JPEG (quality 1-100) instead of PNG
   *  (QuickChart's webp and jpg). */
  raster?: { readonly type: 'webp' | 'jpeg'; readonly quality: number };
  /** data:image URLs drawn behind the chart in order (renderer-page/images.js): QuickChart's
   *  backgroundImageUrl, /qr's code and center image. The answer is then a promise. */
  images?: ReadonlyArray<PlacedImage>;
  /** The IANA time zone the page must be drawing in (Chromium's emulation, set by Node before the
   *  render): the page refuses to draw in any other. Node always sends it (src/render/page.ts). */
  timezone?: string;
  /** The BCP 47 locale the page must be formatting in, as timezone; also Chart.js 3 and 4's
   *  options.locale unless the config sets one. */
  locale?: string;
  /** Sent behind another render on this page before that one's answer came back (a ride,
   *  src/render/pool.ts): refused (PageFailure.rideRefused) unless the render before it ended
   *  here, drew, and left nothing that needs a reset. */
  ride?: boolean;
  /** Golden-image tests: answer the drawn chart's part boxes too (PageResult.parts). */
  parts?: boolean;
}

/** A chart part's box in output pixels (CSS pixels times the ratio), clipped to the image. */
export interface PartBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** An image the page draws: a data:image URL, in a box of CSS pixels (absent: the whole canvas),
 *  stretched (fill) or scaled to fit keeping its aspect ratio (contain). */
export interface PlacedImage {
  readonly src: string;
  readonly box?: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  readonly fit?: 'fill' | 'contain';
}

/**
 * One render request as window.chartshot.render receives it: the config as JSON text, or that
 * text raw-deflated as base64 (the answer is then a promise), or (tests) as an object.
 */
export type PageRequest = PageOptions & ({ configJson: string } | { configDeflated: string } | { config: unknown });

/** A drawn image. */
export interface PageResult {
  ok: true;
  /** Base64 PNG, or SVG text. */
  data: string;
  /** Time spent inside the page, ms. */
  ms: number;
  ranFunctions: boolean;
  /** False when no caller code ran or every function was proven pure (renderer-page/pure.js),
   *  and the page's shared state is the loaded page's (harness/page-state.js): no reset needed.
   *  Absent counts as true. */
  needsReset?: boolean;
  /** Why, when needsReset: 'caller_code' (a function not proven pure ran) or 'page_state' (the
   *  page's shared state differs from the loaded page's: renderer-page/harness/page-state.js). */
  resetReason?: 'caller_code' | 'page_state';
  /** Asked for by PageOptions.parts: title, subtitle, legend, chartArea and each scale by id,
   *  from Chart.js's own layout (renderer-page/harness/parts.js); a part not drawn is absent. */
  parts?: Record<string, PartBox>;
}

/** A refused render. */
export interface PageFailure {
  ok: false;
  /** One line, at most 300 characters. */
  error: string;
  ranFunctions: boolean;
  needsReset: boolean;
  resetReason?: 'caller_code' | 'page_state';
  /** Set when the image would exceed its byte ceiling; the image itself never leaves the page. */
  imageBytes?: number;
  /** A budget (budgets.js) stopped the render; the error names it. */
  budget?: true;
  /** An allocation went over the memory budget (alloc-guard.js): the page is replaced. */
  memoryBudget?: true;
  /** A ride refused: nothing ran; Node sends the request again on a clean page. */
  rideRefused?: true;
  /** The request's time zone (or locale) is one this page's Intl does not know: nothing ran. */
  unknownZone?: 'timezone' | 'locale';
  /** The page was not in the zone or locale its request named: nothing ran; the page is replaced. */
  wrongZone?: true;
}

export type PageAnswer = PageResult | PageFailure;

/**
 * A render as it crosses CDP (ChartshotApi.renderWire): the PageRequest's options (every field
 * but configJson, configDeflated and configJs) as JSON text, and each of those three texts as
 * an argument of its own (null when absent); out one string: the PageAnswer without `data` as
 * JSON, a newline, then `data` (empty for a PageFailure). JSON text holds no raw newline, so
 * the first one ends the fields.
 */
export type RequestText = string;
export type AnswerText = string;

/** window.chartshot.floor's answer: in-page cost per render, for the benchmark. */
export interface FloorResult {
  msPerRender: number;
  /** Of msPerRender, the page-state checks: the module state restored before each render and the
   *  page's shared state compared after it (docs/decisions/0034-page-state-by-construction.md). */
  checkMsPerRender: number;
  /** False when any of the renders failed. */
  ok: boolean;
}

/** window.chartshot. */
export interface ChartshotApi {
  /** Takes the limits, once per page load, before any render (a second call throws): true. */
  init(limits: PageLimits): true;
  render(req: PageRequest): PageAnswer | Promise<PageAnswer>;
  /** render() with the request and the answer as text (RequestText, AnswerText): how Node calls it. */
  renderWire(options: RequestText, configJson: string | null, configDeflated: string | null, configJs: string | null): AnswerText | Promise<AnswerText>;
  /** The same request rendered n times (1 to maxFloorRenders) in one call. */
  floor(req: PageRequest, n: number): Promise<FloorResult>;
  /** The Chart.js major version this page draws. */
  readonly version: number;
  /** Every script the harness needs loaded. */
  readonly ready: boolean;
  /** What the last state check found changed (a property's name and its holder), '' if nothing
   *  or something other than a shared object: for tests. */
  readonly lastChange: string;
}
