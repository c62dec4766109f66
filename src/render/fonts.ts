// The fonts Chromium draws with: the system's (fontconfig), the operator's FONTS_DIR, and the
// generic names configs use. Chromium finds fonts through fontconfig, so FONTS_DIR becomes a
// fontconfig font folder of the browser's own configuration file: a config names a family as it
// would in a browser (`font: {family: 'Inter'}`), with no @font-face, nothing crossing CDP and no
// load to wait for (a system font is there the first time a canvas asks for it).
// Why this way: docs/decisions/0016-chart-type-plugins-and-fonts.md.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { createRequire } from 'node:module';

/** What FONTS_DIR may hold; anything else there is ignored. */
export const FONT_EXTENSIONS: readonly string[] = ['.ttf', '.otf', '.woff2'];
/** Deepest sub-folder of FONTS_DIR searched, and most files taken: an operator's folder, bounded. */
const MAX_DEPTH = 4;
export const MAX_FONT_FILES = 500;

/**
 * Before the system's own rules, so they win: `Mono` (a name configs use for a monospaced face)
 * and the `monospace` generic are both DejaVu Sans Mono, what `monospace` drew before the Noto
 * families were installed (fonts-noto-mono would otherwise take it over and move every pixel of
 * monospaced text). Strong bindings: Chromium takes a font fontconfig offers for a family name only
 * when the family was bound strongly, so a weak alias would still fall back to the default serif.
 */
export const FONT_ALIASES = `  <alias binding="strong"><family>Mono</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <alias binding="strong"><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
`;

/** The font files of a folder (and its sub-folders), sorted by their path inside it. */
export function listFontFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string, depth: number) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) {
        if (depth < MAX_DEPTH) walk(p, depth + 1);
      } else if (st.isFile() && FONT_EXTENSIONS.includes(extname(name).toLowerCase())) {
        found.push(p);
      }
    }
  };
  walk(dir, 0);
  if (found.length > MAX_FONT_FILES) throw new Error(`FONTS_DIR holds ${found.length} font files; at most ${MAX_FONT_FILES}`);
  return found;
}

/** Eight hex digits over the alias rules and every FONTS_DIR file (its path inside the folder and its bytes). */
export function fontsDirHash(fontsDir: string | null): string {
  const hash = createHash('sha256').update(FONT_ALIASES);
  if (fontsDir) {
    for (const f of listFontFiles(fontsDir)) hash.update(`${relative(fontsDir, f)}\0`).update(readFileSync(f)).update('\n');
  }
  return hash.digest('hex').slice(0, 8);
}

export interface PreparedFonts {
  /** The fontconfig file Chromium is started with (FONTCONFIG_FILE). */
  readonly configFile: string;
  /** Removes the folder written for it. */
  remove(): void;
}

/** WOFF2 is decompressed here: Chromium's own FreeType reads .ttf and .otf system fonts, not .woff2. */
async function decompressWoff2(bytes: Buffer): Promise<Buffer> {
  const wawoff2 = createRequire(import.meta.url)('wawoff2') as { decompress(b: Uint8Array): Promise<Uint8Array> };
  return Buffer.from(await wawoff2.decompress(bytes));
}

/**
 * A fresh folder, readable by whoever Chromium runs as, with the fontconfig file (alias rules,
 * the system's configuration, the fonts) and FONTS_DIR's fonts copied in (WOFF2 as the font it
 * wraps), so the operator's folder need not be readable by the browser's user. fontconfig keeps
 * its cache under the browser's HOME (its profile), the one place that user can write.
 */
export async function prepareFonts(fontsDir: string | null): Promise<PreparedFonts> {
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-fonts-'));
  try {
    chmodSync(dir, 0o755);
    const fontDir = join(dir, 'fonts');
    if (fontsDir) {
      const files = listFontFiles(fontsDir);
      mkdirSync(fontDir, { mode: 0o755 });
      chmodSync(fontDir, 0o755); // whatever the umask
      for (let i = 0; i < files.length; i++) {
        const src = files[i]!;
        let bytes: Buffer = readFileSync(src);
        let ext = extname(src).toLowerCase();
        if (ext === '.woff2') {
          bytes = await decompressWoff2(bytes);
          ext = bytes.subarray(0, 4).toString('latin1') === 'OTTO' ? '.otf' : '.ttf';
        }
        // numbered: two files of the same name in different sub-folders stay apart
        const out = join(fontDir, `${String(i).padStart(3, '0')}${ext}`);
        writeFileSync(out, bytes, { mode: 0o644 });
      }
    }
    const configFile = join(dir, 'fonts.conf');
    writeFileSync(
      configFile,
      `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
${FONT_ALIASES}  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
${fontsDir ? `  <dir>${xmlText(fontDir)}</dir>\n` : ''}  <cachedir prefix="xdg">fontconfig</cachedir>
</fontconfig>
`,
      { mode: 0o644 },
    );
    return { configFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function xmlText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
