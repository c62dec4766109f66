// One renderer page: a Chromium tab in its own browser context with the harness loaded, the CDP
// call that runs a render on it, and the reset that cleans it. Leasing and recycling: pool.ts.
import type { BrowserContext, CDPSession, Page, Protocol } from 'puppeteer-core';
import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import { HARNESS_ORIGIN, harnessUrl, type ChartjsVersion } from './harness.js';
import { PAGE_LIMITS, type PageLimits } from './pageLimits.js';
import type { DirectCall } from './cdpPipe.js';
import { afterMs, afterSettled, onAbort, settle, withDeadline } from '../settle.js';
import type { FloorResult, PageFailure, PageOptions, PageRequest as WireRequest, PageResult, PartBox } from '../../renderer-page/protocol.js';
import { DEFAULT_ZONE_LOCALE, type ZoneLocale } from '../chart/zoneLocale.js';

export type { PageResult, PartBox, WireRequest };

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

/**
 * Why a render did not produce an image. `config` = the chart config itself was refused by
 * Chart.js; `budget` = the page refused it for a budget (ticks, elements, log decades: the
 * message names it); `timeout` = it ran past its deadline and was interrupted.
 */
export class RenderError extends Error {
  constructor(
    /** memory: the render went over its memory budget in the page, or Chromium's cgroup limit.
     *  zone: the page's Intl knows no such time zone or locale (the message names which). */
    readonly kind: 'config' | 'budget' | 'timeout' | 'crash' | 'busy' | 'too_large' | 'memory' | 'zone',
    message: string,
    /** busy only: the estimated time until a page would be free (Retry-After). */
    readonly retryAfterMs?: number,
    /** too_large only: the size the page measured, bytes (the image itself never left the page). */
    readonly imageBytes?: number,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

/**
 * A ride (a render sent behind another on the same page before that one's answer came back,
 * pool.ts) that did not run as its own: the page refused it (the render ahead failed, ran
 * unproven caller code, or is still running), or the render ahead was interrupted or the page
 * crashed while it waited. Nothing of it is the caller's: the pool sends it again on a clean page.
 */
export class RideRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RideRefused';
  }
}

/** How long an interrupted script may take to stop before its page is replaced. */
export const INTERRUPT_SETTLE_MS = 1000;

/**
 * How long a page that ran caller code may take to answer a trivial evaluation once the render
 * is over, ms. Anything the render scheduled was cancelled in the page (task-guard.js), so a
 * free main thread answers in well under a millisecond; one that does not is running caller code
 * that outlived its render, and is stopped (RenderPage.settle).
 */
export const IDLE_PROBE_MS = 100;
/** Times a page that still does not answer is stopped again before it is replaced. */
export const IDLE_STOPS = 2;

/**
 * A reset page whose renderer's heap holds more than this (the document before it, uncollected)
 * is collected at once. A fresh harness holds about 5 MB, one reset after a few hundred renders
 * about 30 (V8 and Blink's heaps together); a caller's DOM bomb stopped at its deadline left
 * 340 MB of garbage and 1.3 GB of RSS that an idle renderer kept (V8's memory reducer is off,
 * browser.ts): collected, the RSS fell to 156 MB. A full collection costs 25-80 ms on a
 * warm page, 420 ms on that one: only pages over this pay it.
 */
export const RESET_COLLECT_BYTES = 64 * 1024 * 1024;

// the request's options as JSON text, its long texts on their own, the answer as one string
// (renderer-page/protocol.d.ts RequestText, AnswerText; decision 31). `this` is the harness's
// API object as the page's load returned it (frozen), never looked up by name: caller code can
// redefine window.chartshot, and a ride queued behind its render would otherwise be handed to
// whatever it put there.
const CALL_RENDER = 'function (o, c, d, j) { return this.renderWire(o, c, d, j); }';
const CALL_FLOOR = 'function (req, n) { return this.floor(req, n); }';

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

