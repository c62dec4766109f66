// Copies the browser bundles the harness page loads into renderer-page/vendor/.
// The page never loads anything from a CDN: every script it runs comes from node_modules, pinned by package-lock.json.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { scanModuleState } from './module-state.mjs';
import { MODULE_STATE_AUDIT } from './module-state-audit.mjs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'renderer-page', 'vendor');
for (const sub of ['v2', 'v3']) mkdirSync(join(out, sub), { recursive: true });

const copies = {
  'chart.umd.js': 'node_modules/chart.js/dist/chart.umd.min.js',
  'chartjs-adapter-date-fns.js': 'node_modules/chartjs-adapter-date-fns/dist/chartjs-adapter-date-fns.bundle.min.js',
  'chartjs-plugin-datalabels.js': 'node_modules/chartjs-plugin-datalabels/dist/chartjs-plugin-datalabels.min.js',
  'chartjs-plugin-annotation.js': 'node_modules/chartjs-plugin-annotation/dist/chartjs-plugin-annotation.min.js',
  // Chart.js 4 chart-type plugins (each registers its controllers on load, as in a browser)
  'chartjs-chart-matrix.js': 'node_modules/chartjs-chart-matrix/dist/chartjs-chart-matrix.min.js',
  'chartjs-chart-treemap.js': 'node_modules/chartjs-chart-treemap/dist/chartjs-chart-treemap.min.js',
  'chartjs-chart-sankey.js': 'node_modules/chartjs-chart-sankey/dist/chartjs-chart-sankey.min.js',
  'chartjs-chart-financial.js': 'node_modules/chartjs-chart-financial/dist/chartjs-chart-financial.min.js',
  'chartjs-chart-boxplot.js': 'node_modules/@sgratzl/chartjs-chart-boxplot/build/index.umd.min.js',
  'chartjs-chart-funnel.js': 'node_modules/chartjs-chart-funnel/build/index.umd.min.js',
  'chartjs-chart-error-bars.js': 'node_modules/chartjs-chart-error-bars/build/index.umd.min.js',
  'chartjs-chart-wordcloud.js': 'node_modules/chartjs-chart-wordcloud/build/index.umd.min.js',
  'chartjs-chart-venn.js': 'node_modules/chartjs-chart-venn/build/index.umd.min.js',
  'chartjs-chart-graph.js': 'node_modules/chartjs-chart-graph/build/index.umd.min.js',
  'chartjs-chart-geo.js': 'node_modules/chartjs-chart-geo/build/index.umd.min.js',
  // Chart.js 3.9.1 (harness3.html) shares the date-fns adapter and datalabels 2.x above
  'v3/chart.js': 'node_modules/chartjs3/dist/chart.min.js',
  'v3/chartjs-plugin-annotation.js': 'node_modules/chartjs-plugin-annotation-v3/dist/chartjs-plugin-annotation.min.js',
  // QuickChart's v3 chart types: financial 0.1 is the Chart.js 3 build (0.2 needs 4); sankey and
  // funnel share the Chart.js 4 page's builds above (both declare chart.js >= 3)
  'v3/chartjs-chart-financial.js': 'node_modules/chartjs-chart-financial-v3/dist/chartjs-chart-financial.min.js',
  // Chart.js 2.9.4 (harness2.html): the bundle carries moment as its time adapter
  'v2/chart.js': 'node_modules/chartjs2/dist/Chart.bundle.min.js',
  'v2/chartjs-plugin-datalabels.js': 'node_modules/chartjs-plugin-datalabels-v2/dist/chartjs-plugin-datalabels.min.js',
  'v2/chartjs-plugin-annotation.js': 'node_modules/chartjs-plugin-annotation-v2/chartjs-plugin-annotation.min.js',
  'v2/chartjs-plugin-doughnutlabel.js': 'node_modules/chartjs-plugin-doughnutlabel/dist/chartjs-plugin-doughnutlabel.js',
  'v2/chartjs-plugin-piechart-outlabels.js': 'node_modules/chartjs-plugin-piechart-outlabels/dist/chartjs-plugin-piechart-outlabels.min.js',
  'v2/chartjs-chart-radial-gauge.js': 'node_modules/chartjs-chart-radial-gauge/build/Chart.RadialGauge.umd.min.js',
  'v2/chartjs-chart-box-and-violin-plot.js': 'node_modules/chartjs-chart-box-and-violin-plot/build/Chart.BoxPlot.min.js',
  // QuickChart's hosted v2 features: type gauge, error bars, the colorschemes tables
  'v2/chartjs-gauge.js': 'node_modules/chartjs-gauge/dist/chartjs-gauge.min.js',
  'v2/chartjs-plugin-error-bars.js': 'node_modules/chartjs-plugin-error-bars/build/Plugin.Errorbars.min.js',
  'v2/chartjs-plugin-colorschemes.js': 'node_modules/chartjs-plugin-colorschemes/dist/chartjs-plugin-colorschemes.min.js',
};
// ---- module-level state ----------------------------------------------------------------------
// Every binding a bundle keeps for the whole page that code running after load writes (a cache, a
// counter, a registry) gets a call after its declaration that hands the page a reader and, for a
// let or var, a writer (renderer-page/state.js): the harness puts each back as the loaded page had
// it before every render. What the scan finds, and why a few are treated otherwise:
// scripts/module-state-audit.mjs. Scanning is the slow part (seconds per bundle): its result is kept
// by the hash of the bundle and of the scanner.
const stateCacheFile = join(out, '.module-state.json');
const scanner = readFileSync(join(root, 'scripts', 'module-state.mjs'), 'utf8');
/** @type {Record<string, { hash: string, found: any[] }>} */
const stateCache = existsSync(stateCacheFile) ? JSON.parse(readFileSync(stateCacheFile, 'utf8')) : {};
const inventory = {};
function withStateHooks(name, text) {
  const hash = createHash('sha256').update(scanner).update('\0').update(text).digest('hex');
  const found = stateCache[name]?.hash === hash ? stateCache[name].found : scanModuleState(text);
  stateCache[name] = { hash, found };
  const audit = MODULE_STATE_AUDIT[name] ?? {};
  const seen = new Set();
  const calls = new Map();
  for (const b of found) {
    if (!b.written) continue;
    const key = `${b.name}@${b.statementStart}`;
    seen.add(key);
    if (!b.injectable) throw new Error(`vendor: ${name}: ${key} is module state declared where no call can follow it`);
    const treat = audit[key]?.treat ?? 'restore';
    const writer = b.kind === 'const' || b.kind === 'class' ? '' : `,function(v){${b.name}=v}`;
    const call = `typeof __chartshotState=="function"&&__chartshotState(${JSON.stringify(`${name}:${key}`)},"${treat}",function(){return ${b.name}}${writer});`;
    calls.set(b.statementEnd, (calls.get(b.statementEnd) ?? '') + call);
    inventory[`${name}:${key}`] = { treat, kind: b.kind, init: b.init, writes: b.writes };
  }
  for (const key of Object.keys(audit)) {
    if (!seen.has(key)) throw new Error(`vendor: ${name}: scripts/module-state-audit.mjs names ${key}, which the scan does not find (read the new version of the bundle again)`);
  }
  let outText = '';
  let at = 0;
  for (const end of [...calls.keys()].sort((a, b) => a - b)) {
    outText += text.slice(at, end) + ';' + calls.get(end);
    at = end;
  }
  return outText + text.slice(at);
}

