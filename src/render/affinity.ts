// Chart.js version affinity: a page holds one Chart.js major version's harness. A request is
// given an idle page of its version when there is one, waits a little for a busy one, and only
// then has another page switched; pages of a version nobody asked for go back to the default.
// The pool leases, this module chooses which page and switches it.
import { CHARTJS_VERSIONS, type ChartjsVersion } from './harness.js';
import type { RenderPage } from './page.js';
import { RenderError } from './renderError.js';
import { pageLoadDeadlineMs } from './pageTimes.js';

/** Chart.js 4 is what a page loads first, and where an idle page of another version returns. */
export const DEFAULT_CHARTJS: ChartjsVersion = 4;
export const VERSION_IDLE_MS = 60000;
/** How long a request waits for a busy page of its version before switching another page:
 *  about what a switch costs (a harness load), several renders' worth. */
export const VERSION_WAIT_MS = 150;

/** generic-pool, as far as affinity uses it: pages out and back with no reset. */
export interface PageSource {
  acquire(): Promise<RenderPage>;
  release(rp: RenderPage): Promise<void>;
  /** Idle pages in it now. */
  available(): number;
}

export interface AffinityOptions {
  renderTimeoutMs: number;
  /** Default VERSION_WAIT_MS. */
  versionWaitMs?: number;
}

export class VersionAffinity {
  /** Pages out of generic-pool (leased, being reset or switched); the rest of `live` is idle. */
  private readonly leased = new Set<RenderPage>();
  /** When each Chart.js version was last asked for (performance.now()). */
  private readonly lastAsked = new Map<ChartjsVersion, number>();
  /** Leased pages chosen to be switched to another version (counted as that version's). */
  private readonly switching = new Map<RenderPage, ChartjsVersion>();
  /** Requests waiting for a page of their version to come back (see take). */
  private readonly waiters = new Set<{ version: ChartjsVersion; wake: () => void }>();
  /** Pages loaded with another Chart.js version's harness (both ways). */
  switches = 0;

  constructor(
    private readonly source: PageSource,
    /** Every page alive (the page factory's). */
    private readonly live: ReadonlySet<RenderPage>,
    private readonly opts: AffinityOptions,
  ) {}

  /** Notes that a request asked for `version` now (idle pages of it are kept a while). */
  asked(version: ChartjsVersion): void {
    this.lastAsked.set(version, performance.now());
  }

  private idleOf(version: ChartjsVersion): number {
    let n = 0;
    for (const rp of this.live) if (rp.version === version && !rp.dead && !this.leased.has(rp)) n++;
    return n;
  }

  private busyOf(version: ChartjsVersion): number {
    let n = 0;
    for (const rp of this.leased) if ((this.switching.get(rp) ?? rp.version) === version && !rp.dead) n++;
    return n;
  }

  /**
   * A page from generic-pool, of `version` when an idle one exists. generic-pool hands out the
   * page returned last and cannot be asked for a kind: while an idle page of the version is
   * still in it, the pages handed out first are held aside and given back at once (a few ms,
   * and only when versions are mixed). Otherwise the first page is returned as it is and
   * the caller loads the version's harness on it (switch).
   */
  async take(version: ChartjsVersion, mayWait = true): Promise<RenderPage> {
    const first = await this.source.acquire();
    this.leased.add(first);
    if (first.version === version) return first;
    const aside: RenderPage[] = [];
    let found: RenderPage | undefined;
    try {
      while (!found && this.idleOf(version) > 0 && this.source.available() > 0) {
        const next = await this.source.acquire();
        this.leased.add(next);
        if (next.version === version) found = next;
        else aside.push(next);
      }
    } catch (err) {
      this.putBack(first);
      throw err;
    } finally {
      for (const rp of aside) this.putBack(rp);
    }
    if (found) {
      this.putBack(first);
      return found;
    }
    // Under load with mixed versions every lease would switch a page (about 150 ms each, against
    // a few ms a render): when a page of the version is busy, wait a little for it instead. So
    // also when one is idle but not in generic-pool yet: given back (release() below) and on its
    // way in, it is neither leased nor available for those few microseconds, and a request that
    // came then switched a second page (seen once the render call got faster: decision 32).
    if (mayWait && (this.busyOf(version) > 0 || this.idleOf(version) > 0)) {
      this.putBack(first);
      await this.pageBack(version, this.opts.versionWaitMs ?? VERSION_WAIT_MS);
      return this.take(version, false);
    }
    // decided here, synchronously: a request deciding at the same time sees this page as busy
    // with the version and waits for it rather than switching a second page
    this.switching.set(first, version);
    return first;
  }

