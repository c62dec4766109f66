// Launches and watches the one Chromium process. Only this directory talks to Chromium.
import puppeteer, { type Browser } from 'puppeteer-core';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, readlinkSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { dirname, join } from 'node:path';
import type { Logger } from '../log.js';
import { ChromiumCgroup, noWall, type MemoryWallStatus } from './cgroup.js';
import { CdpPipe, type DirectCall } from './cdpPipe.js';
import { afterMs, onAbort, settle, waitAtMost } from '../settle.js';
import { NOBODY, browserEnv, candidateModes, freshProfile, launchArgs, launchWrapper, type BrowserOptions, type SandboxMode } from './chromiumSetup.js';

export type { BrowserOptions, SandboxMode };

/** SIGKILL to a browser's whole process group (its renderers, zygote, utilities); false if none was there. */
function killGroupNow(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/** Ends a browser's whole process group and waits for the browser itself to be gone (1 s at most). */
async function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise((r) => child.once('exit', r));
  if (!killGroupNow(child)) child.kill('SIGKILL');
  await waitAtMost(gone, 1000);
}

export interface LaunchedBrowser {
  browser: Browser;
  /** CDP calls on a page's session that skip puppeteer (the render call: page.ts). */
  call: DirectCall;
  pid: number | undefined;
  /** The fresh user-data-dir: every process of this browser has it on its command line. */
  profileDir: string;
  /** How this browser is contained. */
  sandbox: SandboxMode;
  /** The user id Chromium runs as. */
  uid: number;
  /** The cgroup around Chromium's process tree, or null (memoryWall says why). */
  cgroup: ChromiumCgroup | null;
  memoryWall: MemoryWallStatus;
  /** Closes the browser (kills it after a deadline) and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Launches Chromium contained as well as this host allows: as root, as an unprivileged user
 * with the sandbox (setpriv); otherwise with the sandbox; only where that fails, --no-sandbox
 * with a warning. A mode that fails to launch (no user namespaces, say) exits at once.
 */
export async function launchBrowser(opts: BrowserOptions, log: Logger): Promise<LaunchedBrowser> {
  const modes = candidateModes(opts);
  for (let i = 0; ; i++) {
    const mode = modes[i]!;
    try {
      const lb = await launchAs(mode, opts, log);
      if (mode === 'off') log.warn({ sandbox: 'off' }, "Chromium runs WITHOUT its sandbox (--no-sandbox): this host allows neither an unprivileged user nor user namespaces");
      return lb;
    } catch (err) {
      if (i === modes.length - 1) throw err;
      log.warn({ err, sandbox: mode }, 'Chromium did not start in this sandbox mode; trying the next');
    }
  }
}

async function launchAs(mode: SandboxMode, opts: BrowserOptions, log: Logger): Promise<LaunchedBrowser> {
  const uid = mode === 'setpriv' ? (opts.chromiumUid ?? NOBODY) : (process.getuid?.() ?? -1);
  const gid = mode === 'setpriv' ? (opts.chromiumGid ?? NOBODY) : (process.getgid?.() ?? -1);
  const profile = freshProfile(mode === 'setpriv' ? { uid, gid } : null);
  const made = opts.memoryWall ? await ChromiumCgroup.create(opts.memoryWall) : { reason: 'turned off (CHROMIUM_MEMORY_MB=0)' };
  const cgroup = made instanceof ChromiumCgroup ? made : null;
  const memoryWall = cgroup ? cgroup.status() : noWall((made as { reason: string }).reason);
  if (!cgroup && opts.memoryWall) log.warn({ memoryWall }, 'Chromium runs WITHOUT a cgroup memory limit: only the in-page allocation budget bounds its memory');
  const wrapper = mode === 'setpriv' || cgroup ? launchWrapper(opts.chromiumPath, mode === 'setpriv' ? { uid, gid } : null, cgroup) : null;
  const removeWrapper = () => wrapper && rmSync(wrapper.dir, { recursive: true, force: true });
  let browser: Browser;
  let proc: ChildProcess | undefined;
  let pipe: CdpPipe | undefined;
  try {
    // Started here rather than by puppeteer.launch, for the pipe's binary form (cdpPipe.ts):
    // puppeteer's own arguments, its pipe replaced by --remote-debugging-pipe=cbor.
    const args = puppeteer
      .defaultArgs({ headless: true, userDataDir: profile, args: [...launchArgs(opts, mode), '--remote-debugging-pipe=cbor'] })
      // Popups are blocked by the browser itself: window.open returns null, no window is made.
      .filter((a) => a !== '--disable-popup-blocking');
    const child = spawn(wrapper?.path ?? opts.chromiumPath, args, {
      // its own process group, so that ending it ends every process it started
      detached: true,
      env: browserEnv(profile, opts.timezone, opts.fontconfigFile),
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    proc = child;
    const connection = new CdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
    pipe = connection;
    const failed = new AbortController();
    child.once('error', (err) => failed.abort(err));
    child.once('exit', (code, signal) => failed.abort(new Error(`Chromium exited at start (${signal ?? `code ${code}`})`)));
    const timeout = opts.launchTimeoutMs ?? 30000;
    browser = await settle(
      (async () => {
        const b = await puppeteer.connect({ transport: connection, protocolTimeout: 60000 });
        // as puppeteer.launch does: the first tab exists before anything else is asked
        await b.waitForTarget((t) => t.type() === 'page', { timeout });
        return b;
      })(),
      onAbort(failed.signal),
      afterMs(timeout, () => new Error(`Chromium start took longer than ${timeout} ms`)),
    );
  } catch (err) {
    pipe?.close();
    if (proc) await killGroup(proc);
    removeWrapper();
    rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
    await cgroup?.remove();
    throw err;
  }
  // Chromium has exec'd over the wrapper (same pid): the script is no longer needed.
  removeWrapper();
  const child = proc!;
  const call = pipe!.call;
  // as puppeteer.launch does: the browser does not outlive this process
  const killOnExit = () => void killGroupNow(child);
  process.once('exit', killOnExit);
  // The initial about:blank tab is never used: closing it frees its renderer process (about
  // 20 MiB), so every renderer left belongs to a pool page. The browser stays up with no tab.
  await browser
    .pages()
    .then((tabs) => Promise.all(tabs.map((t) => t.close())))
    .catch(() => {});
  const removeProfile = () => {
    // A browser that was killed leaves its singleton socket directory
    // (/tmp/org.chromium.Chromium.XXXXXX, linked from the profile) behind as well.
    try {
      const socketDir = dirname(readlinkSync(join(profile, 'SingletonSocket')));
      if (/\/org\.chromium\.Chromium\.[^/]+$/.test(socketDir)) rmSync(socketDir, { recursive: true, force: true });
    } catch {
      /* no link: the browser removed it on a clean exit */
    }
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    } catch {
      // Chromium's children may still be writing: try once more a little later.
      setTimeout(() => rmSync(profile, { recursive: true, force: true, maxRetries: 3 }), 1000).unref();
    }
  };
  // Each launch leaves its profile in /tmp (and its cgroup): remove them whenever the process ends.
  let groupGone: Promise<boolean> | null = null;
  const removeGroup = () => (groupGone ??= cgroup ? cgroup.remove() : Promise.resolve(true));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  void exited.then(() => {
    process.removeListener('exit', killOnExit);
    removeProfile();
    void removeGroup().then((gone) => gone || log.warn({ dirs: cgroup?.dirs }, 'Chromium cgroup could not be removed'));
  });
  log.info({ pid: child.pid, sandbox: mode, uid, memoryWall }, 'browser launched');
  return {
    browser,
    call,
    pid: child.pid,
    profileDir: profile,
    sandbox: mode,
    uid,
    cgroup,
    memoryWall,
    async close() {
      // Browser.close, then up to 5 s for the process to end before it is killed
      const killTimer = setTimeout(killOnExit, 5000);
      try {
        await browser.close();
      } catch {
        killOnExit();
      }
      // (bounded: a process group that cannot be signalled must not hold the shutdown)
      await waitAtMost(exited, 10000);
      clearTimeout(killTimer);
      removeProfile();
      await removeGroup();
    },
  };
}
