// A report folder: index.html (self-contained), summary.md, junit.xml, results.json and the
// images of the cases that did not match; and the merge of several such folders (shards).
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { reportHtml } from './report-html.js';
import { junitXml, resultsJson, summaryMarkdown, type CaseResult, type ResultsFile, type RunSummary } from './report.js';
import type { CaseImages } from './run.js';

/** A merge that cannot be made (a folder without results.json, a case in two shards): bad usage. */
export class MergeError extends Error {}

function write(path: string, body: Buffer | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
}

/** Writes every file of the report; `images[i]` are the bytes of `results[i]`'s images. */
export function writeReport(out: string, results: CaseResult[], images: CaseImages[], run: RunSummary): void {
  results.forEach((r, i) => {
    const im = images[i] ?? {};
    const ext = r.format;
    const put = (key: keyof CaseResult['images'], bytes: Buffer | undefined, name: string) => {
      if (!bytes) return;
      write(join(out, name), bytes);
      r.images[key] = name;
    };
    put('golden', im.golden, `${r.name}.golden.${ext}`);
    put('actual', im.actual, `${r.name}.actual.${ext}`);
    put('again', im.again, `${r.name}.again.${ext}`);
    put('diff', im.diff, `${r.name}.diff.png`);
  });
  writeTexts(out, results, run);
}

function writeTexts(out: string, results: CaseResult[], run: RunSummary): void {
  const files = (name: string) => {
    const p = resolve(out, name);
    return p.startsWith(resolve(out)) && existsSync(p) ? readFileSync(p) : null;
  };
  write(join(out, 'index.html'), reportHtml(results, run, files));
  write(join(out, 'summary.md'), summaryMarkdown(results, run));
  write(join(out, 'junit.xml'), junitXml(results, run));
  write(join(out, 'results.json'), resultsJson(results, run));
}

function readResults(dir: string): ResultsFile {
  const path = join(dir, 'results.json');
  let v: ResultsFile;
  try {
    v = JSON.parse(readFileSync(path, 'utf8')) as ResultsFile;
  } catch (err) {
    throw new MergeError(`${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing (not a report folder of chartshot test --report)' : `unreadable: ${(err as Error).message.split('\n')[0]}`}`);
  }
  if (v?.chartshot !== 'golden-results' || v.version !== 1 || !Array.isArray(v.results) || typeof v.run !== 'object') throw new MergeError(`${path}: not the results of chartshot test`);
  return v;
}

/** The reports in `dirs` as one in `out`: cases of every shard, images copied, one JUnit. */
export function mergeReports(dirs: string[], out: string): { results: CaseResult[]; run: RunSummary } {
  if (dirs.some((d) => resolve(d) === resolve(out))) throw new MergeError(`--report ${out} is one of the folders merged: name another`);
  const files = dirs.map((d) => ({ dir: d, file: readResults(d) }));
  const seen = new Map<string, string>();
  const results: CaseResult[] = [];
  for (const { dir, file } of files) {
    for (const r of file.results) {
      if (typeof r?.name !== 'string') throw new MergeError(`${join(dir, 'results.json')}: a case without a name`);
      if (seen.has(r.name)) throw new MergeError(`case ${r.name} is in two reports: ${seen.get(r.name)} and ${dir}`);
      seen.set(r.name, dir);
      for (const name of Object.values(r.images ?? {})) {
        const from = resolve(dir, name);
        // a name from the file stays inside its folder
        if (!from.startsWith(resolve(dir) + '/') || !existsSync(from)) continue;
        mkdirSync(dirname(join(out, name)), { recursive: true });
        copyFileSync(from, join(out, name));
      }
      results.push(r);
    }
  }
  results.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const runs = files.map((f) => f.file.run);
  const first = runs[0]!;
  const run: RunSummary = {
    ...first,
    ms: Math.max(...runs.map((r) => r.ms ?? 0)),
    rendererChange: runs.find((r) => r.rendererChange)?.rendererChange ?? null,
    stale: [...new Set(runs.flatMap((r) => r.stale ?? []))].sort(),
    shards: runs.flatMap((r) => r.shards ?? []),
  };
  writeTexts(out, results, run);
  return { results, run };
}
