// Launches and watches the one Chromium process. Only this directory talks to Chromium.
import puppeteer, { type Browser } from 'puppeteer-core';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../log.js';

export interface BrowserOptions {
  chromiumPath: string;
  /** Per renderer process V8 heap cap (MB): a memory bomb crashes its page in about a second. */
  rendererHeapMb?: number;
  launchTimeoutMs?: number;
}

// Flags measured in FIELD-NOTES. The proxy pointing at a closed port plus the WebRTC policy
// in the profile close the routes request interception does not see (WebSocket, prefetch,
// popups, WebRTC UDP).
function launchArgs(opts: BrowserOptions): string[] {
  return [
    '--no-sandbox',
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
    `--js-flags=--max-old-space-size=${opts.rendererHeapMb ?? 512}`,
  ];
}

function freshProfile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-profile-'));
  mkdirSync(join(dir, 'Default'), { recursive: true });
  writeFileSync(
    join(dir, 'Default', 'Preferences'),
    JSON.stringify({
      webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false },
    }),
  );
  return dir;
}

export interface LaunchedBrowser {
  browser: Browser;
  pid: number | undefined;
  /** The fresh user-data-dir: every process of this browser has it on its command line. */
  profileDir: string;
  /** Closes the browser (kills it after a deadline) and removes its profile directory. */
  close(): Promise<void>;
}

export async function launchBrowser(opts: BrowserOptions, log: Logger): Promise<LaunchedBrowser> {
  const profile = freshProfile();
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: opts.chromiumPath,
      headless: true,
      pipe: true,
      userDataDir: profile,
      args: launchArgs(opts),
      timeout: opts.launchTimeoutMs ?? 30000,
      protocolTimeout: 60000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
    throw err;
  }
  const proc = browser.process();
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
  // Each launch leaves its profile in /tmp: remove it whenever the process ends.
  proc?.once('exit', removeProfile);
  log.info({ pid: proc?.pid }, 'browser launched');
  return {
    browser,
    pid: proc?.pid,
    profileDir: profile,
    async close() {
      const killTimer = setTimeout(() => proc?.kill('SIGKILL'), 5000);
      try {
        await browser.close();
      } catch {
        proc?.kill('SIGKILL');
      } finally {
        clearTimeout(killTimer);
        removeProfile();
      }
    },
  };
}
