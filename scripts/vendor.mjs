// Copies the browser bundles the harness page loads into renderer-page/vendor/.
// The page never loads anything from a CDN: every script it runs comes from node_modules, pinned by package-lock.json.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'renderer-page', 'vendor');
mkdirSync(out, { recursive: true });

const copies = {
  'chart.umd.js': 'node_modules/chart.js/dist/chart.umd.min.js',
  'chartjs-adapter-date-fns.js': 'node_modules/chartjs-adapter-date-fns/dist/chartjs-adapter-date-fns.bundle.min.js',
  'chartjs-plugin-datalabels.js': 'node_modules/chartjs-plugin-datalabels/dist/chartjs-plugin-datalabels.min.js',
  'chartjs-plugin-annotation.js': 'node_modules/chartjs-plugin-annotation/dist/chartjs-plugin-annotation.min.js',
};
for (const [name, from] of Object.entries(copies)) {
  const src = join(root, from);
  if (!existsSync(src)) throw new Error(`vendor: missing ${from} (run npm ci)`);
  writeFileSync(join(out, name), readFileSync(src));
}
// svgcanvas ships CommonJS only: wrap it so the page gets a global `svgcanvas`.
const svg = readFileSync(join(root, 'node_modules/svgcanvas/dist/svgcanvas.js'), 'utf8');
writeFileSync(join(out, 'svgcanvas.js'), `(function(){var exports={};var module={exports:exports};\n${svg}\n;window.svgcanvas=module.exports&&Object.keys(module.exports).length?module.exports:exports;})();\n`);
