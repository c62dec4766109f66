// The pool of pre-warmed Chromium pages, and leasing them: a slot of the admission gate, then a
// page of the request's Chart.js version (affinity.ts), then the page back, reset or replaced.
// Pages come from the page factory (pageFactory.ts), the browser from the supervisor
// (supervisor.ts). Why: docs/decisions/0007-crash-only-browser.md, 0020-render-in-parts.md.
import genericPool, { type Pool } from 'generic-pool';
import { AdmissionGate, AdmissionRefused, type AdmissionStats } from './admission.js';
import { VersionAffinity, DEFAULT_CHARTJS, VERSION_IDLE_MS } from './affinity.js';
import type { PageFactory } from './pageFactory.js';
import type { ChartjsVersion } from './harness.js';
import type { PageResult, RenderPage } from './page.js';
import { RenderError, RideRefused } from './renderError.js';
import { pageAttributes, toWire, type PageRequest, type WireRequest } from './wire.js';
import { giveBack, type ReturnDeps } from './release.js';
import { RideBook, type Chain, type Ride } from './rides.js';
import type { Logger } from '../log.js';
import { tracer } from '../tracing.js';
import { afterMs, settle, sleep, untilSettled, withDeadline } from '../settle.js';
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

// Every lease is given back in `finally`, reset or replaced as its renders require (release.ts);
// pages recycle after a staggered number of renders.
export class PagePool {
  private pool!: Pool<RenderPage>;
  private closing = false;
  readonly counters = { queueRejections: 0, renders: 0, pageResets: 0, renderInterrupts: 0, rides: 0, rideRetries: 0, resetCollections: 0, busyAfterRender: 0, resetsGivenUp: 0 };
  /** Pages reset or replaced after a lease, by why (resetReasons.ts); version switches are the affinity's. */
  readonly resets = new ResetTally();
  /** The leased pages' chains of renders (rides included). */
  private readonly rides: RideBook;
  /** What giving a page back needs (release.ts). */
  private readonly returns: ReturnDeps;
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
    this.rides = new RideBook(this.gate, { closing: () => this.closing, back: (rp, reset, lastEnd, payers) => void giveBack(this.returns, rp, reset, lastEnd, payers) });
    this.returns = {
      destroy: (rp) => this.pool.destroy(rp),
      release: (rp) => this.versions.release(rp),
      leave: (heldMs) => this.gate.leave(heldMs),
      counters: this.counters,
      resets: this.resets,
      renderTimeoutMs: opts.renderTimeoutMs,
      log,
    };
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
    const back = (rp: RenderPage) => void giveBack(this.returns, rp, null, undefined);
    const warn = (err: unknown) => this.log.warn({ err }, 'switching a page back to the default Chart.js version failed');
    this.sweepTimer = setInterval(() => void (this.closing ? undefined : this.versions.sweep(idleMs, this.gate, back, warn)), Math.max(250, idleMs / 4));
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
      const ride = this.rides.open(version);
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
      void giveBack(this.returns, rp, null, undefined);
      throw new RenderError('busy', 'the client went away');
    }
    return rp;
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
    const chain = this.rides.lease(rp, leased);
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
      this.rides.ended(rp, chain, reset, req.onReleased);
    }
  }

  /** One render of a page's chain, counted and traced (a ride's span says so); the page's own
   *  count of renders moves when it drew. */
  private draw(rp: RenderPage, chain: Chain, req: PageRequest, wire: WireRequest, behind?: Promise<unknown>): Promise<PageResult> {
    this.counters.renders++;
    const attributes = pageAttributes(req, rp.id, req.chartjs ?? DEFAULT_CHARTJS);
    if (behind) attributes['chartshot.ride'] = true;
    return tracer()
      .span('page render', attributes, () => {
        const p = rp.render(wire, req.deadlineMs, behind);
        this.rides.sent(rp, chain, wire, p, behind);
        return p;
      })
      .then((res) => {
        rp.renders++;
        return res;
      });
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
    const chain = this.rides.chainOf(rp);
    chain.riding = false;
    if (this.closing || signal?.aborted || rp.dead || rp.wasInterrupted) {
      this.rides.ended(rp, chain, null);
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
      (res) => this.rides.ended(rp, chain, res.needsReset !== false ? answerResetReason(res) : null, req.onReleased),
      (err: unknown) => this.rides.ended(rp, chain, errorResetReason(err), req.onReleased),
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

  /** The in-page floor: how long Chart.js itself takes per render on a leased page. */
  async floor(req: PageRequest, n: number): Promise<{ msPerRender: number; checkMsPerRender: number }> {
    const version = req.chartjs ?? DEFAULT_CHARTJS;
    const rp = (await this.acquire('', undefined, version)) as RenderPage;
    try {
      if (rp.version !== version) await this.versions.switchVersion(rp, version);
      return await rp.floor(req, n);
    } finally {
      // n renders in one lease: not a sample of the usual hold time
      void giveBack(this.returns, rp, null, undefined);
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
