// The results of a golden-image run as text: the command's lines, JUnit XML, summary.md (for
// $GITHUB_STEP_SUMMARY), GitHub annotations and results.json (what `test merge` reads). The
// HTML report: report-html.ts. Pure: results in, text out.
import type { CaseOptions } from './options.js';
import type { Tolerance } from './compare.js';

export type CaseStatus = 'ok' | 'differs' | 'missing' | 'error' | 'updated' | 'unstable' | 'unreadable';

export interface CaseResult {
  name: string;
  format: string;
  status: CaseStatus;
  ms: number;
  /** The config file as the run named it (relative to the working folder), for annotations. */
  file?: string;
  /** What happened, in words (missing, unstable, unreadable, updated). */
  detail?: string;
  /** error: the API's code and detail, or what failed. */
  error?: string;
  errorCode?: string;
  /** error: bad usage (a part the chart lacks, an option that does not apply): the run exits 2. */
  usage?: boolean;
  /** Counted differing pixels (-1: not counted, e.g. SVG text) and the image's pixels. */
  diffPixels?: number;
  aaPixels?: number;
  /** Anti-aliased pixels were left out of diffPixels (ignoreAntialiasing). */
  aaIgnored?: boolean;
  totalPixels?: number;
  comparedPixels?: number;
  reason?: 'pixels' | 'ratio' | 'window' | 'size' | 'bytes' | 'unreadable';
  sizeChange?: string;
  worstWindow?: { x: number; y: number; count: number };
  /** Differing pixels (anti-aliasing included) inside each chart part. */
  parts?: Record<string, number>;
  options?: CaseOptions;
  /** Files of the report folder, relative to it. */
  images: { golden?: string; actual?: string; again?: string; diff?: string };
}

export interface RunSummary {
  dir: string;
  /** What rendered this run. */
  renderer: string;
  /** What the goldens were made with (.chartshot-renderer), when recorded. */
  recorded: string | null;
  /** "renderer changed: ..." when the goldens were made by another renderer. */
  rendererChange: string | null;
  ms: number;
  tolerance: Tolerance;
  /** Goldens without a case, relative to dir. */
  stale: string[];
  /** "2/4" when this run was one shard; merged reports name every shard. */
  shards?: string[];
}

const FAILED: ReadonlySet<CaseStatus> = new Set(['differs', 'missing', 'error', 'unreadable']);
export const isFailure = (r: CaseResult): boolean => FAILED.has(r.status);

/** 0 all match, 1 a difference (missing, error, unreadable), 2 bad usage found while running, 3 unstable only. */
export function exitCodeOf(results: CaseResult[]): number {
  if (results.some((r) => r.usage)) return 2;
  if (results.some(isFailure)) return 1;
  if (results.some((r) => r.status === 'unstable')) return 3;
  return 0;
}

const PART_ORDER = ['title', 'subtitle', 'legend', 'chartArea'];

/** "legend changed (120 px), chartArea identical, x identical": the fixed parts first, then scales by id. */
export function partsVerdict(parts: Record<string, number> | undefined): string {
  if (!parts) return '';
  const names = Object.keys(parts).sort((a, b) => {
    const ia = PART_ORDER.indexOf(a);
    const ib = PART_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || (a < b ? -1 : a > b ? 1 : 0);
  });
  return names.map((n) => (parts[n]! > 0 ? `${n} changed (${parts[n]} px)` : `${n} identical`)).join(', ');
}

function pixelText(r: CaseResult): string {
  if (r.sizeChange) return `size ${r.sizeChange}`;
  if (r.diffPixels === undefined || r.diffPixels < 0) return r.reason === 'unreadable' ? 'the image is not a readable PNG' : 'bytes differ';
  const of = r.comparedPixels !== undefined && r.comparedPixels !== r.totalPixels ? `${r.comparedPixels} compared` : `${r.totalPixels}`;
  let s = `${r.diffPixels} of ${of} pixels`;
  if (r.aaPixels) s += r.aaIgnored ? ` (and ${r.aaPixels} anti-aliased, not counted)` : ` (${r.aaPixels} of them anti-aliased)`;
  if (r.reason === 'window' && r.worstWindow) s += `; ${r.worstWindow.count} in one window at ${r.worstWindow.x},${r.worstWindow.y}`;
  return s;
}

/** The outcome's detail, as the command prints it. */
export function describe(r: CaseResult): string {
  switch (r.status) {
    case 'ok':
      return r.diffPixels || r.aaPixels ? `${pixelText(r)} within tolerance` : '';
    case 'differs': {
      const p = partsVerdict(r.parts);
      return pixelText(r) + (p ? `; ${p}` : '');
    }
    case 'unstable':
      return `${r.detail ?? 'unstable'}; against the golden: ${pixelText(r)}`;
    case 'error':
      return r.error ?? 'failed';
    default:
      return r.detail ?? '';
  }
}

