// The pool of pre-warmed Chromium pages, and leasing them: a slot of the admission gate, then a
// page of the request's Chart.js version (affinity.ts), then the page back, reset or replaced.
// Pages come from the page factory (pageFactory.ts), the browser from the supervisor
// (supervisor.ts). Why: docs/decisions/0007-crash-only-browser.md, 0020-render-in-parts.md.
import genericPool, { type Pool } from 'generic-pool';
import { AdmissionGate, AdmissionRefused, type AdmissionStats } from './admission.js';
import { VersionAffinity, DEFAULT_CHARTJS, VERSION_IDLE_MS } from './affinity.js';
import type { PageFactory } from './pageFactory.js';
import type { ChartjsVersion } from './harness.js';
import { RenderError, sleep, toWire, withDeadline, type PageRequest, type PageResult, type RenderPage } from './page.js';
import type { Logger } from '../log.js';
import { tracer, type SpanAttributes } from '../tracing.js';

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

// Every lease is given back in `finally`; a page that failed, timed out or crashed
// is destroyed, a page that ran caller code is reset (page.ts) before anyone else may use it
// (unless every function was proven pure by renderer-page/pure.js and the page found nothing
// left behind: then it is reused at once), and pages recycle after a staggered number of
// renders.
export class PagePool {
  private pool!: Pool<RenderPage>;
  private closing = false;
  readonly counters = { queueRejections: 0, renders: 0, pageResets: 0, renderInterrupts: 0 };
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
  private async acquire(owner: string, signal?: AbortSignal, version: ChartjsVersion = DEFAULT_CHARTJS): Promise<RenderPage> {
    if (this.closing) throw new RenderError('busy', 'shutting down');
    const wait = this.gate.enter(owner, signal);
    if (wait) {
      try {
        await wait;
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
      void this.giveBack(rp, false, undefined);
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
    if (rp) void this.giveBack(rp, false, undefined);
  }

  /**
   * Renders on a leased page; the page is given back (or replaced) without delaying the caller.
   * `owner` (an account, a client address) is whom the admission queue keeps fair between;
   * `signal` (the client's connection) takes the request out of the queue when it aborts.
   */
  async render(req: PageRequest, owner = '', signal?: AbortSignal): Promise<PageResult> {
    const version = req.chartjs ?? DEFAULT_CHARTJS;
    this.versions.asked(version);
    const wire = await toWire(this.opts.renderMemoryMb ? { ...req, memoryBudgetMb: this.opts.renderMemoryMb } : req, this.opts.deflateFrom);
    const rp = await tracer().span('admission wait', { 'chartshot.chartjs': version }, async (span) => {
      const asked = performance.now();
      const page = await this.acquire(owner, signal, version);
      span.set({ 'chartshot.queue_wait_ms': performance.now() - asked, 'chartshot.page.id': page.id });
      return page;
    });
    const leased = performance.now();
    let reset = true;
    try {
      if (rp.version !== version) await this.versions.switchVersion(rp, version);
      this.counters.renders++;
      const oomBefore = this.memory.oomKills();
      const res = await tracer().span('page render', pageAttributes(req, rp.id), () => rp.render(wire, req.deadlineMs)).catch((err: unknown) => {
        throw this.memory.oomKills() > oomBefore ? this.memory.overMemory() : err;
      });
      rp.renders++;
      // no caller code ran, or all of it was proven pure and left nothing behind
      reset = res.needsReset !== false;
      return res;
    } finally {
      // a refused config may have left half-built state behind: reset before reuse
      void this.giveBack(rp, reset, leased);
    }
  }

  /** The in-page floor: how long Chart.js itself takes per render on a leased page. */
  async floor(req: PageRequest, n: number): Promise<{ msPerRender: number }> {
    const version = req.chartjs ?? DEFAULT_CHARTJS;
    const rp = await this.acquire('', undefined, version);
    try {
      if (rp.version !== version) await this.versions.switchVersion(rp, version);
      return await rp.floor(req, n);
    } finally {
      // n renders in one lease: not a sample of the usual hold time
      void this.giveBack(rp, false, undefined);
    }
  }

  /** Returns (or replaces) a page, then frees its gate slot: exactly once per lease. `leased`
   *  (performance.now() at lease) feeds the gate's average hold time; undefined = no sample. */
  private async giveBack(rp: RenderPage, reset: boolean, leased: number | undefined): Promise<void> {
    try {
      // a render past its deadline was interrupted: reset once its script stopped, else replaced
      const interruption = rp.takeInterruption();
      const interrupted = interruption !== null;
      if (interrupted) {
        this.counters.renderInterrupts++;
        if (!(await interruption)) rp.markDead('the interrupted script did not stop');
      }
      if (rp.dead || rp.renders >= rp.maxRenders) {
        await this.pool.destroy(rp);
        return;
      }
      if (reset) {
        this.counters.pageResets++;
        try {
          // an interrupted script may have left timers that keep the page too busy to navigate:
          // a short wait, then a new page (a reset takes tens of ms on a page that can navigate)
          await rp.load(interrupted ? INTERRUPTED_RESET_MS : Math.min(15000, Math.max(3000, this.opts.renderTimeoutMs)), true);
        } catch (err) {
          this.log.warn({ err }, 'page reset failed; replacing it');
          await this.pool.destroy(rp);
          return;
        }
      }
      await this.versions.release(rp);
    } catch (err) {
      this.log.error({ err }, 'returning a page to the pool failed');
    } finally {
      this.gate.leave(leased === undefined ? undefined : performance.now() - leased);
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