/** 10000 -> "10 s", 2500 -> "2.5 s". */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(2))} s`;

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

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

/** Network, Audits and Log events carry each URL the page tries, in full, to Node (a loop of
 *  new Image().src = <1 MB URL> moved 2 MB per attempt); interception needs only Fetch. */
export async function quietDomains(page: Page): Promise<void> {
  const client = (page as unknown as { _client(): CDPSession })._client();
  await client.send('Network.disable');
  await client.send('Audits.disable');
  await client.send('Log.disable');
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

export class RenderPage {
  renders = 0;
  dead = false;
  /** The harness's API object (window.chartshot as this load made it): every call's `this`. */
  apiId = '';
  /** The Chart.js major version of the harness loaded (pool.ts switches pages between versions). */
  version: ChartjsVersion = 4;
  /** Aborts (its reason a RenderError 'crash') when the page's renderer crashes, the page
   *  closes or is given up: every call on the page ends then (src/settle.ts: a signal, so that
   *  a call leaves nothing behind on the page once it is over). */
  private readonly life = new AbortController();
  /** Set when a render ran past its deadline: resolves true once its script stopped. Taken
   *  (and cleared) when the page is given back (takeInterruption). */
  private interrupted: Promise<boolean> | null = null;
  /** Interruptions so far: a ride tells one of the render ahead of it from its own. */
  private interrupts = 0;
  /** The zone and locale this page's emulation was last sent (Chromium keeps them across the
   *  page's loads); null: none sent yet. */
  private emulated: ZoneLocale | null = null;

  constructor(
    readonly id: number,
    /** The page's own browser context: storage, cookies and caches shared with no other page. */
    readonly context: BrowserContext,
    readonly page: Page,
    readonly cdp: CDPSession,
    readonly maxRenders: number,
    private readonly renderTimeoutMs: number,
    /** Sent to the harness at each load (renderer-page/protocol.d.ts PageLimits). */
    private readonly limits: PageLimits = PAGE_LIMITS,
    /** The render call past puppeteer, on this page's session (cdpPipe.ts); absent: cdp.send. */
    private readonly direct?: DirectCall,
    /** TIMEZONE and LOCALE: a render that names no zone or locale is drawn in these. */
    private readonly zoneDefaults: ZoneLocale = DEFAULT_ZONE_LOCALE,
  ) {}

  /**
   * Stops a render's script without closing the page: Runtime.terminateExecution on the session
   * already attached (a new one cannot attach to a busy page) ends an infinite loop in a
   * callback within milliseconds, and the pending call then settles with an exception. A script
   * that does not stop in time (a renderer stuck in native code) gets its page replaced.
   */
  private interrupt(pending: Promise<unknown>): void {
    this.interrupts++;
    this.interrupted = withDeadline(
      Promise.all([this.cdp.send('Runtime.terminateExecution'), pending.catch(() => undefined)]).then(() => !this.dead),
      INTERRUPT_SETTLE_MS,
      'interrupted script',
    ).catch(() => {
      this.markDead('the interrupted script did not stop');
      return false;
    });
  }

  /**
   * Whether the page's main thread is free: a trivial evaluation on its session answers within
   * `ms`. An error answers too (a page that navigated away has no context to evaluate in): only
   * silence is busy.
   */
  async answers(ms = IDLE_PROBE_MS): Promise<boolean> {
    if (this.dead) return false;
    const silent = new Error('silent');
    try {
      await settle(
        this.cdp.send('Runtime.evaluate', { expression: '0', returnByValue: true }).catch(() => undefined),
        // the answer may have arrived while this process was busy: it is read (one turn of I/O)
        // before the page is called silent
        (fail) => {
          const timer = setTimeout(() => setImmediate(() => fail(silent)), ms);
          return () => clearTimeout(timer);
        },
      );
    } catch {
      return false;
    }
    return !this.dead;
  }

  /**
   * After a render that ran caller code, before anyone else may use the page: 'idle' when it
   * answers at once (answers()); otherwise whatever runs is stopped (Runtime.terminateExecution:
   * a loop in an event handler, a promise chain, what the page cannot cancel itself,
   * renderer-page/task-guard.js) and it is asked again (within `stoppedMs`), up to `stops` times:
   * 'stopped' when it then answers, 'busy' when it still does not (its renderer is to be replaced).
   */
  async settle(ms = IDLE_PROBE_MS, stops = IDLE_STOPS, stoppedMs = INTERRUPT_SETTLE_MS): Promise<'idle' | 'stopped' | 'busy'> {
    if (await this.answers(ms)) return 'idle';
    for (let i = 0; i < stops; i++) {
      if (this.dead) return 'busy';
      await withDeadline(this.cdp.send('Runtime.terminateExecution'), ms, 'terminate').catch(() => {});
      // a stopped script ends at once: silence past an interrupted script's allowance is a page
      // that cannot be stopped, not a busy machine answering late
      if (await this.answers(stoppedMs)) return 'stopped';
    }
    return 'busy';
  }

  markDead(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.life.abort(new RenderError('crash', reason));
  }

  /** A request already on the wire (toWire), so that deflating a large config does not hold the
   *  page. `deadlineMs`: this render's deadline (its caller's class); absent: RENDER_TIMEOUT_MS.
   *  `behind`: a ride, sent behind that render (its promise) on this page: its deadline starts
   *  once that one settled, it goes as `ride` (the page refuses it unless the render ahead ended
   *  clean), and anything that was not its own doing fails it with RideRefused. */
  render(req: WireRequest, deadlineMs?: number, behind?: Promise<unknown>): Promise<PageResult> {
    // the page is told the zone and locale it must be in, and checks them before it draws
    const zone: ZoneLocale = { timezone: req.timezone ?? this.zoneDefaults.timezone, locale: req.locale ?? this.zoneDefaults.locale };
    const emulating = this.emulate(zone);
    const args = wireArguments({ ...req, ...zone, ...(behind ? { ride: true } : {}) });
    const drawn = this.call<PageResult>(CALL_RENDER, args, deadlineMs, fromAnswerText, behind);
    return emulating ? Promise.all([drawn, emulating]).then(([res]) => res) : drawn;
  }

  /**
   * Puts the page in `want`'s zone and locale with Chromium's own emulation (the zone of Date and
   * Intl, Intl's default locale, navigator.language) when it is not there already; null when it
   * is. The commands are not awaited before the render sent after them: a session's commands run
   * in order in the renderer, so that render draws in the new zone (0 of 30 pipelined pairs out
   * of order behind busy scripts) and a switch costs no round trip of its own. Chromium keeps
   * the emulation across the page's loads. A failed switch leaves the page's zone unknown: the
   * page is replaced. Chromium takes an unknown zone without complaint and stays where it was,
   * so the page checks what it draws in as well (harness render.js).
   */
  emulate(want: ZoneLocale): Promise<void> | null {
    const was = this.emulated;
    if (was && was.timezone === want.timezone && was.locale === want.locale) return null;
    this.emulated = want;
    const sends: Promise<unknown>[] = [];
    if (!was || was.timezone !== want.timezone) sends.push(this.command('Emulation.setTimezoneOverride', { timezoneId: want.timezone }));
    if (!was || was.locale !== want.locale) {
      sends.push(this.command('Emulation.setLocaleOverride', { locale: want.locale }));
      // navigator.language(s); an empty user agent leaves the browser's own
      sends.push(this.command('Emulation.setUserAgentOverride', { userAgent: '', acceptLanguage: want.locale }));
    }
    return Promise.all(sends).then(
      () => undefined,
      (err: unknown) => {
        this.markDead('the time zone or locale could not be set');
        throw new RenderError('crash', `emulating ${want.timezone} and ${want.locale} failed: ${(err as Error).message}`.slice(0, 300));
      },
    );
  }

  /** A CDP command on this page's session, written to the pipe now (in order with the render call). */
  private command(method: string, params: Record<string, unknown>): Promise<unknown> {
    if (this.direct) return this.direct(this.cdp.id(), method, params);
    return this.cdp.send(method as 'Emulation.setTimezoneOverride', params as unknown as Protocol.Emulation.SetTimezoneOverrideRequest);
  }

  /** A render of this page ran past its deadline and the page was not given back since. */
  get wasInterrupted(): boolean {
    return this.interrupted !== null;
  }

  /**
   * After a render that ran past its deadline (asked once, when the page is given back; null
   * when nothing was interrupted): resolves true once the interrupted script has stopped (the
   * page then only needs the usual reset), false when it did not stop in time (replace it).
   */
  takeInterruption(): Promise<boolean> | null {
    const interruption = this.interrupted;
    this.interrupted = null;
    return interruption;
  }

  /** The in-page floor: how long Chart.js itself takes per render, n renders in one call. */
  async floor(req: PageRequest, n: number): Promise<FloorResult> {
    return this.call<FloorResult>(CALL_FLOOR, [await toWire(req), n]);
  }

  /**
   * Loads the harness. A reset (`reset`: the page ran caller code) also wipes the origin's
   * storage and cookies; it gets a shorter deadline than a first load, since a page whose
   * script keeps its main thread busy (a timer looping after the render returned) cannot
   * navigate, and is better replaced than waited for.
   */
  async load(deadlineMs: number, reset: boolean, version: ChartjsVersion = this.version): Promise<void> {
    // a failed load leaves the page unusable: it is destroyed, never used with another version's page
    await withDeadline(this.page.goto(harnessUrl(version), { waitUntil: 'load' }), deadlineMs, 'harness load');
    this.version = version;
    // After the navigation, so nothing the previous document ran (timers, unload handlers) can
    // write again: IndexedDB, Cache Storage, service workers, cookies of the page's own context
    // (a new page's context is empty). About 5 ms.
    if (reset) {
      await withDeadline(
        Promise.all([
          this.cdp.send('Storage.clearDataForOrigin', { origin: HARNESS_ORIGIN, storageTypes: 'all' }),
          this.cdp.send('Network.clearBrowserCookies'),
        ]),
        deadlineMs,
        'storage clear',
      );
    }
    // sessionStorage and window.name survive a same-origin navigation in a tab; local storage is
    // cleared in the page as well so its in-renderer copy cannot lag the clear above. The new
    // document runs only the harness yet, so these are the browser's own functions, and it is
    // given its limits (numbers only) before anything else can call init.
    const res = (await this.cdp.send('Runtime.evaluate', {
      expression:
        "(function () { localStorage.clear(); sessionStorage.clear(); window.name = ''; var c = window.chartshot; return c && c.ready === true && c.version === " +
        String(version) +
        ' && c.init(' +
        JSON.stringify(this.limits) +
        ') === true ? c : null; })()',
    })) as { result: { objectId?: string } };
    if (!res.result.objectId) throw new Error('harness did not become ready');
    this.apiId = res.result.objectId;
  }

  /**
   * After a reset: the renderer's heap collected when the documents before left much in it
   * (RESET_COLLECT_BYTES); true when it was. What a caller allocated goes with the document,
   * but an idle renderer would keep it (and its memory) until something made it collect.
   */
  async collectIfLarge(deadlineMs: number, limitBytes = RESET_COLLECT_BYTES): Promise<boolean> {
    const h = (await withDeadline(this.cdp.send('Runtime.getHeapUsage'), deadlineMs, 'heap usage')) as { usedSize: number; totalSize: number; embedderHeapUsedSize?: number };
    if (h.usedSize + (h.embedderHeapUsedSize ?? 0) <= limitBytes && h.totalSize <= limitBytes) return false;
    await withDeadline(this.cdp.send('HeapProfiler.collectGarbage'), deadlineMs, 'garbage collection');
    return true;
  }

  /**
   * The render call on the pipe directly (cdpPipe.ts): no JSON text is made or parsed for it,
   * in Node or in the browser process. Without that, cdp.send without the stack trace puppeteer
   * captures for every call (an Error built per message in case the call fails later): a failed
   * render becomes a RenderError of its own, so that stack is never read.
   */
  private send(method: 'Runtime.callFunctionOn', params: Protocol.Runtime.CallFunctionOnRequest): Promise<unknown> {
    if (this.direct) return this.direct(this.cdp.id(), method, params as unknown as Record<string, unknown>);
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return this.cdp.send(method, params);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  /** A refused render as its error (String: floor's answer has no error of its own). */
  private failed(f: PageFailure): RenderError {
    if (f.memoryBudget === true) {
      // what the refused allocations left behind (and whatever caller code still holds) goes
      // with the page's renderer: the page is replaced, not reset
      this.markDead('memory budget exceeded');
      return new RenderError('memory', String(f.error).slice(0, 300));
    }
    if (f.wrongZone === true) {
      // the emulation did not take: whatever the page is in, it is not to be trusted again
      this.markDead('the page was not in its render\'s time zone and locale');
      return new RenderError('crash', 'the page was not in the time zone and locale of its request');
    }
    if (f.unknownZone !== undefined) return new RenderError('zone', f.unknownZone);
    const kind = typeof f.imageBytes === 'number' ? 'too_large' : f.budget === true ? 'budget' : 'config';
    return new RenderError(kind, String(f.error).slice(0, 300), undefined, f.imageBytes);
  }

  private async call<T extends { ok: boolean }>(
    fn: string,
    args: unknown[],
    deadlineMs = this.renderTimeoutMs,
    decode?: (value: unknown) => unknown,
    behind?: Promise<unknown>,
  ): Promise<T> {
    let timedOut = false;
    const interruptsBefore = this.interrupts;
    const pending = this.send('Runtime.callFunctionOn', {
      functionDeclaration: fn,
      objectId: this.apiId,
      arguments: args.map((value) => ({ value })),
      returnByValue: true,
      awaitPromise: true,
    });
    // a ride's deadline starts when the render ahead of it is over (afterSettled below)
    const deadline = afterMs(deadlineMs, () => {
      timedOut = true;
      this.interrupt(pending);
      return new RenderError('timeout', `render timed out after ${seconds(deadlineMs)}`);
    });
    // a ride failed by what happened to the render ahead of it, not by itself
    const notOwn = () => behind !== undefined && !timedOut && this.interrupts !== interruptsBefore;
    try {
      const res = (await settle(pending, behind ? afterSettled(behind, deadline) : deadline, onAbort(this.life.signal))) as {
        result: { value?: unknown };
        exceptionDetails?: { text?: string; exception?: { description?: string } };
      };
      if (res.exceptionDetails) {
        if (notOwn()) throw new RideRefused('the render ahead was interrupted');
        const msg = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text ?? 'page exception';
        throw new RenderError('config', msg.split('\n')[0]!.slice(0, 300));
      }
      const value = (decode ? decode(res.result.value) : res.result.value) as T | undefined;
      if (!value || typeof value !== 'object') throw new RenderError('crash', 'harness returned nothing');
      if (value.ok === false) {
        const f = value as unknown as PageFailure;
        if (f.rideRefused === true && behind) throw new RideRefused('the page was not clean for a ride');
        throw this.failed(f);
      }
      return value as T;
    } catch (err) {
      if (err instanceof RenderError || err instanceof RideRefused) throw err;
      if (notOwn()) throw new RideRefused('the render ahead was interrupted');
      if (this.interrupted) throw new RenderError('timeout', `render timed out after ${seconds(deadlineMs)}`);
      this.markDead('protocol error');
      throw new RenderError('crash', (err as Error).message);
    }
  }
}
