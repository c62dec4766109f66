// What Chromium is started with: its arguments, its environment, a fresh profile, and the
// wrapper that puts it in its cgroup and drops to an unprivileged user. browser.ts launches it.
import { mkdtempSync, mkdirSync, writeFileSync, chownSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChromiumCgroup } from './cgroup.js';
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
export const NOBODY = 65534;

// The proxy pointing at a closed port plus the WebRTC policy in the profile close the routes
// request interception does not see: WebSocket, prefetch, popups and WebRTC UDP all got out
// with interception alone (docs/decisions/0002-function-string-sandbox.md).
export function launchArgs(opts: BrowserOptions, mode: SandboxMode): string[] {
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

export function freshProfile(owner: { uid: number; gid: number } | null): string {
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
export function candidateModes(opts: BrowserOptions): SandboxMode[] {
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
export function launchWrapper(chromiumPath: string, drop: { uid: number; gid: number } | null, cgroup: ChromiumCgroup | null): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-launch-'));
  const path = join(dir, 'chromium');
  const quoted = `'${chromiumPath.replace(/'/g, `'\\''`)}'`;
  const exec = drop ? `exec ${SETPRIV} --reuid=${drop.uid} --regid=${drop.gid} --clear-groups --inh-caps=-all -- ${quoted} "$@"` : `exec ${quoted} "$@"`;
  writeFileSync(path, `#!/bin/sh\n${cgroup ? cgroup.joinScript() + '\n' : ''}${exec}\n`, { mode: 0o700 });
  return { dir, path };
}
