// Serves renderer-page/ to the pages from memory through request interception, so the
// harness loads without any network and every other request can be refused.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative, extname, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HARNESS_ORIGIN = 'http://renderer.chartshot.invalid';
export const HARNESS_URL = `${HARNESS_ORIGIN}/harness.html`;

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
  if (!existsSync(join(dir, 'vendor', 'chart.umd.js'))) {
    throw new Error(`renderer-page/vendor is missing: run "npm run build" (scripts/vendor.mjs)`);
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
  return files;
}