export function counts(results: CaseResult[]): Record<CaseStatus, number> {
  const c: Record<CaseStatus, number> = { ok: 0, differs: 0, missing: 0, error: 0, updated: 0, unstable: 0, unreadable: 0 };
  for (const r of results) c[r.status]++;
  return c;
}

export function summaryLine(results: CaseResult[], ms: number): string {
  const c = counts(results);
  const parts = [`${c.ok} ok`, `${c.differs} differ`, `${c.missing} missing`, `${c.error} errors`];
  if (c.unstable) parts.push(`${c.unstable} unstable`);
  if (c.unreadable) parts.push(`${c.unreadable} unreadable`);
  if (c.updated) parts.push(`${c.updated} updated`);
  return `${results.length} configs: ${parts.join(', ')} (${(ms / 1000).toFixed(1)} s)`;
}

/** Failures first, then unstable, updated and the rest, each group by name. */
export function reportOrder(results: CaseResult[]): CaseResult[] {
  const rank = (r: CaseResult) => (isFailure(r) ? 0 : r.status === 'unstable' ? 1 : r.status === 'updated' ? 2 : 3);
  return [...results].sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function xmlEscape(s: string): string {
  // characters XML 1.0 cannot carry at all are dropped
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function junitXml(results: CaseResult[], run: RunSummary): string {
  const c = counts(results);
  const failures = c.differs + c.missing + c.unreadable + c.unstable;
  const cases = results
    .map((r) => {
      const cls = xmlEscape(`chartshot.${r.name.includes('/') ? r.name.slice(0, r.name.lastIndexOf('/')).replace(/\//g, '.') : 'golden'}`);
      const head = `  <testcase classname="${cls}" name="${xmlEscape(r.name)}" time="${(r.ms / 1000).toFixed(3)}"`;
      if (r.status === 'error') return `${head}>\n    <error message="${xmlEscape(describe(r))}"/>\n  </testcase>`;
      if (isFailure(r) || r.status === 'unstable') return `${head}>\n    <failure message="${xmlEscape(`${r.status}: ${describe(r)}`)}"/>\n  </testcase>`;
      return `${head}/>`;
    })
    .join('\n');
  const props = `  <properties>\n    <property name="renderer" value="${xmlEscape(run.renderer)}"/>\n  </properties>`;
  const time = (run.ms / 1000).toFixed(3);
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="chartshot" tests="${results.length}" failures="${failures}" errors="${c.error}" time="${time}">
<testsuite name="${xmlEscape(`chartshot golden images (${run.dir})`)}" tests="${results.length}" failures="${failures}" errors="${c.error}" time="${time}">
${props}
${cases}
</testsuite>
</testsuites>
`;
}

/** Markdown table cells: no newline, no pipe, no HTML. */
const md = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/[|\\`<>*_[\]]/g, (ch) => `\\${ch}`);

/** summary.md: a heading line, the counts, the failing and unstable cases with their details, stale goldens. */
export function summaryMarkdown(results: CaseResult[], run: RunSummary): string {
  const lines = [`### chartshot golden images: ${md(summaryLine(results, run.ms))}`, ''];
  if (run.rendererChange) lines.push(`> ${md(run.rendererChange)} (goldens: ${md(run.recorded ?? '')})`, '');
  const bad = reportOrder(results).filter((r) => isFailure(r) || r.status === 'unstable');
  if (bad.length) {
    lines.push('| case | status | detail |', '|---|---|---|');
    for (const r of bad.slice(0, 200)) lines.push(`| ${md(r.name)} | ${r.status} | ${md(describe(r))} |`);
    if (bad.length > 200) lines.push(`| ... | | ${bad.length - 200} more in the report |`);
    lines.push('');
  } else lines.push('Every golden matches.', '');
  if (run.stale.length) lines.push(`Stale goldens (no case): ${run.stale.slice(0, 50).map(md).join(', ')}${run.stale.length > 50 ? ` and ${run.stale.length - 50} more` : ''}`, '');
  lines.push(`Renderer: ${md(run.renderer)}`, '');
  return lines.join('\n');
}

/** Workflow commands' data: %, CR and LF escaped; properties also : and ,. */
const ghData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const ghProp = (s: string) => ghData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** `::error file=...,title=...::detail` for each failing case, `::warning` for unstable ones. */
export function githubAnnotations(results: CaseResult[]): string {
  return reportOrder(results)
    .filter((r) => isFailure(r) || r.status === 'unstable')
    .map((r) => `::${r.status === 'unstable' ? 'warning' : 'error'} ${r.file ? `file=${ghProp(r.file)},` : ''}title=${ghProp(`chartshot ${r.status}: ${r.name}`)}::${ghData(describe(r))}`)
    .join('\n');
}

/** results.json: what `chartshot test merge` reads back. */
export interface ResultsFile {
  chartshot: 'golden-results';
  version: 1;
  run: RunSummary;
  results: CaseResult[];
}

export function resultsJson(results: CaseResult[], run: RunSummary): string {
  const file: ResultsFile = { chartshot: 'golden-results', version: 1, run, results };
  return JSON.stringify(file, null, 1) + '\n';
}
