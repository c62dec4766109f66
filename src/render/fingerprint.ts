// The renderer fingerprint: which Chart.js, which Chromium and which fonts drew an image, and the
// time zone and locale a request that names none is drawn in (TIMEZONE, LOCALE). Any of them can
// move pixels, so golden-image tests record it and image responses carry it; nothing else of the
// host does (its TZ and LANG never reach a page: browser.ts, page.ts).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fontsDirHash } from './fonts.js';
import { DEFAULT_LOCALE, DEFAULT_TIMEZONE, DEFAULT_ZONE_LOCALE, type ZoneLocale } from '../chart/zoneLocale.js';

export type ChartjsMajor = 2 | 3 | 4;

export const FINGERPRINT_HEADER = 'X-Chartshot-Renderer';

/** The package each Chart.js major version is drawn with (the aliases are pinned in package.json). */
const CHARTJS_PACKAGES: Record<ChartjsMajor, string> = { 2: 'chartjs2', 3: 'chartjs3', 4: 'chart.js' };

/** The installed version of a package, read from its package.json (chart.js does not export it). */
function installedVersion(pkg: string): string {
  // dist/render/ and src/render/ both sit two levels below the project root
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  try {
    const v = (JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' && /^[0-9A-Za-z.+-]{1,40}$/.test(v) ? v : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Exact Chart.js version per major version, read once. */
export function chartjsVersions(): Record<ChartjsMajor, string> {
  return { 2: installedVersion(CHARTJS_PACKAGES[2]), 3: installedVersion(CHARTJS_PACKAGES[3]), 4: installedVersion(CHARTJS_PACKAGES[4]) };
}

/** "HeadlessChrome/156.0.8078.79" (browser.version()) or "Chromium 156.0.8078.79 built on ..." (--version) -> "156.0.8078.79". */
export function parseChromiumVersion(text: string): string {
  return /(\d+\.\d+\.\d+\.\d+)/.exec(text)?.[1] ?? 'unknown';
}

function run(file: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout) => resolve(err ? '' : stdout));
  });
}

/**
 * Eight hex digits over the font files fontconfig offers Chromium: sorted paths and sizes
 * (reading every byte of the CJK fonts would take a second at start for little gain), and
 * fontsDirHash (src/render/fonts.ts): the alias rules Chromium is started with and FONTS_DIR's
 * files, byte by byte. No fontconfig: the hash of those alone, still stable.
 */
export async function fontsHash(fontsDir: string | null = null): Promise<string> {
  const extra = fontsDirHash(fontsDir);
  const out = await run('fc-list', ['--format', '%{file}\n'], 10_000);
  const files = [...new Set(out.split('\n').filter((l) => l.startsWith('/')))].sort();
  const hash = createHash('sha256');
  hash.update(`extra\0${extra}\n`);
  for (const f of files) {
    const size = await stat(f).then((s) => s.size, () => -1);
    hash.update(`${f}\0${size}\n`);
  }
  return hash.digest('hex').slice(0, 8);
}

/** The Chromium version of a binary without starting a browser (CLI --version). */
export async function chromiumVersionOf(chromiumPath: string): Promise<string> {
  return parseChromiumVersion(await run(chromiumPath, ['--version'], 10_000));
}

export interface RendererParts {
  chartjs: Record<ChartjsMajor, string>;
  chromium: string;
  fonts: string;
  /** TIMEZONE and LOCALE; absent: UTC and en-US. */
  timezone?: string;
  locale?: string;
}

/** What draws images here, as one header value per Chart.js major version. */
export class RendererFingerprint {
  constructor(readonly parts: RendererParts) {}

  /** `chartjs=4.6.1; chromium=156.0.8078.79; fonts=3f9a1c2b; timezone=UTC; locale=en-US` for the
   *  Chart.js version a request used. */
  header(chartjs: ChartjsMajor = 4): string {
    const p = this.parts;
    return `chartjs=${p.chartjs[chartjs]}; chromium=${p.chromium}; fonts=${p.fonts}; timezone=${p.timezone ?? DEFAULT_TIMEZONE}; locale=${p.locale ?? DEFAULT_LOCALE}`;
  }

  /** `fontsDir`: FONTS_DIR (null: system fonts only), hashed as the pool's browser is given it. */
  static async detect(chromiumVersion: string, fontsDir: string | null = null, zone: ZoneLocale = DEFAULT_ZONE_LOCALE): Promise<RendererFingerprint> {
    return new RendererFingerprint({ chartjs: chartjsVersions(), chromium: parseChromiumVersion(chromiumVersion), fonts: await fontsHash(fontsDir), ...zone });
  }
}

/** What a running browser draws with: `browserVersion` is browser.version(); `fonts` the
 *  fontsHash() started while the browser launched; `zone` TIMEZONE and LOCALE. */
export async function fingerprintOf(browserVersion: Promise<string>, fonts: Promise<string>, zone: ZoneLocale = DEFAULT_ZONE_LOCALE): Promise<RendererFingerprint> {
  return new RendererFingerprint({ chartjs: chartjsVersions(), chromium: parseChromiumVersion(await browserVersion), fonts: await fonts, ...zone });
}
