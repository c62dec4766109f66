// One renderer page: a Chromium tab in its own browser context with the harness loaded, the CDP
// call that runs a render on it, and the reset that cleans it. Leasing and recycling: pool.ts.
import type { BrowserContext, CDPSession, Page, Protocol } from 'puppeteer-core';
import { HARNESS_ORIGIN, harnessUrl, type ChartjsVersion } from './harness.js';
import { PAGE_LIMITS, type PageLimits } from './pageLimits.js';
import type { DirectCall } from './cdpPipe.js';
import { afterMs, afterSettled, onAbort, settle, withDeadline } from '../settle.js';
import type { FloorResult, PageFailure, PageResult, PartBox } from '../../renderer-page/protocol.js';
import { DEFAULT_ZONE_LOCALE, type ZoneLocale } from '../chart/zoneLocale.js';
import { ZoneEmulation } from './emulation.js';
import { RenderError, RideRefused, fromPageFailure } from './renderError.js';
import { IDLE_PROBE_MS, IDLE_STOPS, INTERRUPT_SETTLE_MS, RESET_COLLECT_BYTES } from './pageTimes.js';
import { CALL_FLOOR, CALL_RENDER, fromAnswerText, toWire, wireArguments, type PageRequest, type WireRequest } from './wire.js';

export type { PageResult, PartBox };


/** 10000 -> "10 s", 2500 -> "2.5 s". */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(2))} s`;

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
  /** The zone and locale emulation of this page's session. */
  private readonly zone = new ZoneEmulation((method, params) => this.command(method, params));

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

  /** The page in `want`'s zone and locale (emulation.ts); null when it is there already. A
   *  failed switch leaves the page's zone unknown: the page is replaced. */
  emulate(want: ZoneLocale): Promise<void> | null {
    return this.zone.set(want)?.catch((err: unknown) => {
      this.markDead('the time zone or locale could not be set');
      throw new RenderError('crash', `emulating ${want.timezone} and ${want.locale} failed: ${(err as Error).message}`.slice(0, 300));
    }) ?? null;
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
        const { error, replace } = fromPageFailure(f);
        // what a memory budget's refused allocations left, or an emulation that did not take: the page is not reused
        if (replace) this.markDead(replace);
        throw error;
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