  /** Resolves when a page of `version` is given back to generic-pool, or after ms. */
  private pageBack(version: ChartjsVersion, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const w = {
        version,
        wake: () => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.wake, ms);
      this.waiters.add(w);
    });
  }

  /** A page taken from generic-pool but not used: back at once, with no reset. */
  private putBack(rp: RenderPage): void {
    this.leased.delete(rp);
    this.switching.delete(rp);
    void this.source.release(rp).catch(() => {});
  }

  /** Loads `version`'s harness on a page of another version (a clean page: no storage to wipe). */
  async switchVersion(rp: RenderPage, version: ChartjsVersion): Promise<void> {
    this.switches++;
    try {
      await rp.load(pageLoadDeadlineMs(this.opts.renderTimeoutMs), false, version);
    } catch (err) {
      rp.markDead('version switch failed');
      throw new RenderError('crash', `the Chart.js ${version} page did not load: ${(err as Error).message}`);
    } finally {
      this.switching.delete(rp);
    }
  }

  /** A leased page goes back to generic-pool (ready for anyone); a request waiting for its
   *  version is woken. */
  async release(rp: RenderPage): Promise<void> {
    this.leased.delete(rp);
    this.switching.delete(rp);
    await this.source.release(rp);
    for (const w of this.waiters) {
      if (w.version === rp.version) {
        w.wake();
        break;
      }
    }
  }

  /** A page destroyed: no longer leased or switching. */
  forget(rp: RenderPage): void {
    this.leased.delete(rp);
    this.switching.delete(rp);
  }

  /** A version other than the default that nobody asked for within idleMs and has idle pages. */
  idleVersion(idleMs: number): ChartjsVersion | undefined {
    const now = performance.now();
    return CHARTJS_VERSIONS.find((v) => v !== DEFAULT_CHARTJS && now - (this.lastAsked.get(v) ?? -Infinity) >= idleMs && this.idleOf(v) > 0);
  }

  /** Live pages per Chart.js major version. */
  counts(): Record<ChartjsVersion, number> {
    const out: Record<ChartjsVersion, number> = { 2: 0, 3: 0, 4: 0 };
    for (const rp of this.live) if (!rp.dead) out[rp.version]++;
    return out;
  }

  /**
   * Pages of a version nobody asked for within idleMs go back to the default version, one at a
   * time, and only through a slot of the gate that is free while nobody waits (`slot`): it never
   * takes a page from a waiting request (one arriving meanwhile may wait for the switch, ~150 ms).
   * The page goes back through `back`, which frees the slot.
   */
  async sweep(idleMs: number, slot: { tryEnter(): boolean; leave(): void }, back: (rp: RenderPage) => void, warn: (err: unknown) => void): Promise<void> {
    const v = this.idleVersion(idleMs);
    if (v === undefined || !slot.tryEnter()) return;
    let rp: RenderPage | undefined;
    try {
      rp = await this.take(v, false);
      if (rp.version === v) await this.switchVersion(rp, DEFAULT_CHARTJS);
    } catch (err) {
      if (!rp) {
        slot.leave();
        return;
      }
      warn(err);
    }
    if (rp) back(rp);
  }
}
