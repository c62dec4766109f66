// A real Chromium crash in the middle of a render, for integration tests: the renderer
// processes of the server's browser are frozen (SIGSTOP), the request is sent, and once the pool
// has lent a page for it (the render is in flight on a frozen page) they are killed (SIGKILL).
// No function of the server is replaced; what the server sees is what a crashed renderer gives.
import { readdirSync, readFileSync } from 'node:fs';
import type { Running } from '../../src/main.js';
import { poolIdle } from './sinks.js';

/** Renderer processes (not the browser's own UI renderers) whose command line names the profile. */
export function rendererPids(profile: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      if (args.includes(profile) && args.includes('--type=renderer') && !args.includes('--top-chrome-webui')) out.push(Number(name));
    } catch {
      /* the process ended while we looked */
    }
  }
  return out;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone already */
    }
  }
}

export interface Frozen {
  /** Waits until the pool has lent `n` more pages than before the freeze (renders in flight on frozen pages). */
  lent(n?: number): Promise<void>;
  /** SIGKILLs the frozen renderers: each render in flight on them fails as a crash. */
  kill(): void;
  /** SIGCONTs them: the renders in flight go on as if nothing happened. */
  thaw(): void;
}

/**
 * Freezes (SIGSTOP) every page's renderer process of the server's browser, once every page is
 * idle (a page still being reset would hang frozen and hold the pool). Always `kill()` after.
 */
export async function freezeRenderers(s: Running): Promise<Frozen> {
  const pool = s.deps.pool;
  await poolIdle(() => pool.stats());
  const profile = pool.profiles.at(-1)!;
  const pids = rendererPids(profile);
  if (pids.length === 0) throw new Error(`no renderer process found for ${profile}`);
  const borrowedBefore = pool.stats().borrowed;
  signal(pids, 'SIGSTOP');
  return {
    async lent(n = 1) {
      const deadline = Date.now() + 30_000; // a bound for a loaded machine, not a speed claim
      while (pool.stats().borrowed < borrowedBefore + n) {
        if (Date.now() > deadline) throw new Error(`no ${n} render(s) took a page within 30 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    kill: () => signal(pids, 'SIGKILL'),
    thaw: () => signal(pids, 'SIGCONT'),
  };
}

/**
 * A real busy pool: every page's renderer is frozen while `send` fires its requests, until
 * `callers()` (the service's count of callers waiting for renders in flight) reaches `n`: the
 * marker that the identical requests all joined the render before it could finish, however slow
 * this machine is. Then the renderers go on and the answers are returned.
 */
export async function whileRendersHeld<T>(s: Running, send: () => Promise<T>, callers: () => number, n: number): Promise<T> {
  const frozen = await freezeRenderers(s);
  let pending: Promise<T> | undefined;
  try {
    pending = send();
    pending.catch(() => {}); // awaited below; a failure while waiting must not go unhandled
    const deadline = Date.now() + 30_000; // a bound for a loaded machine, not a speed claim
    while (callers() < n) {
      if (Date.now() > deadline) throw new Error(`only ${callers()} of ${n} callers joined renders in flight within 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } catch (err) {
    frozen.kill();
    await poolIdle(() => s.deps.pool.stats());
    throw err;
  }
  frozen.thaw();
  return pending;
}

/**
 * Sends the request with `start` while every page's renderer is frozen, kills them all once the
 * render holds a page, and returns the answer. `crashed` is how many pages the pool saw crash.
 */
export async function crashDuringRender<T>(s: Running, start: () => Promise<T>): Promise<{ result: T; crashed: number }> {
  const crashedBefore = s.deps.pool.stats().pagesCrashed ?? 0;
  const frozen = await freezeRenderers(s);
  try {
    const pending = start();
    await frozen.lent(); // the marker: the render is in flight on a frozen page
    frozen.kill();
    const result = await pending;
    const crashed = (s.deps.pool.stats().pagesCrashed ?? 0) - crashedBefore;
    // the killed pages are replaced before the test goes on
    await poolIdle(() => s.deps.pool.stats());
    return { result, crashed };
  } finally {
    frozen.kill(); // never leave a frozen process behind
  }
}
