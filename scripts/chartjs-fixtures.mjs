// Converts Chart.js's own image-test fixtures (test/fixtures of a Chart.js checkout) that chartshot
// used to refuse (no top-level type, no datasets, no data, time formats written for moment) into request bodies under
// fixtures/chartjs/, for test/integration/fidelity-drawall.test.ts. Fixtures with functions, DOM
// or moment calls are left out (their config is not JSON). Run again after a Chart.js upgrade:
//   node scripts/chartjs-fixtures.mjs /path/to/Chart.js
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import vm from 'node:vm';

const checkout = process.argv[2];
if (!checkout) {
  console.error('usage: node scripts/chartjs-fixtures.mjs /path/to/Chart.js');
  process.exit(2);
}
const root = join(checkout, 'test/fixtures');
const out = 'fixtures/chartjs';

const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function load(file) {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.json')) return JSON.parse(text);
  const mod = { exports: {} };
  vm.runInNewContext(text, { module: mod, exports: mod.exports }, { filename: file, timeout: 1000 });
  return mod.exports;
}

function hasFunction(v, seen = new Set()) {
  if (typeof v === 'function') return true;
  if (v === null || typeof v !== 'object' || seen.has(v)) return false;
  seen.add(v);
  return Object.values(v).some((x) => hasFunction(x, seen));
}

/** renderer-page/moment4.js's rule: a time scale format with Y, D or A outside escapes. */
const momentFormat = (f) => typeof f === 'string' && /[YDA]/.test(f.replace(/\[[^\]]*\]/g, '').replace(/'[^']*'/g, ''));
function wantsMoment(config) {
  const scales = isObject(config.options?.scales) ? Object.values(config.options.scales) : [];
  return scales.some((s) => isObject(s?.time) && (momentFormat(s.time.parser) || momentFormat(s.time.tooltipFormat) || Object.values(s.time.displayFormats ?? {}).some(momentFormat)));
}

/** Why chartshot refused it, or null. */
function reason(config) {
  if (wantsMoment(config)) return 'moment';
  const sets = isObject(config.data) ? config.data.datasets : undefined;
  if (!Array.isArray(sets) || sets.length === 0) return 'no-datasets';
  const hasData = sets.some((d) => (Array.isArray(d?.data) ? d.data.length > 0 : isObject(d?.data) && Object.keys(d.data).length > 0));
  if (!hasData) return 'no-data';
  if (config.type === undefined) return 'no-type';
  return null;
}

rmSync(out, { recursive: true, force: true });
let written = 0;
for (const file of walk(root).filter((f) => /\.(js|json)$/.test(f)).sort()) {
  let fx;
  try {
    fx = load(file);
  } catch {
    continue; // DOM or moment calls at load time
  }
  const config = fx.config;
  if (!isObject(config) || hasFunction(fx)) continue;
  const why = reason(config);
  if (!why) continue;
  const canvas = isObject(fx.options?.canvas) ? fx.options.canvas : {};
  const name = relative(root, file).replace(/\.(js|json)$/, '').replace(/[\/]/g, '--');
  mkdirSync(join(out, why), { recursive: true });
  const body = { source: relative(checkout, file), chart: config, width: canvas.width ?? 512, height: canvas.height ?? 512 };
  writeFileSync(join(out, why, `${name}.json`), JSON.stringify(body, null, 1) + '\n');
  written++;
}
console.log(`${written} fixtures written to ${out}`);
