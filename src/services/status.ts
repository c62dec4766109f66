// GET /v1/status: is the service able to render right now? Judged by the browser, the pool and a
// tiny probe render, never by waiting behind real work.
import type { PageRequest, PageResult, PoolStats, RendererInfo } from '../render/renderer.js';
import { systemClock, type Clock } from '../clock.js';
import { withDeadline } from '../settle.js';
import { describeStorageFailure, StorageError } from '../store/errors.js';
import type { heapStatus } from '../heapLimit.js';

export interface StatusReport {
  status: 'healthy' | 'degraded';
  reason?: string;
  buildHash: string;
  /** Round trip to the store, ms. */
  kvLatency: number;
  oauth: { google: boolean };
  /** How Chromium is contained; sandbox "off" comes with a warning (still healthy). */
  renderer?: RendererInfo & { warning?: string };
  /** Chromium's cgroup and the in-page allocation budget; cgroup "none" says why in reason. */
  memoryWall?: NonNullable<PoolStats['memoryWall']>;
  /** Pages reloaded or replaced since start, by reason (resetReasons.ts). */
  pageResets?: NonNullable<PoolStats['resetsByReason']>;
  /** Node's heap limit in effect and where it came from (src/heapLimit.ts). */
  nodeHeap?: NodeHeapStatus;
  timestamp: string;
}

export type NodeHeapStatus = ReturnType<typeof heapStatus>;

/** What the status check needs of the pool. */
export interface ProbePool {
  stats(): PoolStats;
  render(req: PageRequest): Promise<PageResult>;
}

export interface StatusOptions {
  buildHash: string;
  googleOAuth: boolean;
  /** How long a probe result is reused, ms. */
  probeTtlMs?: number;
  /** Longest a probe may take before the pool counts as unable to render, ms. */
  probeDeadlineMs?: number;
  nodeHeap?: NodeHeapStatus;
}

const PROBE: PageRequest = {
  config: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { animation: false } },
  width: 16,
  height: 16,
  format: 'png',
  backgroundColor: null,
  allowFunctions: false,
  watermark: null,
};

interface ProbeResult {
  ok: boolean;
  reason?: string;
  at: number;
}

// Healthy only when the browser is connected, the pool has live pages and a tiny probe render
// (run only when a page is idle, with a short deadline, its result reused for a few seconds)
// succeeded. A busy pool is judged by its figures and the last probe.
export class StatusService {
  private last: ProbeResult | null = null;
  private running: Promise<ProbeResult> | null = null;

  constructor(
    private readonly pool: ProbePool,
    private readonly store: { ping(): Promise<number> },
    private readonly opts: StatusOptions,
    private readonly clock: Clock = systemClock,
  ) {}

  async report(): Promise<StatusReport> {
    const [health, kvLatency] = await Promise.all([this.health(), this.kvLatency()]);
    const report: StatusReport = {
      status: health.ok ? 'healthy' : 'degraded',
      buildHash: this.opts.buildHash,
      kvLatency: kvLatency.ms,
      oauth: { google: this.opts.googleOAuth },
      ...this.renderer(),
      ...this.memoryWall(),
      ...this.pageResets(),
      ...(this.opts.nodeHeap && { nodeHeap: { ...this.opts.nodeHeap } }),
      timestamp: new Date(this.clock.now()).toISOString(),
    };
    const reason = health.ok ? kvLatency.reason : health.reason;
    if (kvLatency.reason) report.status = 'degraded';
    if (reason) report.reason = reason;
    return report;
  }

  private renderer(): Pick<StatusReport, 'renderer'> {
    const r = this.pool.stats().renderer;
    if (!r) return {};
    if (r.sandbox === 'on') return { renderer: { ...r } };
    return { renderer: { ...r, warning: "Chromium's sandbox is off (--no-sandbox): caller code is contained only by the page" } };
  }

  private memoryWall(): Pick<StatusReport, 'memoryWall'> {
    const w = this.pool.stats().memoryWall;
    return w ? { memoryWall: { ...w } } : {};
  }

  private pageResets(): Pick<StatusReport, 'pageResets'> {
    const r = this.pool.stats().resetsByReason;
    return r ? { pageResets: { ...r } } : {};
  }

  private async kvLatency(): Promise<{ ms: number; reason?: string }> {
    try {
      const ms = await this.store.ping();
      return { ms: Math.round(ms * 1000) / 1000 };
    } catch (err) {
      // a connection failure's message names the database's address: a public endpoint says the cause and its code only
      return { ms: -1, reason: `store unreachable: ${err instanceof StorageError ? describeStorageFailure(err) : (err as Error).message}` };
    }
  }

  private async health(): Promise<{ ok: boolean; reason?: string }> {
    const s = this.pool.stats();
    if (!s.browserConnected) return { ok: false, reason: 'browser not connected' };
    if (s.available + s.borrowed < 1) return { ok: false, reason: 'no live render pages' };
    const ttl = this.opts.probeTtlMs ?? 5000;
    // Probe timing is wall time, not the service clock (tests may freeze that one).
    const now = performance.now();
    const fresh = this.last && now - this.last.at < ttl ? this.last : null;
    if (fresh) return fresh;
    if (s.available < 1) {
      // Every page is busy: probing would queue behind real renders. Busy is not broken;
      // the last probe (however old) says whether renders were completing.
      return this.last && !this.last.ok ? this.last : { ok: true };
    }
    return this.probe();
  }

  private probe(): Promise<ProbeResult> {
    this.running ??= (async () => {
      const deadline = this.opts.probeDeadlineMs ?? 3000;
      try {
        await withDeadline(this.pool.render(PROBE), deadline, 'probe render');
        this.last = { ok: true, at: performance.now() };
      } catch (err) {
        this.last = { ok: false, reason: `probe render failed: ${(err as Error).message}`, at: performance.now() };
      } finally {
        this.running = null;
      }
      return this.last;
    })();
    return this.running;
  }
}
