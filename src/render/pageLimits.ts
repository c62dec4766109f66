// Every limit the renderer page applies, defined here (or where Node applies the same rule, and
// imported): the page has none of its own, it takes these once per load (window.chartshot.init,
// sent by RenderPage.load), so Node's checks and the page's cannot drift apart.
import type { PageLimits } from '../../renderer-page/protocol.js';
import { MAX_JSON_DEPTH } from '../chart/jsonDepth.js';
import { MAX_FUNCTION_CHARS } from '../chart/functionStrings.js';
import { DEFAULT_MAX_IMAGE_BYTES } from '../config.js';

export type { PageLimits };

export const PAGE_LIMITS: PageLimits = Object.freeze({
  // the same depth Node refuses before a config reaches the page
  maxJsonDepth: MAX_JSON_DEPTH,
  // Chromium's canvas limit per side, in output pixels (width or height x devicePixelRatio)
  maxSidePx: 16384,
  maxDevicePixelRatio: 4,
  // a JavaScript config's text (its request crossed CDP whole already)
  maxJsConfigChars: 8 * 1024 * 1024,
  // longer function strings stay text (src/chart/functionStrings.ts judges the same ones)
  maxFunctionChars: MAX_FUNCTION_CHARS,
  maxTextPatches: 400,
  maxTextPatchKeys: 8,
  maxTextPatchIndex: 1000,
  maxWatermarkChars: 200,
  // a request without maxImageBytes (the warm-up, the benchmark's floor): MAX_IMAGE_BYTES's default
  maxImageBytes: DEFAULT_MAX_IMAGE_BYTES,
  maxFloorRenders: 10000,
});
