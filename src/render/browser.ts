// Launches and watches the one Chromium process. Only this directory talks to Chromium.
import puppeteer, { type Browser } from 'puppeteer-core';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, readlinkSync, chownSync, existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../log.js';
import { ChromiumCgroup, noWall, type MemoryWallStatus } from './cgroup.js';
import { CdpPipe, type DirectCall } from './cdpPipe.js';
import { afterMs, onAbort, settle, waitAtMost } from '../settle.js';
import { DEFAULT_TIMEZONE } from '../chart/zoneLocale.js';

/**
 * How Chromium is contained. `setpriv`: the service runs as root and Chromium runs as an
 * unprivileged user, with its sandbox; `sandbox`: same user as the service, with its sandbox;
 * `off`: --no-sandbox (only where neither works; logged and shown in /v1/status).
 */
export type SandboxMode = 'setpriv' | 'sandbox' | 'off';

export interface BrowserOptions {
  chromiumPath: string;
  /** Per renderer process V8 heap cap (MB): a memory bomb crashes its page in about a second. */
  rendererHeapMb?: number;
  launchTimeoutMs?: number;
  /** The mode an earlier launch settled on: relaunches use it without probing again. */
  sandbox?: SandboxMode;
  /** Whom Chromium runs as in `setpriv` mode (default nobody, 65534:65534). */
  chromiumUid?: number;
  chromiumGid?: number;
  /** The cgroup limits for Chromium's whole process tree; absent: no cgroup is tried. */
  memoryWall?: { memoryMb: number; pidsMax: number };
  /** The fontconfig file Chromium reads (src/render/fonts.ts: aliases, FONTS_DIR); unset: the system's. */
  fontconfigFile?: string;
  /** TIMEZONE: Chromium's TZ (every page is emulated into its render's zone as well: page.ts). Default UTC. */
  timezone?: string;
}

const SETPRIV = '/usr/bin/setpriv';
/** A renderer's old generation before its first full collection (V8's --initial-old-space-size). */
const INITIAL_OLD_SPACE_MB = 64;
const NOBODY = 65534;

// The proxy pointing at a closed port plus the WebRTC policy in the profile close the routes
// request interception does not see: WebSocket, prefetch, popups and WebRTC UDP all got out
// with interception alone (docs/decisions/0002-function-string-sandbox.md).
function launchArgs(opts: BrowserOptions, mode: SandboxMode): string[] {
  return [
    ...(mode === 'off' ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider',
    '--proxy-server=127.0.0.1:9',
    '--proxy-bypass-list=<-loopback>',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    // --initial-old-space-size: each full collection frees the maps of the charts drawn since the
    // last one (Chart.js's contexts), and with them the optimised code that checked for those
    // maps: the page compiles 70-90 functions again. V8's limits for a heap this small ran one
    // every ~80 renders of the honest corpus (the images' base64 strings fill the old
    // generation): 1.2 ms of compiling a render. At 64 MB, one every ~600 renders, 0.5 ms; the
    // cost is up to 64 MB of garbage a renderer holds before it (docs/performance.md).
    // --no-memory-reducer: a page idle for some seconds got V8's memory-reducing full collections,
    // which threw away the optimised code of Chart.js ("embedded weak objects cleared"): the next
    // renders compiled ~1 function each again (0.22 without the idle) and cost the renderers 3-4 ms
    // more apiece after a 35 s pause (docs/performance.md). A
    // page's heap stays at what its renders left, within the same limits as while it is busy.
    `--js-flags=--max-old-space-size=${opts.rendererHeapMb ?? 512} --initial-old-space-size=${INITIAL_OLD_SPACE_MB} --no-memory-reducer`,
  ];
}

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

function freshProfile(owner: { uid: number; gid: number } | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-profile-'));
  mkdirSync(join(dir, 'Default'), { recursive: true });
  writeFileSync(
    join(dir, 'Default', 'Preferences'),
    JSON.stringify({
      webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false },
    }),
  );
  // The profile (mode 0700 from mkdtemp) belongs to whoever Chromium runs as, and only to it.
  if (owner) for (const p of [dir, join(dir, 'Default'), join(dir, 'Default', 'Preferences')]) chownSync(p, owner.uid, owner.gid);
  return dir;
}

/**
 * Chromium's environment: set here, never inherited, so the service's secrets (SMTP_URL, tokens)
 * never reach a process another user may inspect, and the host's TZ, LANG and LC_* never reach
 * an image (Chromium takes its zone from TZ: one config drew ticks at 12AM under TZ=UTC and 9AM
 * under TZ=Asia/Tokyo). TZ is TIMEZONE and the locale a neutral C.UTF-8; each page is emulated
 * into its render's zone and locale besides (page.ts). HOME is the profile, which the browser's
 * user can write.
 */
export function browserEnv(home: string, timezone = DEFAULT_TIMEZONE, fontconfigFile?: string): Record<string, string> {
  return {
    HOME: home,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: timezone,
    LANG: 'C.UTF-8',
    ...(fontconfigFile ? { FONTCONFIG_FILE: fontconfigFile } : {}),
  };
}

/** The modes to try, best first; a mode an earlier launch settled on is kept. */
function candidateModes(opts: BrowserOptions): SandboxMode[] {
  if (opts.sandbox) return [opts.sandbox];
  if (process.getuid?.() === 0) return existsSync(SETPRIV) ? ['setpriv', 'off'] : ['off'];
  return ['sandbox', 'off'];
}

/**
 * A private directory with a small wrapper that (1) moves itself into Chromium's cgroup, (2) as
 * root drops to the unprivileged user, then execs Chromium: same pid, same pipe file descriptors,
 * so the pipe (cdpPipe.ts) and the kill of its process group work. Joining before the exec is what makes the cgroup
 * race-free: every process Chromium ever forks starts inside it.
 */
function launchWrapper(chromiumPath: string, drop: { uid: number; gid: number } | null, cgroup: ChromiumCgroup | null): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-launch-'));
  const path = join(dir, 'chromium');
  const quoted = `'${chromiumPath.replace(/'/g, `'\\''`)}'`;
  const exec = drop ? `exec ${SETPRIV} --reuid=${drop.uid} --regid=${drop.gid} --clear-groups --inh-caps=-all -- ${quoted} "$@"` : `exec ${quoted} "$@"`;
  writeFileSync(path, `#!/bin/sh\n${cgroup ? cgroup.joinScript() + '\n' : ''}${exec}\n`, { mode: 0o700 });
  return { dir, path };
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