for (const [name, from] of Object.entries(copies)) {
  const src = join(root, from);
  if (!existsSync(src)) throw new Error(`vendor: missing ${from} (run npm ci)`);
  // CRLF as LF: the page's CSP pins each inlined script by the hash of its text as the HTML
  // parser leaves it, and the parser turns CRLF into LF
  writeFileSync(join(out, name), withStateHooks(name, readFileSync(src, 'utf8').replace(/\r\n?/g, '\n')));
}
// moment and its Chart.js adapter, for time scales written with moment's format tokens
// (renderer-page/moment4.js switches a render to it). The adapter hands its members to the page
// instead of overriding date-fns's at load: the page keeps both and picks one per render.
writeFileSync(join(out, 'moment.js'), withStateHooks('moment.js', readFileSync(join(root, 'node_modules/moment/min/moment.min.js'), 'utf8').replace(/\r\n?/g, '\n')));
const momentAdapter = readFileSync(join(root, 'node_modules/chartjs-adapter-moment/dist/chartjs-adapter-moment.js'), 'utf8').replace(/\r\n?/g, '\n');
const handOver = 'factory(global.moment, { _adapters: { _date: { override: function (members) { global.ChartshotMomentAdapter = members; } } } })';
const handedOver = momentAdapter.replace('factory(global.moment, global.Chart)', handOver);
if (handedOver === momentAdapter) throw new Error('vendor: chartjs-adapter-moment changed shape (its global factory call was not found)');
writeFileSync(join(out, 'chartjs-adapter-moment.js'), withStateHooks('chartjs-adapter-moment.js', handedOver));
// The topologies a geo config may name (renderer-page/geo4.js resolves the names): the page
// fetches nothing, so they are part of it. The small ones only; kept as JSON text, parsed when a
// chart names one (as object literals they tripled the harness's script time at every reload).
const topologies = {
  'world-atlas/countries-110m': 'node_modules/world-atlas/countries-110m.json',
  'us-atlas/states-10m': 'node_modules/us-atlas/states-10m.json',
};
const topoText = Object.entries(topologies)
  .map(([name, from]) => `${JSON.stringify(name)}:${JSON.stringify(JSON.stringify(JSON.parse(readFileSync(join(root, from), 'utf8'))))}`)
  .join(',\n');
