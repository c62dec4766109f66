// The pool of pre-warmed Chromium pages, and leasing them: a slot of the admission gate, then a
// page of the request's Chart.js version (affinity.ts), then the page back, reset or replaced.
// Pages come from the page factory (pageFactory.ts), the browser from the supervisor
// (supervisor.ts). Why: docs/decisions/0007-crash-only-browser.md, 0020-render-in-parts.md.
import genericPool, { type Pool } from 'generic-pool';
import { AdmissionGate, AdmissionRefused, type AdmissionStats } from './admission.js';
import { VersionAffinity, DEFAULT_CHARTJS, VERSION_IDLE_MS } from './affinity.js';
import type { PageFactory } from './pageFactory.js';
import type { ChartjsVersion } from './harness.js';
import { RenderError, RideRefused, sleep, toWire, type PageRequest, type PageResult, type RenderPage, type WireRequest } from './page.js';
import type { Logger } from '../log.js';
import { tracer, type SpanAttributes } from '../tracing.js';
import { afterMs, settle, untilSettled, withDeadline } from '../settle.js';
import { ResetTally, answerResetReason, errorResetReason, type ResetReason } from './resetReasons.js';

export interface LeaseOptions {
  size: number;
  renderTimeoutMs: number;
  acquireTimeoutMs: number;
  maxQueue: number;
  /** Config texts from this length on cross CDP deflated (default DEFLATE_FROM). */
  deflateFrom?: number;
  /** Default VERSION_IDLE_MS (affinity.ts). */
  versionIdleMs?: number;
  /** Default VERSION_WAIT_MS (affinity.ts). */
  versionWaitMs?: number;
  /** MB of typed arrays, canvases and images caller code may allocate per render (alloc-guard.js). */
  renderMemoryMb?: number;
}

/** What the pool learns from the browser's memory wall around a render. */
export interface MemoryWatch {
  oomKills(): number;
  overMemory(): RenderError;
}

/** How long the reset of a page whose render was interrupted may take before it is replaced. */
export const INTERRUPTED_RESET_MS = 2000;

/**
 * A place behind the render a page is drawing: a waiting request handed one (AdmissionGate
 * handOff) sends its render to that page at once, to run as soon as the one ahead of it ends,
 * instead of waiting for the answer to cross back to Node and the page to be given back
 * (about 1-3 ms a render in which the page draws nothing). docs/decisions/0033-rides.md.
 */
interface Ride {
  readonly page: RenderPage;
  /** The render ahead of it (settles either way). */
  readonly behind: Promise<unknown>;
}

/** The renders sent to one leased page since it was leased: it goes back when the last ends. */
interface Chain {
  /** Renders sent (or rides handed out) and not ended yet. */
  count: number;
  /** Why the page must be reset before anyone else may use it (the first render of the chain
   *  that needs it names it); null: no reset. */
  reset: ResetReason | null;
  /** performance.now() at lease. */
  readonly leased: number;
  /** A ride handed out behind the last render and not sent yet. */
  riding: boolean;
  /** The last render sent, when a ride may still go behind it (none handed out yet). */
  open: Promise<unknown> | null;
  /** When that render was sent (performance.now()): the oldest is likely the first to end. */
  openedAt: number;
  /** When the render ahead of the next one ended (performance.now()): each render's own hold time. */
  lastEnd: number;
  /** Renders that left the page to be reset, and when each ended: they pay for the page's time
   *  after their answer (PageRequest.onReleased). */
  payers: Payer[];
}

interface Payer {
  readonly pay: (pageMs: number) => void;
  readonly endedAt: number;
}

/**
 * Renders that may have a ride behind them: ones the page answers synchronously (a deflated
 * config and images make it await: a ride would run in the middle of them) and that run no
 * caller code. The page would refuse a ride behind caller code it cannot prove pure, after the
 * ride crossed for nothing; a config with function strings is not worth the guess (the rule of
 * src/chart/callerCode.ts mayRunCallerCode, read off the config's text, escapes counted as
 * those words: a key with them in it only costs a ride). A render that fails is only known when it ended: the page refuses
 * the ride behind it then.
 */
