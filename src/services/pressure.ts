// GET /v1/pressure: how loaded this instance is and whether it takes work, for load balancers,
// readiness probes and autoscalers. Read from the pool's figures, the lifecycle and V8's heap;
// nothing about accounts or credentials. The same figures are Prometheus gauges (metrics.ts).
import { getHeapStatistics } from 'node:v8';
import type { PoolStats } from '../render/renderer.js';
import type { Lifecycle } from './lifecycle.js';
import { systemClock, type Clock } from '../clock.js';

/** Below this share of the heap limit left free, the instance takes no more work. */
export const MIN_HEAP_HEADROOM = 0.1;

export type NotAccepting = 'draining' | 'no_page' | 'memory';

export interface PressureReport {
  /** Whether this instance takes new work now (readiness). */
  accepting: boolean;
  /** Why not, when it does not. */
  reason?: NotAccepting;
  /** Pages the pool keeps (POOL_SIZE). */
  pages: number;
  /** Pages alive and able to render (idle or busy). */
  usable: number;
  /** Pages rendering now. */
  busy: number;
  /** Requests waiting for a page. */
  queued: number;
  /** Requests allowed to wait (MAX_QUEUE); more are refused with 503 at once. */
  maxQueue: number;
  /** (busy + queued) / pages: 1 = every page busy and none waiting; what autoscalers target. */
  load: number;
  /**
   * A store on another server (PostgreSQL): whether it answered the last call. Not part of
   * `accepting`: every instance shares it (docs/decisions/0040-store-outage-503.md). Absent with SQLite.
   */
  storeReachable?: boolean;
  memory: {
    heapUsedBytes: number;
    heapLimitBytes: number;
    /** heapLimitBytes - heapUsedBytes. */
    headroomBytes: number;
    /** headroomBytes / heapLimitBytes, 0-1. */
    headroomRatio: number;
  };
  timestamp: string;
}

export interface HeapFigures {
  used: number;
  limit: number;
}

const v8Heap = (): HeapFigures => {
  const h = getHeapStatistics();
  return { used: h.used_heap_size, limit: h.heap_size_limit };
};

export class PressureService {
  constructor(
    private readonly pool: { stats(): PoolStats },
    private readonly life: Pick<Lifecycle, 'phase'>,
    private readonly opts: { maxQueue: number },
    private readonly heap: () => HeapFigures = v8Heap,
    private readonly clock: Clock = systemClock,
    /** The store's reachability (Store.reachability), when it can be away. */
    private readonly store?: () => { reachable: boolean },
  ) {}

  report(): PressureReport {
    const s = this.pool.stats();
    const h = this.heap();
    const usable = s.browserConnected ? s.available + s.borrowed : 0;
    const headroomBytes = Math.max(0, h.limit - h.used);
    const headroomRatio = h.limit > 0 ? round(headroomBytes / h.limit) : 1;
    const reason: NotAccepting | undefined =
      this.life.phase !== 'serving' ? 'draining' : usable < 1 ? 'no_page' : headroomRatio < MIN_HEAP_HEADROOM ? 'memory' : undefined;
    return {
      accepting: reason === undefined,
      ...(reason && { reason }),
      pages: s.size,
      usable,
      busy: s.borrowed,
      queued: s.pending,
      maxQueue: this.opts.maxQueue,
      load: s.size > 0 ? round((s.borrowed + s.pending) / s.size) : 0,
      ...(this.store && { storeReachable: this.store().reachable }),
      memory: { heapUsedBytes: h.used, heapLimitBytes: h.limit, headroomBytes, headroomRatio },
      timestamp: new Date(this.clock.now()).toISOString(),
    };
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;
