// Finds the golden-image cases under a folder: every *.json is a request body, its golden the
// file beside it with the same name and the image extension of its format, its options
// NAME.golden.json (options.ts). Goldens left without a case are stale.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { parseCaseOptions, type CaseOptions } from './options.js';

/** NAME.golden.json: a case's options, never a case itself. */
export const OPTIONS_SUFFIX = '.golden.json';
const IMAGE_EXT = ['png', 'svg', 'pdf'];

export interface GoldenCase {
  /** Path below the folder without ".json", with "/" separators: names the case everywhere. */
  name: string;
  configPath: string;
  goldenPath: string;
  /** png, svg or pdf: the extension of the golden (an unknown format is left to the normaliser). */
  format: string;
  body: Record<string, unknown>;
  /** NAME.golden.json's options ({} without one). */
  options: CaseOptions;
  /** That file's path when it exists. */
  optionsPath?: string;
}

/** A config that cannot be read as a JSON object: bad usage, not a failed test. */
export class UnreadableConfig extends Error {}

export function formatOf(body: Record<string, unknown>): string {
  const f = body.format ?? body.f;
  return f === 'svg' || f === 'pdf' ? f : 'png';
}

/** Files below `dir` whose name passes `keep` (hidden folders, node_modules and `skip` left out). */
function listFiles(dir: string, skip: string[], keep: (name: string) => boolean): string[] {
  const root = resolve(dir);
  const skipped = new Set(skip.map((s) => resolve(s)));
  const files: string[] = [];
  const walk = (d: string) => {
    // symbolic links are not followed: a link to a parent would never end
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && e.name !== 'node_modules' && !skipped.has(p)) walk(p);
      } else if (e.isFile() && !e.name.startsWith('.') && keep(e.name)) files.push(p);
    }
  };
  walk(root);
  return files;
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Every *.json below `dir` but NAME.golden.json (hidden folders, node_modules and `skip` left out), sorted by name. */
export function findCases(dir: string, skip: string[] = []): GoldenCase[] {
  const root = resolve(dir);
  return listFiles(dir, skip, (n) => n.endsWith('.json') && !n.endsWith(OPTIONS_SUFFIX))
    .map((configPath) => {
      const body = readBody(configPath);
      const stem = configPath.slice(0, -'.json'.length);
      const name = relative(root, configPath).slice(0, -'.json'.length).split(sep).join('/');
      const format = formatOf(body);
      const optionsPath = stem + OPTIONS_SUFFIX;
      const has = existsSync(optionsPath);
      // a bad options file is bad usage (options.ts OptionError), found before anything renders
      const options = has ? parseCaseOptions(readText(optionsPath), optionsPath) : {};
      return { name, configPath, goldenPath: `${stem}.${format}`, format, body, options, ...(has ? { optionsPath } : {}) };
    })
    .sort(byName);
}

/** Golden images below `dir` that no case names (its config gone, or its format changed); names relative to `dir`. */
export function staleGoldens(dir: string, cases: GoldenCase[], skip: string[] = []): string[] {
  const root = resolve(dir);
  const used = new Set(cases.map((c) => resolve(c.goldenPath)));
  return listFiles(dir, skip, (n) => IMAGE_EXT.some((e) => n.endsWith(`.${e}`)))
    .filter((p) => !used.has(resolve(p)))
    .map((p) => relative(root, p).split(sep).join('/'))
    .sort();
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UnreadableConfig(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function readBody(path: string): Record<string, unknown> {
  const text = readText(path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UnreadableConfig(`${path}: not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UnreadableConfig(`${path}: must be a JSON object (a request body of POST /v1/chart)`);
  return value as Record<string, unknown>;
}
