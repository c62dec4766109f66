// Serves renderer-page/ to the pages from memory through request interception, so the
// harness loads without any network and every other request can be refused.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative, extname, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HARNESS_ORIGIN = 'http://renderer.chartshot.invalid';
export const HARNESS_URL = `${HARNESS_ORIGIN}/harness.html`;

/** A Chart.js major version a page can draw with. */
export type ChartjsVersion = 2 | 3 | 4;
export const CHARTJS_VERSIONS: readonly ChartjsVersion[] = [4, 3, 2];
/** One harness page per Chart.js major version, each with the plugins made for it. */
export const HARNESS_PAGES: Readonly<Record<ChartjsVersion, string>> = { 4: '/harness.html', 3: '/harness3.html', 2: '/harness2.html' };
export function harnessUrl(version: ChartjsVersion): string {
  return HARNESS_ORIGIN + HARNESS_PAGES[version];
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

export interface HarnessFile {
  contentType: string;
  body: Buffer;
}

export function defaultHarnessDir(): string {
  // dist/render/harness.js and src/render/harness.ts both sit two levels below the root.
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'renderer-page');
}

export function loadHarnessFiles(dir = defaultHarnessDir()): Map<string, HarnessFile> {
  if (!existsSync(join(dir, 'harness.html'))) throw new Error(`renderer page missing: ${dir}/harness.html`);
  if (!existsSync(join(dir, 'vendor', 'chart.umd.js')) || !existsSync(join(dir, 'vendor', 'v2', 'chart.js')) || !existsSync(join(dir, 'built', 'harness.js'))) {
    throw new Error(`renderer-page/vendor or renderer-page/built is missing: run "npm run build" (scripts/vendor.mjs)`);
  }
  const files = new Map<string, HarnessFile>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const type = TYPES[extname(name)];
        if (type) files.set('/' + relative(dir, p).split('\\').join('/'), { contentType: type, body: readFileSync(p) });
      }
    }
  };
  walk(dir);
  for (const page of Object.values(HARNESS_PAGES)) {
    const html = files.get(page);
    if (!html) throw new Error(`renderer page missing: ${dir}${page}`);
    files.set(page, { contentType: html.contentType, body: Buffer.from(inlineScripts(html.body.toString('utf8'), files), 'utf8') });
  }
  return files;
}

/**
 * harness.html with every `<script src>` inlined and its CSP allowing exactly those scripts (by
 * hash) instead of 'self'. With 'self', caller code could load the page's own files again under
 * any query string (`import('/harness.js?' + 1 MB)`), and each load was a request paused for
 * Node to answer, URL and all; now the page makes no request at all after its document.
 */
export function inlineScripts(html: string, files: Map<string, HarnessFile>): string {
  const hashes: string[] = [];
  const out = html.replace(/<script src="([^"]+)"><\/script>/g, (_, src: string) => {
    const file = files.get('/' + src);
    if (!file) throw new Error(`renderer page: missing script ${src}`);
    const code = file.body.toString('utf8');
    if (/<\/script|<!--/i.test(code)) throw new Error(`renderer page: ${src} cannot be inlined`);
    hashes.push(`'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`);
    return `<script>${code}</script>`;
  });
  const csp = "script-src 'self' 'unsafe-eval'";
  if (!out.includes(csp)) throw new Error('renderer page: CSP script-src not found');
  return out.replace(csp, `script-src ${hashes.join(' ')} 'unsafe-eval'`);
}
