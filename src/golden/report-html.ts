// The HTML report of a golden-image run: one self-contained file (its images inlined as data:
// URLs, its one script pinned by hash in a CSP meta, nothing loaded from anywhere), failures
// first, each with expected / actual / diff / side by side / slider / blend views over the same
// three images, the parts verdict, both renderer fingerprints and the case's options; keyboard:
// j/k next and previous case, 1-6 the views, left/right move the slider or the blend.
import { createHash } from 'node:crypto';
import { escapeHtml } from '../escapeHtml.js';
import { describe, isFailure, partsVerdict, reportOrder, summaryLine, type CaseResult, type RunSummary } from './report.js';

/** Reads a file of the report folder by its relative name (null when it is not there). */
export type ReportFiles = (name: string) => Buffer | null;

const VIEWS = [
  ['expected', 'Expected'],
  ['actual', 'Actual'],
  ['diff', 'Diff'],
  ['side', 'Side by side'],
  ['slider', 'Slider'],
  ['blend', 'Blend'],
] as const;

const SCRIPT = `(function () {
  var cards = Array.prototype.slice.call(document.querySelectorAll('.case[data-views]'));
  var current = -1;
  function setView(card, view) {
    var button = card.querySelector('button[data-view="' + view + '"]');
    if (!button || button.disabled) return;
    card.setAttribute('data-view', view);
    card.querySelectorAll('button[data-view]').forEach(function (b) { b.setAttribute('aria-pressed', String(b === button)); });
  }
  function setRange(card, value) {
    var v = Math.max(0, Math.min(100, value));
    var range = card.querySelector('input[type=range]');
    range.value = String(v);
    var top = card.querySelector('.stage img.actual');
    if (!top) return;
    top.style.clipPath = card.getAttribute('data-view') === 'slider' ? 'inset(0 0 0 ' + v + '%)' : '';
    top.style.opacity = card.getAttribute('data-view') === 'blend' ? String(v / 100) : '';
  }
  function focusCard(i) {
    if (!cards.length) return;
    current = (i + cards.length) % cards.length;
    cards.forEach(function (c, j) { c.classList.toggle('current', j === current); });
    cards[current].scrollIntoView({ block: 'start' });
    cards[current].focus({ preventScroll: true });
  }
  cards.forEach(function (card, i) {
    card.querySelectorAll('button[data-view]').forEach(function (b) {
      b.addEventListener('click', function () { current = i; setView(card, b.getAttribute('data-view')); setRange(card, Number(card.querySelector('input[type=range]').value)); });
    });
    card.querySelector('input[type=range]').addEventListener('input', function (e) { setRange(card, Number(e.target.value)); });
    card.addEventListener('focus', function () { current = i; cards.forEach(function (c, j) { c.classList.toggle('current', j === i); }); });
  });
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var card = cards[current];
    if (e.key === 'j' || e.key === 'n') { focusCard(current + 1); e.preventDefault(); return; }
    if (e.key === 'k' || e.key === 'p') { focusCard(current < 0 ? cards.length - 1 : current - 1); e.preventDefault(); return; }
    if (!card) return;
    var n = Number(e.key);
    if (n >= 1 && n <= ${VIEWS.length}) { setView(card, ${JSON.stringify(VIEWS.map((v) => v[0]))}[n - 1]); setRange(card, Number(card.querySelector('input[type=range]').value)); e.preventDefault(); return; }
    if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && /slider|blend/.test(card.getAttribute('data-view'))) {
      setRange(card, Number(card.querySelector('input[type=range]').value) + (e.key === 'ArrowLeft' ? -5 : 5));
      e.preventDefault();
    }
  });
  cards.forEach(function (card) { setRange(card, 50); });
  if (cards.length) current = 0;
})();`;

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#1a1a1a}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 6px;border-bottom:1px solid #ddd}
.meta{color:#555;margin:2px 0}.keys{color:#666;font-size:12px}
.warn{background:#fff4d6;border:1px solid #e0b84c;padding:6px 10px;display:inline-block;margin:6px 0}
.case{border:1px solid #ccc;border-radius:4px;padding:8px 10px;margin:10px 0;outline:none}
.case.current{border-color:#1565c0;box-shadow:0 0 0 2px #90caf9}
.badge{display:inline-block;padding:1px 6px;border-radius:3px;font-size:12px;font-weight:600;text-transform:uppercase;background:#2e7d32;color:#fff;margin-left:6px}
.differs .badge,.error .badge,.unreadable .badge{background:#c62828}.missing .badge{background:#ef6c00}
.unstable .badge{background:#6a1b9a}.updated .badge{background:#1565c0}
.detail{margin:4px 0}.verdict{margin:4px 0;color:#333}
details{margin:4px 0}pre{background:#f6f6f6;padding:6px;margin:4px 0;white-space:pre-wrap}
.views button{font:inherit;padding:2px 8px;margin-right:4px}.views button[aria-pressed=true]{background:#1565c0;color:#fff}
.stage{position:relative;display:inline-block;margin-top:6px;vertical-align:top}
.stage img,.pair img{display:block;max-width:100%;background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px}
.stage img{display:none}.pair{display:none;gap:8px}.pair figure{margin:0}.pair figcaption{font-size:12px;color:#555}
.case[data-view=expected] .stage img.expected,.case[data-view=actual] .stage img.actual,.case[data-view=diff] .stage img.diff,.case[data-view=again] .stage img.again{display:block}
.case[data-view=slider] .stage img.expected,.case[data-view=blend] .stage img.expected{display:block}
.case[data-view=slider] .stage img.actual,.case[data-view=blend] .stage img.actual{display:block;position:absolute;left:0;top:0}
.case[data-view=side] .stage{display:none}.case[data-view=side] .pair{display:flex}
.range{display:none}.case[data-view=slider] .range,.case[data-view=blend] .range{display:inline-block;margin-left:8px}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}`;

const MIME: Record<string, string> = { png: 'image/png', svg: 'image/svg+xml' };

function dataUrl(files: ReportFiles, name: string | undefined, format: string): string | null {
  if (!name || !MIME[format]) return null;
  const bytes = files(name);
  return bytes ? `data:${MIME[format]};base64,${bytes.toString('base64')}` : null;
}

function caseCard(r: CaseResult, i: number, files: ReportFiles): string {
  const fmt = r.format;
  const expected = dataUrl(files, r.images.golden, fmt);
  const actual = dataUrl(files, r.images.actual, fmt);
  const diff = dataUrl(files, r.images.diff, 'png');
  const again = dataUrl(files, r.images.again, fmt);
  const has: Record<string, boolean> = { expected: !!expected, actual: !!actual, diff: !!diff, side: !!(expected && actual), slider: !!(expected && actual), blend: !!(expected && actual) };
  const first = (['diff', 'side', 'actual', 'expected'] as const).find((v) => has[v]) ?? 'actual';
  const img = (cls: string, src: string | null, alt: string) => (src ? `<img class="${cls}" src="${src}" alt="${escapeHtml(alt)} of ${escapeHtml(r.name)}">` : '');
  const views = VIEWS.map(([v, label], k) => `<button type="button" data-view="${v}" title="key ${k + 1}" aria-pressed="${v === first}"${has[v] ? '' : ' disabled'}>${label}</button>`).join('');
  const verdict = partsVerdict(r.parts);
  // the parts verdict has a line of its own
  const detail = describe(r);
  const links = (['golden', 'actual', 'again', 'diff'] as const)
    .filter((k) => r.images[k])
    .map((k) => `<a href="${escapeHtml(r.images[k]!.split('/').map(encodeURIComponent).join('/'))}">${k}</a>`)
    .join(' ');
  return `<section class="case ${r.status}" id="case-${i}" tabindex="-1" data-name="${escapeHtml(r.name)}" data-views data-view="${first}">
<b class="name">${escapeHtml(r.name)}</b><span class="badge">${r.status}</span>
<p class="detail">${escapeHtml(verdict && detail.endsWith(`; ${verdict}`) ? detail.slice(0, -(verdict.length + 2)) : detail)}</p>
${verdict ? `<p class="verdict">Parts: ${escapeHtml(verdict)}</p>` : ''}
<div class="views">${views}<input class="range" type="range" min="0" max="100" value="50" aria-label="slider and blend position"></div>
<div class="stage">${img('expected', expected, 'expected')}${img('actual', actual, 'actual')}${img('diff', diff, 'diff')}</div>
<div class="pair"><figure>${img('expected', expected, 'expected, side by side')}<figcaption>expected (golden)</figcaption></figure><figure>${img('actual', actual, 'actual, side by side')}<figcaption>actual</figcaption></figure>${again ? `<figure>${img('again', again, 'second render')}<figcaption>second render</figcaption></figure>` : ''}</div>
${r.options && Object.keys(r.options).length ? `<details><summary>case options</summary><pre>${escapeHtml(JSON.stringify(r.options, null, 1))}</pre></details>` : ''}
${links ? `<p class="meta">files: ${links}</p>` : ''}
</section>`;
}

export function reportHtml(results: CaseResult[], run: RunSummary, files: ReportFiles): string {
  const ordered = reportOrder(results);
  const failing = ordered.filter(isFailure);
  const unstable = ordered.filter((r) => r.status === 'unstable');
  const updated = ordered.filter((r) => r.status === 'updated');
  const passed = ordered.filter((r) => r.status === 'ok');
  let i = 0;
  const cards = (list: CaseResult[]) => list.map((r) => caseCard(r, i++, files)).join('\n');
  const scriptHash = createHash('sha256').update(SCRIPT).digest('base64');
  const styleHash = createHash('sha256').update(STYLE).digest('base64');
  const tol = run.tolerance;
  const tolText = [
    `threshold ${tol.threshold}`,
    tol.maxDiffPixels !== undefined ? `max ${tol.maxDiffPixels} pixels` : '',
    tol.maxDiffRatio !== undefined ? `max ratio ${tol.maxDiffRatio}` : '',
    tol.window ? `window ${tol.window.size}:${tol.window.max}` : '',
    tol.ignoreAntialiasing ? 'anti-aliasing ignored' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const title = summaryLine(results, run.ms);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'sha256-${styleHash}'; script-src 'sha256-${scriptHash}'; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>chartshot golden images: ${escapeHtml(title)}</title>
<style>${STYLE}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">Folder: ${escapeHtml(run.dir)}${run.shards?.length ? ` (shards ${escapeHtml(run.shards.join(', '))})` : ''}</p>
<p class="meta">Rendered by: <code>${escapeHtml(run.renderer)}</code></p>
<p class="meta">Goldens made by: <code>${escapeHtml(run.recorded ?? 'not recorded')}</code></p>
<p class="meta">Tolerance: ${escapeHtml(tolText)}</p>
${run.rendererChange ? `<p class="warn">${escapeHtml(run.rendererChange)}</p>` : ''}
<p class="keys">Keys: j / k next and previous case; 1-6 ${VIEWS.map((v) => v[1].toLowerCase()).join(', ')}; left / right move the slider or the blend.</p>
${failing.length ? `<h2 id="failures">Failures (${failing.length})</h2>\n${cards(failing)}` : '<h2>Every golden matches</h2>'}
${unstable.length ? `<h2 id="unstable">Unstable (${unstable.length}): two renders of the same config differed</h2>\n${cards(unstable)}` : ''}
${updated.length ? `<h2 id="updated">Updated (${updated.length})</h2>\n${cards(updated)}` : ''}
${run.stale.length ? `<h2 id="stale">Stale goldens (${run.stale.length}): no case uses them</h2>\n<ul>${run.stale.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul>` : ''}
${passed.length ? `<h2 id="passed">Passed (${passed.length})</h2>\n<table><thead><tr><th>case</th><th>detail</th></tr></thead><tbody>${passed.map((r) => `<tr class="ok"><td>${escapeHtml(r.name)}</td><td>${escapeHtml(describe(r) || 'identical')}</td></tr>`).join('')}</tbody></table>` : ''}
<script>${SCRIPT}</script>
</body></html>
`;
}
