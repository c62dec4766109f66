// A render as it crosses CDP to the page and its answer as it comes back (decision 31): the
// request's options as JSON text, its long texts on their own (a large config deflated), the
// answer as one string. Pure but for the deflate on libuv's pool; RenderPage (page.ts) sends it.
import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import type { PageOptions, PageRequest as WireRequest } from '../../renderer-page/protocol.js';
import type { SpanAttributes } from '../tracing.js';

export type { WireRequest };

/** A render as Node asks for it: the page's options (renderer-page/protocol.d.ts) and the
 *  config, which toWire turns into what crosses CDP. */
export interface PageRequest extends PageOptions {
  config: Record<string, unknown>;
  /** JSON.stringify(config), when the caller already has it: the page receives this text as is. */
  configJson?: string;
  /** This render's deadline, ms (its caller's class); absent: RENDER_TIMEOUT_MS. Never sent to the page. */
  deadlineMs?: number;
  /** When this render left its page to be reset (it ran caller code, or failed): called once
   *  the page is back in the pool (settled, reset or replaced) with the page time that took
   *  after the render's answer, ms, so that the caller is charged it. Never sent to the page. */
  onReleased?: (pageMs: number) => void;
}

// the request's options as JSON text, its long texts on their own, the answer as one string
// (renderer-page/protocol.d.ts RequestText, AnswerText; decision 31). `this` is the harness's
// API object as the page's load returned it (frozen), never looked up by name: caller code can
// redefine window.chartshot, and a ride queued behind its render would otherwise be handed to
// whatever it put there.
export const CALL_RENDER = 'function (o, c, d, j) { return this.renderWire(o, c, d, j); }';
export const CALL_FLOOR = 'function (req, n) { return this.floor(req, n); }';

/** Config texts from this length on cross CDP deflated. */
export const DEFLATE_FROM = 64 * 1024;
const deflate = promisify(deflateRaw);

/**
 * The request as it crosses CDP. The config travels as a JSON string, which the page parses
 * with JSON.parse: Chromium turns a protocol object argument into a V8 object about four times
 * slower (5,000 points: 30 ms as an object, 7 ms as a string). Still data, never code. A large
 * text travels deflated (level 1, on libuv's thread pool) as base64: CDP moves about 30 ms per
 * MB through the browser process, and a 100,000-point line's 2 MB shrink to 0.65 MB (80 ms ->
 * 40 ms including the page's inflate and parse; deflating takes 9 ms off the event loop).
 */
export async function toWire(req: PageRequest, deflateFrom = DEFLATE_FROM): Promise<WireRequest & ({ configJson: string } | { configDeflated: string })> {
  const { config, configJson, deadlineMs: _deadline, onReleased: _released, ...rest } = req;
  const json = configJson ?? JSON.stringify(config);
  if (json.length < deflateFrom) return { ...rest, configJson: json };
  const packed = await deflate(Buffer.from(json, 'utf8'), { level: 1 });
  return { ...rest, configDeflated: packed.toString('base64') };
}

/**
 * renderWire's arguments (renderer-page/protocol.d.ts RequestText): the options as JSON text,
 * then the config's JSON, the deflated config and the JavaScript config, each as it is or null.
 * A long text inside the options' JSON would be escaped twice (once there, once in the CDP
 * message) and parsed twice in the page.
 */
export function wireArguments(req: WireRequest): [string, string | null, string | null, string | null] {
  const { configJson, configDeflated, configJs, ...options } = req as WireRequest & { configJson?: string; configDeflated?: string };
  return [JSON.stringify(options), configJson ?? null, configDeflated ?? null, configJs ?? null];
}

/**
 * The page's answer string (renderer-page/protocol.d.ts AnswerText) as the answer object: the
 * fields' JSON up to the first newline, the image after it. Anything else is no answer
 * (undefined: call() makes it a crash).
 */
export function fromAnswerText(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  const nl = text.indexOf('\n');
  if (nl < 0) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(text.slice(0, nl));
  } catch {
    return undefined;
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  const answer = fields as Record<string, unknown>;
  if (answer.ok === true) answer.data = text.slice(nl + 1);
  return answer;
}

/** The render every new page draws once (PNG and SVG) before it joins the pool. */
export const WARMUP: PageRequest = {
  config: {
    type: 'bar',
    data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'warm', data: [1, 2, 3] }] },
    options: { plugins: { title: { display: true, text: 'warm' } } },
  },
  width: 320,
  height: 200,
  format: 'png',
  backgroundColor: '#fff',
  allowFunctions: false,
  watermark: null,
};

/** What a page render span says about its chart (no config content: it may be private). */
export function pageAttributes(req: PageRequest, pageId: number, version: number): SpanAttributes {
  const type = req.configJs !== undefined ? 'javascript' : typeof req.config.type === 'string' ? req.config.type.slice(0, 32) : 'mixed';
  return {
    'chartshot.page.id': pageId,
    'chartshot.chart.type': type,
    'chartshot.chartjs': version,
    'chartshot.width': req.width,
    'chartshot.height': req.height,
    'chartshot.format': req.format,
    'chartshot.device_pixel_ratio': req.devicePixelRatio ?? 1,
  };
}
