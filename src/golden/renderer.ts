// The renderer fingerprint a folder's goldens were made with, and how a later one differs.

export const RENDERER_FILE = '.chartshot-renderer';

/** "chartjs=4.6.1; chromium=156.0.8078.79; fonts=3f9a1c2b; timezone=UTC; locale=en-US" -> its parts (unknown text -> {}). */
export function parseFingerprint(text: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const item of text.trim().split(';')) {
    const m = /^\s*([a-z]+)=([^\s;]+)\s*$/.exec(item);
    if (m) parts[m[1]!] = m[2]!;
  }
  return parts;
}

const major = (v: string) => v.split('.')[0]!;

/**
 * "renderer changed: chromium 156 -> 157, fonts 3f9a1c2b -> 0c1d2e3f", or null when both name
 * the same renderer (or either is unknown). Chromium shows its major version unless only a
 * later part moved.
 */
export function rendererChange(recorded: string, current: string): string | null {
  const a = parseFingerprint(recorded);
  const b = parseFingerprint(current);
  const changes: string[] = [];
  // a fingerprint from before zones and locales were in it was drawn in whatever the host had:
  // nothing to compare with
  for (const key of ['chartjs', 'chromium', 'fonts', 'timezone', 'locale']) {
    const was = a[key];
    const now = b[key];
    if (!was || !now || was === now) continue;
    if (key === 'chromium' && major(was) !== major(now)) changes.push(`chromium ${major(was)} -> ${major(now)}`);
    else changes.push(`${key} ${was} -> ${now}`);
  }
  return changes.length ? `renderer changed: ${changes.join(', ')}` : null;
}