writeFileSync(join(out, 'topologies.js'), `window.ChartshotTopologies={${topoText}};\n`);
// svgcanvas ships CommonJS only: wrap it so the page gets a global `svgcanvas`.
const svg = readFileSync(join(root, 'node_modules/svgcanvas/dist/svgcanvas.js'), 'utf8');
writeFileSync(join(out, 'svgcanvas.js'), withStateHooks('svgcanvas.js', `(function(){var exports={};var module={exports:exports};\n${svg}\n;window.svgcanvas=module.exports&&Object.keys(module.exports).length?module.exports:exports;})();\n`));
writeFileSync(stateCacheFile, JSON.stringify(stateCache));
// what was found, for the decision record and the tests (test/unit/module-state.test.ts)
writeFileSync(join(out, 'module-state.json'), JSON.stringify(inventory, null, 1) + '\n');

// The harness (window.chartshot): its modules, in this order, as one IIFE, so that they share
// the references saved at load and nothing of theirs is reachable from caller code. The page
// loads the result as one script (its CSP pins it by hash, src/render/harness.ts).
const HARNESS_MODULES = [
  'refs.js', // page globals taken at load, saved built-ins, the limits Node sends (init)
  'revive.js', // config cleaning and function revival
  'patches.js', // text patches (template overrides)
  'plugins.js', // per-chart plugins (background, watermark, datalabels) and type checks
  'chart-life.js', // sizes, error messages, chart disposal
  'zone.js', // the zone and locale a render must be drawn in
  'canvas-cache.js', // the kept canvases
  'output.js', // PNG and SVG
  'parts.js', // the part boxes golden-image tests ask for
  'js-config.js', // JavaScript configs
  'page-state.js', // the digest of the page's shared state, compared after each render
  'render.js', // one render, request to result
  'inflate.js', // deflated configs
  'api.js', // the benchmark floor, the purity check, window.chartshot
];
const harnessDir = join(root, 'renderer-page', 'harness');
const built = join(root, 'renderer-page', 'built');
mkdirSync(built, { recursive: true });
const parts = HARNESS_MODULES.map((name) => `// ---- ${name} ----\n` + readFileSync(join(harnessDir, name), 'utf8').replace(/\r\n?/g, '\n').replace(/^\/\/ @ts-check\n/, ''));
// Rules the gate in Node and the page share, from their one source in src/ (types stripped by
// TypeScript's own transpiler, exports made plain functions), before the modules that call them.
const SHARED_RULES = ['src/chart/childRole.ts'];
parts.unshift(...SHARED_RULES.map((file) => `// ---- ${file} ----\n` + sharedRule(file)));

/** The JavaScript of a self-contained TypeScript module, its exports as plain declarations. */
function sharedRule(file) {
  const source = readFileSync(join(root, file), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: false } }).outputText;
  if (/^\s*import\b/m.test(js)) throw new Error(`vendor: ${file} must not import anything (it is put into the page whole)`);
  return js.replace(/^export \{\};?\n?/m, '').replace(/^export (function|const|let|var) /gm, '$1 ');
}
writeFileSync(
  join(built, 'harness.js'),
  '// Built by scripts/vendor.mjs from renderer-page/harness/*.js: edit those.\n' +
    "// The renderer page's API (window.chartshot), called from Node through CDP with one plain-data\n" +
    '// request per render (renderer-page/protocol.d.ts). Why it is built this way: docs/decisions/0002-function-string-sandbox.md.\n' +
    "(function () {\n'use strict';\n" +
    parts.join('\n') +
    '})();\n',
);
