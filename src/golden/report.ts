// The report of a golden-image run: a self-contained HTML page (no script, no CDN; images by
// relative path) and JUnit XML for CI systems. Pure: results in, text out.
import { escapeHtml } from '../escapeHtml.js';

export type CaseStatus = 'ok' | 'differs' | 'missing' | 'error' | 'updated';

export interface CaseResult {
  name: string;
  format: string;
  status: CaseStatus;
  /** Differing pixels (-1: not counted, e.g. SVG text) and the image's pixels. */
  diffPixels?: number;
  totalPixels?: number;
  sizeChange?: string;
  error?: string;
  ms: number;
  /** Files of the report folder, relative to it. */
  images: { golden?: string; actual?: string; diff?: string };
}

export interface RunSummary {
  dir: string;
  renderer: string;
  /** "renderer changed: ..." when the goldens were made by another renderer. */
  rendererChange: string | null;
  ms: number;
}

const FAILED: ReadonlySet<CaseStatus> = new Set(['differs', 'missing', 'error']);
export const isFailure = (r: CaseResult): boolean => FAILED.has(r.status);


/** A relative path as an attribute value: each segment URL-encoded ("#" or "?" in a name stay a name). */
function href(path: string): string {
  return escapeHtml(path.split('/').map(encodeURIComponent).join('/'));
}

/** The one-word outcome and its detail, as the command prints it. */
export function describe(r: CaseResult): string {
  switch (r.status) {
    case 'ok':
      return r.diffPixels ? `${r.diffPixels} pixels within tolerance` : '';
    case 'differs':
      if (r.sizeChange) return `size ${r.sizeChange}`;
      return r.diffPixels !== undefined && r.diffPixels >= 0 ? `${r.diffPixels} of ${r.totalPixels} pixels` : 'bytes differ';
    case 'missing':
      return 'no golden image';
    case 'error':
      return r.error ?? 'failed';
    case 'updated':
      return 'golden written';
  }
}

export function counts(results: CaseResult[]): Record<CaseStatus, number> {
  const c: Record<CaseStatus, number> = { ok: 0, differs: 0, missing: 0, error: 0, updated: 0 };
  for (const r of results) c[r.status]++;
  return c;
}

export function summaryLine(results: CaseResult[], ms: number): string {
  const c = counts(results);
  const parts = [`${c.ok} ok`, `${c.differs} differ`, `${c.missing} missing`, `${c.error} errors`];
  if (c.updated) parts.push(`${c.updated} updated`);
  return `${results.length} configs: ${parts.join(', ')} (${(ms / 1000).toFixed(1)} s)`;
}

function cell(path: string | undefined, alt: string, empty = 'none'): string {
  return path ? `<a href="${href(path)}"><img src="${href(path)}" alt="${escapeHtml(alt)}"></a>` : `<span class="none">${empty}</span>`;
}

/** Failures first (differs, missing, error), then the rest, each group by name. */
export function reportOrder(results: CaseResult[]): CaseResult[] {
  return [...results].sort((a, b) => Number(isFailure(b)) - Number(isFailure(a)) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function reportHtml(results: CaseResult[], run: RunSummary): string {
  const rows = reportOrder(results)
    .map((r) => {
      const detail = describe(r);
      return `<tr class="${r.status}">
<td class="name"><b>${escapeHtml(r.name)}</b><br><span class="badge">${r.status}</span>${detail ? `<br><span class="detail">${escapeHtml(detail)}</span>` : ''}</td>
<td>${cell(r.images.golden, `golden of ${r.name}`)}</td>
<td>${cell(r.images.actual, `actual of ${r.name}`, r.status === 'ok' ? 'same as golden' : 'none')}</td>
<td>${cell(r.images.diff, `diff of ${r.name}`, r.status === 'ok' ? 'no difference' : 'none')}</td>
</tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'">
<title>chartshot golden images: ${escapeHtml(summaryLine(results, run.ms))}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#1a1a1a}
h1{font-size:20px;margin:0 0 4px}
.meta{color:#555;margin:2px 0}
.warn{background:#fff4d6;border:1px solid #e0b84c;padding:6px 10px;display:inline-block;margin:6px 0}
table{border-collapse:collapse;margin-top:12px}
th,td{border:1px solid #ccc;padding:6px;vertical-align:top;text-align:left}
th{background:#f3f3f3}
td img{max-width:360px;max-height:260px;background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px;display:block}
.badge{display:inline-block;padding:1px 6px;border-radius:3px;font-size:12px;font-weight:600;text-transform:uppercase;background:#2e7d32;color:#fff}
tr.differs .badge,tr.error .badge{background:#c62828}
tr.missing .badge{background:#ef6c00}
tr.updated .badge{background:#1565c0}
.detail{color:#333}
.none{color:#999}
</style></head><body>
<h1>${escapeHtml(summaryLine(results, run.ms))}</h1>
<p class="meta">Folder: ${escapeHtml(run.dir)}</p>
<p class="meta">Renderer: ${escapeHtml(run.renderer)}</p>
${run.rendererChange ? `<p class="warn">${escapeHtml(run.rendererChange)}</p>` : ''}
<table>
<thead><tr><th>config</th><th>golden</th><th>actual</th><th>diff</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}

function xmlEscape(s: string): string {
  // characters XML 1.0 cannot carry at all are dropped
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function junitXml(results: CaseResult[], run: RunSummary): string {
  const c = counts(results);
  const cases = results
    .map((r) => {
      const cls = xmlEscape(`chartshot.${r.name.includes('/') ? r.name.slice(0, r.name.lastIndexOf('/')).replace(/\//g, '.') : 'golden'}`);
      const head = `  <testcase classname="${cls}" name="${xmlEscape(r.name)}" time="${(r.ms / 1000).toFixed(3)}"`;
      if (r.status === 'error') return `${head}>\n    <error message="${xmlEscape(describe(r))}"/>\n  </testcase>`;
      if (r.status === 'differs' || r.status === 'missing') return `${head}>\n    <failure message="${xmlEscape(`${r.status}: ${describe(r)}`)}"/>\n  </testcase>`;
      return `${head}/>`;
    })
    .join('\n');
  const props = `  <properties>\n    <property name="renderer" value="${xmlEscape(run.renderer)}"/>\n  </properties>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="chartshot" tests="${results.length}" failures="${c.differs + c.missing}" errors="${c.error}" time="${(run.ms / 1000).toFixed(3)}">
<testsuite name="${xmlEscape(`chartshot golden images (${run.dir})`)}" tests="${results.length}" failures="${c.differs + c.missing}" errors="${c.error}" time="${(run.ms / 1000).toFixed(3)}">
${props}
${cases}
</testsuite>
</testsuites>
`;
}