function rideable(wire: WireRequest): boolean {
  if ('configDeflated' in wire && wire.configDeflated !== undefined) return false;
  if (wire.images !== undefined || wire.configJs !== undefined) return false;
  if (!wire.allowFunctions) return true;
  const json = 'configJson' in wire && typeof wire.configJson === 'string' ? wire.configJson : null;
  // the caller's own JSON text: "\u0066unction" is "function" once the page parses it, so any
  // \u escape counts as one of those words (JSON has no other escape that makes a letter, = or >)
  return json !== null && !json.includes('function') && !json.includes('=>') && !json.includes('\\u');
}

// Every lease is given back in `finally`; a page that failed, timed out or crashed
// is destroyed, a page that ran caller code is reset (page.ts) before anyone else may use it
// (unless every function was proven pure by renderer-page/pure.js and the page found nothing
// left behind: then it is reused at once), and pages recycle after a staggered number of
// renders.
export class PagePool {
  private pool!: Pool<RenderPage>;
  private closing = false;
  readonly counters = { queueRejections: 0, renders: 0, pageResets: 0, renderInterrupts: 0, rides: 0, rideRetries: 0, resetCollections: 0, busyAfterRender: 0, resetsGivenUp: 0 };
  /** Pages reset or replaced after a lease, by why (resetReasons.ts); version switches are the affinity's. */
  readonly resets = new ResetTally();
  /** The leased pages' chains of renders (rides included). */
  private readonly chains = new Map<RenderPage, Chain>();
  /**
   * Who may lease a page next. generic-pool's own queue is strictly FIFO and only refuses when
   * full or when the wait ran out; the gate in front of it holds one slot per page, serves
   * waiting owners round-robin and refuses at once a request that could not be served within
   * the acquire deadline. A slot is held from lease until the page is back in the pool (or
   * destroyed), so slots track free pages exactly and generic-pool itself almost never queues
   * (only while a page is being re-created after a crash or a recycle).
   */
  private readonly gate: AdmissionGate;
  readonly versions: VersionAffinity;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly opts: LeaseOptions,
    private readonly factory: PageFactory,
    private readonly memory: MemoryWatch,
    private readonly log: Logger,
  ) {
    this.gate = new AdmissionGate({ slots: opts.size, maxQueue: opts.maxQueue, maxWaitMs: opts.acquireTimeoutMs });
    const source = { acquire: () => this.pool.acquire(), release: (rp: RenderPage) => this.pool.release(rp), available: () => this.pool.available };
    this.versions = new VersionAffinity(source, factory.live, opts);
  }

  /** Pre-warms every page; resolves when the pool is full. */
  async start(): Promise<void> {
    this.pool = genericPool.createPool<RenderPage>(
      {
        create: () => this.factory.create(),
        destroy: (rp) => {
          this.versions.forget(rp);
          return this.factory.destroy(rp);
        },
        validate: (rp) => this.factory.validate(rp),
      },
      {
        min: this.opts.size,
        max: this.opts.size,
        testOnBorrow: true,
        // The page returned last is leased first: at low concurrency one page does the work
        // and stays hot. Alternating between idle pages measured 1.7 ms slower per 100x100
        // render (pool.render p50 3.8 -> 2.1 ms; the in-page time itself 2.4 -> 1.4 ms).
        fifo: false,
        acquireTimeoutMillis: this.opts.acquireTimeoutMs,
        // Only slot holders of the gate ever call acquire(): at most one per page waits here.
        maxWaitingClients: this.opts.size,
        autostart: true,
      },
    );
    const deadline = Date.now() + 60000;
    while (this.pool.size < this.opts.size || this.pool.available + this.pool.borrowed < this.opts.size) {
      if (Date.now() > deadline) throw new Error('pool did not fill within 60 s');
      await sleep(20);
    }
    const idleMs = this.opts.versionIdleMs ?? VERSION_IDLE_MS;
    this.sweepTimer = setInterval(() => void this.sweepVersions(idleMs), Math.max(250, idleMs / 4));
    this.sweepTimer.unref();
  }

  /**
   * A slot of the gate for `owner`, then a page. The slot is given back by giveBack(), or here
   * when no page comes (generic-pool's acquire timeout: the pool is refilling after a crash).
   * A request whose `signal` aborts while it waits leaves the queue and takes no page.
   */
  private async acquire(owner: string, signal?: AbortSignal, version: ChartjsVersion = DEFAULT_CHARTJS, mayRide = false): Promise<RenderPage | Ride> {
    if (this.closing) throw new RenderError('busy', 'shutting down');
    if (mayRide && !signal?.aborted) {
      const ride = this.openRide(version);
      if (ride) return ride;
    }
    const wait = this.gate.enter(owner, signal, mayRide ? version : undefined);
    if (wait) {
      try {
        const handed = await wait;
        if (handed) return handed as Ride;
      } catch (err) {
        const gone = err instanceof AdmissionRefused && err.reason === 'aborted';
        if (!gone) this.counters.queueRejections++;
        const e = err as Error;
        throw new RenderError('busy', e.message, err instanceof AdmissionRefused ? err.retryAfterMs : undefined);
      }
    }
    let rp: RenderPage;
    try {
      if (this.closing) throw new Error('shutting down');
      rp = await this.versions.take(version);
    } catch (err) {
      this.gate.leave();
      this.counters.queueRejections++;
      const msg = (err as Error).message;
      throw new RenderError('busy', /waitingClients/.test(msg) ? 'render queue is full' : /shutting down|draining/.test(msg) ? 'shutting down' : 'no renderer free in time');
    }
    if (signal?.aborted) {
      // gone while generic-pool found the page: nothing ran on it, so no reset
      void this.giveBack(rp, null, undefined);
      throw new RenderError('busy', 'the client went away');
    }
    return rp;
  }

  /**
   * Pages of a version nobody asked for within idleMs go back to the default version, one at a
   * time, and only through a slot of the gate that is free while nobody waits: it never takes a
   * page from a waiting request (one arriving meanwhile may wait for the switch, ~150 ms).
   */
  private async sweepVersions(idleMs: number): Promise<void> {
    if (this.closing || !this.pool) return;
    const v = this.versions.idleVersion(idleMs);
    if (v === undefined || !this.gate.tryEnter()) return;
    let rp: RenderPage | undefined;
    try {
      rp = await this.versions.take(v, false);
      if (rp.version === v) await this.versions.switchVersion(rp, DEFAULT_CHARTJS);
    } catch (err) {
      if (!rp) {
        this.gate.leave();
        return;
      }
      this.log.warn({ err }, 'switching a page back to the default Chart.js version failed');
    }
    if (rp) void this.giveBack(rp, null, undefined);
  }

  /**
   * Renders on a leased page; the page is given back (or replaced) without delaying the caller.
   * `owner` (an account, a client address) is whom the admission queue keeps fair between;
   * `signal` (the client's connection) takes the request out of the queue when it aborts.
   */
  async render(req: PageRequest, owner = '', signal?: AbortSignal, mayRide = true): Promise<PageResult> {
    const version = req.chartjs ?? DEFAULT_CHARTJS;
    this.versions.asked(version);
    const wire = await toWire(this.opts.renderMemoryMb ? { ...req, memoryBudgetMb: this.opts.renderMemoryMb } : req, this.opts.deflateFrom);
    const got = await tracer().span('admission wait', { 'chartshot.chartjs': version }, async (span) => {
      const asked = performance.now();
      const page = await this.acquire(owner, signal, version, mayRide);
      span.set({ 'chartshot.queue_wait_ms': performance.now() - asked, 'chartshot.page.id': 'behind' in page ? page.page.id : page.id });
      return page;
    });
    if ('behind' in got) return this.ride(got, req, wire, owner, signal);
    const rp = got;
    const leased = performance.now();
    const chain: Chain = { count: 1, reset: null, leased, riding: false, open: null, openedAt: 0, lastEnd: leased, payers: [] };
    this.chains.set(rp, chain);
    let reset: ResetReason | null = 'failed';
    try {
      if (rp.version !== version) await this.versions.switchVersion(rp, version);
      const oomBefore = this.memory.oomKills();
      const res = await this.draw(rp, chain, req, wire).catch((err: unknown) => {
        throw this.memory.oomKills() > oomBefore ? this.memory.overMemory() : err;
      });
      // null: no caller code ran, or all of it was proven pure and left nothing behind
      reset = res.needsReset !== false ? answerResetReason(res) : null;
      return res;
    } catch (err) {
      reset = errorResetReason(err);
      throw err;
    } finally {
      // a refused config may have left half-built state behind: reset before reuse
      this.ended(rp, chain, reset, req.onReleased);
    }
  }

  /** One render of a page's chain, counted and traced (a ride's span says so); the page's own
   *  count of renders moves when it drew. */
  private draw(rp: RenderPage, chain: Chain, req: PageRequest, wire: WireRequest, behind?: Promise<unknown>): Promise<PageResult> {
    this.counters.renders++;
    const attributes = pageAttributes(req, rp.id);
    if (behind) attributes['chartshot.ride'] = true;
    return tracer()
      .span('page render', attributes, () => this.send(rp, chain, wire, req.deadlineMs, behind))
      .then((res) => {
        rp.renders++;
        return res;
      });
  }

  /**
   * Sends a render on a leased page (behind another one for a ride). Once it is the one the
   * page draws (at once, or when the render ahead of it ended), a ride behind it is offered to
   * the next request waiting, when it allows one: at most one render waits in a page, so
   * queueing stays with the admission gate (its limits, its fairness, its Retry-After).
   */
  private send(rp: RenderPage, chain: Chain, wire: WireRequest, deadlineMs: number | undefined, behind?: Promise<unknown>): Promise<PageResult> {
    const p = rp.render(wire, deadlineMs, behind);
    chain.open = null;
    // no ride behind a render the page awaits, or one that may be the page's last before it recycles
    if (!rideable(wire) || rp.renders + chain.count + 1 >= rp.maxRenders) return p;
    let over = false;
    // settles when the render does, either way; an open place behind it closes then
    const done = () => {
      over = true;
      if (chain.open === behindIt) chain.open = null;
    };
    const behindIt: Promise<void> = p.then(done, done);
    const offer = () => {
      // not on a page that is dead, interrupted or going away, nor behind a render already over
      if (over || this.closing || chain.riding || chain.count === 0 || this.chains.get(rp) !== chain || rp.dead || rp.wasInterrupted) return;
      if (this.gate.handOff({ page: rp, behind: behindIt } satisfies Ride, (tag) => tag === rp.version)) {
        chain.count++;
        chain.riding = true;
        return;
      }
      // nobody waits: the first request to come while it draws rides behind it
      chain.open = behindIt;
      chain.openedAt = performance.now();
    };
    if (behind) void behind.then(offer);
    else offer();
    return p;
  }

  /** A ride for a request that would otherwise queue: behind the oldest render of its version
   *  that still takes one. Only when no page is free and nobody waits (nobody is overtaken). */
  private openRide(version: ChartjsVersion): Ride | null {
    if (this.closing || !this.gate.full()) return null;
    let best: [RenderPage, Chain] | null = null;
    for (const [rp, chain] of this.chains) {
      if (!chain.open || chain.riding || rp.dead || rp.wasInterrupted || rp.version !== version) continue;
      if (!best || chain.openedAt < best[1].openedAt) best = [rp, chain];
    }
    if (!best) return null;
    const [page, chain] = best;
    const ride: Ride = { page, behind: chain.open! };
    chain.open = null;
    chain.count++;
    chain.riding = true;
    return ride;
  }

  /**
   * A ride: the render goes to the page at once, behind the render it was handed out after.
   * When it could not run as its own (the page refused it, or the render ahead was interrupted
   * or crashed the page), it is sent again through the pool like any request, with no ride.
   * It waits behind that render no longer than a request may wait for a page
   * (ACQUIRE_TIMEOUT_MS): a render ahead that hangs answers it 503 in time, as the queue would;
   * the page still runs it (it is already there) and goes back when it is done with it.
   */
  private async ride(ride: Ride, req: PageRequest, wire: WireRequest, owner: string, signal?: AbortSignal): Promise<PageResult> {
    const rp = ride.page;
    const chain = this.chains.get(rp)!;
    chain.riding = false;
    if (this.closing || signal?.aborted || rp.dead || rp.wasInterrupted) {
      this.ended(rp, chain, null);
      if (this.closing) throw new RenderError('busy', 'shutting down');
      if (signal?.aborted) throw new RenderError('busy', 'the client went away');
      this.counters.rideRetries++;
      return this.render(req, owner, signal, false);
    }
    this.counters.rides++;
    const oomBefore = this.memory.oomKills();
    const sent = this.draw(rp, chain, req, wire, ride.behind);
    // the page's chain ends when the page is done with the ride, whatever its caller was told
    void sent.then(
      (res) => this.ended(rp, chain, res.needsReset !== false ? answerResetReason(res) : null, req.onReleased),
      (err: unknown) => this.ended(rp, chain, errorResetReason(err), req.onReleased),
    );
    // once the render ahead is over the ride is the page's own render, with its own deadline
    const tooLong = afterMs(this.opts.acquireTimeoutMs, () => new RenderError('busy', 'no renderer free in time', this.gate.stats().avgHoldMs));
    try {
      return await settle(sent, untilSettled(ride.behind, tooLong));
    } catch (err) {
      if (err instanceof RenderError && err.kind === 'busy') {
        this.counters.queueRejections++;
        throw err;
      }
      // the page crashed (or its renderer was killed over memory) while it waited: not its doing
      if (!(err instanceof RideRefused || (err instanceof RenderError && err.kind === 'crash'))) {
        throw this.memory.oomKills() > oomBefore ? this.memory.overMemory() : err;
      }
    }
    this.counters.rideRetries++;
    return this.render(req, owner, signal, false);
  }

  /** One render of a page's chain ended: the page goes back when it was the last. */
  private ended(rp: RenderPage, chain: Chain, reset: ResetReason | null, onReleased?: (pageMs: number) => void): void {
    const now = performance.now();
    // the first render that needs a reset names it (a ride refused behind it is its consequence)
    chain.reset ??= reset;
    if (reset && onReleased) chain.payers.push({ pay: onReleased, endedAt: now });
    if (--chain.count > 0) {
      // a ride's own hold time, from when the render ahead of it ended
      this.gate.sample(now - chain.lastEnd);
      chain.lastEnd = now;
      return;
    }
    this.chains.delete(rp);
    void this.giveBack(rp, chain.reset, chain.lastEnd, chain.payers);
  }

  /** The in-page floor: how long Chart.js itself takes per render on a leased page. */
  async floor(req: PageRequest, n: number): Promise<{ msPerRender: number; checkMsPerRender: number }> {
    const version = req.chartjs ?? DEFAULT_CHARTJS;
    const rp = (await this.acquire('', undefined, version)) as RenderPage;
    try {
      if (rp.version !== version) await this.versions.switchVersion(rp, version);
      return await rp.floor(req, n);
    } finally {
      // n renders in one lease: not a sample of the usual hold time
      void this.giveBack(rp, null, undefined);
    }
  }

  /** Returns (or replaces) a page, then frees its gate slot: exactly once per lease. `leased`
   *  (performance.now() at lease) feeds the gate's average hold time; undefined = no sample.
   *  `payers`: the renders that left it to be reset, charged the time until it is back. */
  private async giveBack(rp: RenderPage, needed: ResetReason | null, leased: number | undefined, payers: readonly Payer[] = []): Promise<void> {
    try {
      // a render past its deadline was interrupted: reset once its script stopped, else replaced
      const interruption = rp.takeInterruption();
      const interrupted = interruption !== null;
      let reset = needed;
      if (interrupted) {
        this.counters.renderInterrupts++;
        reset = 'interrupted';
        if (!(await interruption)) rp.markDead('the interrupted script did not stop');
      }
      let keptBusy = false;
      // a reset is counted as soon as it is decided (before the probe below waits on the page), so
      // the figures a caller reads once its answer arrived already include it
      const counted = reset !== null && !rp.dead && rp.renders < rp.maxRenders;
      if (counted) {
        this.counters.pageResets++;
        this.resets.note(reset!);
      }
      if (reset && !rp.dead) {
        // caller code ran: nothing it scheduled outlives the render (renderer-page/task-guard.js),
        // and what the page cannot cancel is stopped now; a page still busy is replaced
        const state = await rp.settle();
        if (state !== 'idle') this.counters.busyAfterRender++;
        if (state === 'busy') {
          keptBusy = true;
          rp.markDead('caller code kept the page busy after its render');
        }
      }
      if (rp.dead || rp.renders >= rp.maxRenders) {
        // replaced: why it died (caller code that kept it busy: counted above), or its age
        if (!(counted && keptBusy)) this.resets.note(rp.dead ? (reset === 'memory' || reset === 'interrupted' ? reset : keptBusy ? 'caller_code' : 'crash') : 'recycled');
        await this.pool.destroy(rp);
        return;
      }
      if (reset) {
        try {
          // an interrupted script may have left timers that keep the page too busy to navigate:
          // a short wait, then a new page (a reset takes tens of ms on a page that can navigate)
          await rp.load(interrupted ? INTERRUPTED_RESET_MS : Math.min(15000, Math.max(3000, this.opts.renderTimeoutMs)), true);
          // what the caller left in the renderer's heap, collected now rather than kept by an idle page
          if (await rp.collectIfLarge(Math.min(15000, Math.max(3000, this.opts.renderTimeoutMs)))) this.counters.resetCollections++;
        } catch (err) {
          // a page too busy to navigate within the reset's deadline: whoever waited for it waited that long
          this.counters.resetsGivenUp++;
          this.log.warn({ err }, 'page reset failed; replacing it');
          await this.pool.destroy(rp);
          return;
        }
      }
      await this.versions.release(rp);
    } catch (err) {
      this.log.error({ err }, 'returning a page to the pool failed');
    } finally {
      const now = performance.now();
      this.gate.leave(leased === undefined ? undefined : now - leased);
      for (const p of payers) p.pay(now - p.endedAt);
    }
  }

  /** Pages in and out of the pool and the queue in front of it. */
  stats(): { available: number; borrowed: number; pending: number; admission: AdmissionStats } {
    const admission = this.gate.stats();
    return {
      available: this.pool?.available ?? 0,
      borrowed: this.pool?.borrowed ?? 0,
      // requests waiting for a page: in the gate's queue, or (after a crash) for a new page
      pending: (this.pool?.pending ?? 0) + admission.waiting,
      admission,
    };
  }

  /** Whoever still waits for a page gets a clean 503 now; leased pages are awaited (up to
   *  15 s), then every page is closed. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.sweepTimer);
    this.gate.close();
    if (!this.pool) return;
    await withDeadline(this.pool.drain().then(() => this.pool.clear()), 15000, 'pool drain').catch((err) => this.log.warn({ err }, 'pool drain incomplete'));
  }
}

/** What a page render span says about its chart (no config content: it may be private). */
function pageAttributes(req: PageRequest, pageId: number): SpanAttributes {
  const type = req.configJs !== undefined ? 'javascript' : typeof req.config.type === 'string' ? req.config.type.slice(0, 32) : 'mixed';
  return {
    'chartshot.page.id': pageId,
    'chartshot.chart.type': type,
    'chartshot.chartjs': req.chartjs ?? DEFAULT_CHARTJS,
    'chartshot.width': req.width,
    'chartshot.height': req.height,
    'chartshot.format': req.format,
    'chartshot.device_pixel_ratio': req.devicePixelRatio ?? 1,
  };
}
