// What /v1/status and /metrics read about the renderer: one snapshot put together from the
// parts that keep the figures (pool, page factory, affinity, supervisor, printer).
import type { AdmissionStats } from './admission.js';
import type { SandboxMode } from './browser.js';
import type { MemoryWallStatus } from './cgroup.js';
import type { ChartjsVersion } from './harness.js';
import type { ResetReason } from './resetReasons.js';

/** The in-page allocation budget when none is set: alloc-guard.js's own default. */
export const DEFAULT_RENDER_MEMORY_MB = 256;

export interface PoolStats {
  size: number;
  available: number;
  borrowed: number;
  pending: number;
  browserRestarts: number;
  pagesCreated: number;
  pagesDestroyed: number;
  queueRejections: number;
  browserConnected: boolean;
  /** Pages whose renderer process crashed or was killed (each is replaced). */
  pagesCrashed?: number;
  /** Renders started on a page (requests that left the queue never count). */
  renders?: number;
  /** Pages reloaded after a render whose functions were not all proven pure. */
  pageResets?: number;
  /** Pages reloaded or replaced, by why (resetReasons.ts): every reason, zero until it happens. */
  resetsByReason?: Record<ResetReason, number>;
  /** Resets after which the renderer's heap held so much of the documents before (a caller's
   *  allocations) that it was collected at once (page.ts RESET_COLLECT_BYTES). */
  resetCollections?: number;
  /** Renders stopped at their deadline by interrupting their script (then the page is reset, or
   *  replaced when the script did not stop). */
  renderInterrupts?: number;
  /** Renders sent to a page behind the one it was drawing (pool.ts rides), and of those the ones
   *  sent again on a clean page because they could not run as their own. */
  rides?: number;
  rideRetries?: number;
  /** Pages that ran caller code and did not answer at once when its render was over: their script
   *  was stopped, or (still busy) their renderer replaced (pool.ts, RenderPage.settle). */
  busyAfterRender?: number;
  /** Resets that gave up at their deadline (a page too busy to navigate): the page was replaced,
   *  and whoever waited for it waited the whole deadline. */
  resetsGivenUp?: number;
  /** The admission queue in front of the pages (see admission.ts). */
  admission?: AdmissionStats;
  /** How Chromium is contained (browser.ts); absent before the first launch. */
  renderer?: RendererInfo;
  /** Document prints (invoice PDFs) running and waiting, and how many ran. */
  prints?: { running: number; waiting: number; printed: number };
  /** Live pages per Chart.js major version. */
  versions?: Record<ChartjsVersion, number>;
  /** Pages loaded with another Chart.js version's harness (both ways). */
  versionSwitches?: number;
  /** The memory wall: Chromium's cgroup and the in-page allocation budget. */
  memoryWall?: MemoryWallStatus & { renderBudgetMb: number };
}

export interface RendererInfo {
  /** on: Chromium's sandbox is active; off: --no-sandbox (a warning). */
  sandbox: 'on' | 'off';
  /** setpriv: started as an unprivileged user by a root service; sandbox: as the service's own user. */
  mode: SandboxMode;
  /** The user id Chromium runs as. */
  uid: number;
  /** What draws the images (Chart.js 4, Chromium, fonts), as X-Chartshot-Renderer says it. */
  fingerprint?: string;
}

/** The figures each part keeps, as stats() gathers them. */
export interface StatsParts {
  size: number;
  pool: { available: number; borrowed: number; pending: number; admission: AdmissionStats };
  counters: { queueRejections: number; renders: number; pageResets: number; renderInterrupts: number; rides: number; rideRetries: number; resetCollections: number; busyAfterRender: number; resetsGivenUp: number };
  pages: { pagesCreated: number; pagesDestroyed: number; pagesCrashed: number };
  browser: { restarts: number; connected: boolean; containment?: { sandbox: SandboxMode; uid: number; memoryWall: MemoryWallStatus } };
  versions: Record<ChartjsVersion, number>;
  versionSwitches: number;
  resetsByReason: Record<ResetReason, number>;
  prints: { running: number; waiting: number; printed: number };
  renderMemoryMb?: number;
  /** The X-Chartshot-Renderer value, once known. */
  fingerprint?: string;
}

export function poolStats(p: StatsParts): PoolStats {
  const c = p.browser.containment;
  return {
    size: p.size,
    available: p.pool.available,
    borrowed: p.pool.borrowed,
    pending: p.pool.pending,
    // the order the single pool object once kept (JSON output stays byte for byte)
    browserRestarts: p.browser.restarts,
    pagesCreated: p.pages.pagesCreated,
    pagesDestroyed: p.pages.pagesDestroyed,
    queueRejections: p.counters.queueRejections,
    pagesCrashed: p.pages.pagesCrashed,
    renders: p.counters.renders,
    pageResets: p.counters.pageResets,
    resetsByReason: p.resetsByReason,
    resetCollections: p.counters.resetCollections,
    versionSwitches: p.versionSwitches,
    renderInterrupts: p.counters.renderInterrupts,
    rides: p.counters.rides,
    rideRetries: p.counters.rideRetries,
    busyAfterRender: p.counters.busyAfterRender,
    resetsGivenUp: p.counters.resetsGivenUp,
    browserConnected: p.browser.connected,
    admission: p.pool.admission,
    ...(c && { renderer: rendererInfo(c.sandbox, c.uid, p.fingerprint) }),
    ...(c && { memoryWall: { ...c.memoryWall, renderBudgetMb: p.renderMemoryMb ?? DEFAULT_RENDER_MEMORY_MB } }),
    prints: p.prints,
    versions: p.versions,
  };
}

function rendererInfo(mode: SandboxMode, uid: number, fingerprint: string | undefined): RendererInfo {
  const info: RendererInfo = { sandbox: mode === 'off' ? 'off' : 'on', mode, uid };
  if (fingerprint) info.fingerprint = fingerprint;
  return info;
}
