// Finds the golden-image cases under a folder: every *.json is a request body, its golden the
// file beside it with the same name and the image extension of its format.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

export interface GoldenCase {
  /** Path below the folder without ".json", with "/" separators: names the case everywhere. */
  name: string;
  configPath: string;
  goldenPath: string;
  /** png, svg or pdf: the extension of the golden (an unknown format is left to the normaliser). */
  format: string;
  body: Record<string, unknown>;
}

/** A config that cannot be read as a JSON object: bad usage, not a failed test. */
export class UnreadableConfig extends Error {}

export function formatOf(body: Record<string, unknown>): string {
  const f = body.format ?? body.f;
  return f === 'svg' || f === 'pdf' ? f : 'png';
}

/** Every *.json below `dir` (hidden folders, node_modules and `skip` left out), sorted by name. */
export function findCases(dir: string, skip: string[] = []): GoldenCase[] {
  const root = resolve(dir);
  const skipped = new Set(skip.map((s) => resolve(s)));
  const files: string[] = [];
  const walk = (d: string) => {
    // symbolic links are not followed: a link to a parent would never end
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && e.name !== 'node_modules' && !skipped.has(p)) walk(p);
      } else if (e.isFile() && e.name.endsWith('.json') && !e.name.startsWith('.')) files.push(p);
    }
  };
  walk(root);
  return files
    .map((configPath) => {
      const body = readBody(configPath);
      const name = relative(root, configPath).slice(0, -'.json'.length).split(sep).join('/');
      const format = formatOf(body);
      return { name, configPath, goldenPath: `${configPath.slice(0, -'.json'.length)}.${format}`, format, body };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function readBody(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UnreadableConfig(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UnreadableConfig(`${path}: not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UnreadableConfig(`${path}: must be a JSON object (a request body of POST /v1/chart)`);
  return value as Record<string, unknown>;
}
