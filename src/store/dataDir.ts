// DATA_DIR's permissions: the database and master.key are for the service's user only, since
// Chromium may run as another user on the same host (render/browser.ts) and must read neither.
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';

/**
 * Creates DATA_DIR owner-only (0700). An existing directory of ours loses group and other
 * access, unless it is world-writable (a shared directory such as /tmp: its files are
 * protected one by one instead, see privateFile).
 */
export function ensurePrivateDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const st = statSync(dataDir);
  if ((st.mode & 0o077) !== 0 && (st.mode & 0o002) === 0 && st.uid === process.getuid?.()) {
    try {
      chmodSync(dataDir, st.mode & 0o700);
    } catch {
      /* a read-only file system: the database open reports it */
    }
  }
}

/** Makes a file of ours owner-only (0600) when it exists and is not already. */
export function privateFile(path: string): void {
  if (!existsSync(path)) return;
  const st = statSync(path);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(path, st.mode & 0o600);
}
