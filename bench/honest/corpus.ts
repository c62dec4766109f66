// The honest bench's corpus: generated from a seed, never hand-picked, so nothing chartshot was
// tuned on (bench/corpus/ is what earlier work measured against) leaks into it. Shaped like
// what users send: mostly small and medium bar, line, pie and doughnut charts, some large (up to
// 2000x1200), about one in eight with function-string callbacks, some unicode, all eight
// built-in types. BENCH_SEED picks another corpus of the same shape (to check that a result is
// not a property of one draw).
import { rng, series, labelsOf, type Body } from '../corpus/gen.js';

export const DEFAULT_SEED = 271127;

export interface CorpusEntry {
  /** type-size-index, e.g. "bar-300x200-7": stable for a seed. */
  name: string;
  type: string;
  sizeClass: 'small' | 'medium' | 'large';
  callbacks: boolean;
  unicode: boolean;
  body: Body;
}

// Types by share of traffic (of 48: bar 13, line 13, pie 6, doughnut 6, and 2-3 of each other).
const TYPE_SHARES: Array<[string, number]> = [
  ['bar', 13], ['line', 13], ['pie', 6], ['doughnut', 6], ['radar', 2], ['polarArea', 2], ['scatter', 3], ['bubble', 3],
];
const SIZE_SHARES: Array<['small' | 'medium' | 'large', number]> = [['small', 22], ['medium', 20], ['large', 6]];

const PALETTE = ['#3B82F6', '#EF4444', '#10B981', '#F59E0B', '#8B5CF6', '#EC4899', '#14B8A6', '#64748B', '#0EA5E9', '#84CC16'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WORDS = ['North', 'South', 'East', 'West', 'Online', 'Retail', 'Partners', 'Direct', 'Mobile', 'Desktop', 'Tablet', 'Other'];
const UNICODE_LABELS = [
  ['東京', '大阪', '名古屋', '札幌', '福岡', '横浜', '京都', '神戸'],
  ['北京', '上海', '广州', '深圳', '成都', '杭州'],
  ['서울', '부산', '인천', '대구', '대전'],
  ['Café', 'Crème', 'Façade', 'Naïve', 'Über', 'Señor', 'Smørrebrød', 'Ærø'],
  ['Москва', 'Київ', 'Минск', 'Алматы', 'Ереван'],
  ['Αθήνα', 'Θεσσαλονίκη', 'Πάτρα', 'Ηράκλειο'],
  ['🍎 Apple', '🍌 Banana', '🍇 Grape', '🍊 Orange', '🍓 Berry'],
];
const TITLES = ['Revenue by month', 'Active users', 'Orders per region', 'Latency (ms)', 'Share of traffic', 'Budget 2025', 'Weekly signups', 'Error rate', 'Inventory', 'NPS by segment'];
const UNICODE_TITLES = ['売上 — 月別', '用户增长 📈', 'Évolution du chiffre d’affaires', 'Выручка по месяцам', 'Ventas por región ✓', '매출 현황'];

/** Deterministic Fisher-Yates. */
function shuffle<T>(r: () => number, xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: () => number, p: number) => r() < p;
const alpha = (hex: string, a: number) => hex + Math.round(a * 255).toString(16).padStart(2, '0');
const round10 = (x: number) => Math.round(x / 10) * 10;

const ROUND_TYPES = new Set(['pie', 'doughnut', 'radar', 'polarArea']);

function sizeOf(r: () => number, cls: 'small' | 'medium' | 'large', type: string): [number, number] {
  const [wLo, wHi, hLo, hHi] = cls === 'small' ? [100, 400, 100, 300] : cls === 'medium' ? [400, 1000, 250, 600] : [1000, 2000, 600, 1200];
  const w = round10(int(r, wLo, wHi));
  // round charts are mostly square-ish
  const h = ROUND_TYPES.has(type) && chance(r, 0.6) ? Math.min(w, round10(int(r, hLo, hHi * 1.3))) : round10(int(r, hLo, hHi));
  return [w, Math.max(hLo, h)];
}

/** How many labels / points a chart of this class carries. */
function countOf(r: () => number, cls: 'small' | 'medium' | 'large', type: string): number {
  if (type === 'scatter') return cls === 'small' ? int(r, 10, 50) : cls === 'medium' ? int(r, 50, 300) : int(r, 300, 2000);
  if (type === 'bubble') return cls === 'small' ? int(r, 5, 20) : cls === 'medium' ? int(r, 20, 80) : int(r, 80, 300);
  if (ROUND_TYPES.has(type)) return cls === 'small' ? int(r, 2, 5) : int(r, 3, 8);
  return cls === 'small' ? int(r, 3, 8) : cls === 'medium' ? int(r, 5, 24) : int(r, 12, 60);
}

function labelsFor(r: () => number, n: number, unicode: boolean): string[] {
  if (unicode) return labelsOf(n, pick(r, UNICODE_LABELS));
  return chance(r, 0.6) ? labelsOf(n, MONTHS) : labelsOf(n, WORDS);
}

/** Callbacks as users write them: tick formatters, tooltip labels, scriptable colours, legend filters. */
function addCallbacks(r: () => number, type: string, chart: { data: { datasets: Array<Record<string, unknown>> }; options: Record<string, any> }): void {
  const o = chart.options;
  o.plugins ??= {};
  o.plugins.tooltip = { callbacks: { label: pick(r, ["function(ctx) { return ctx.dataset.label + ': ' + ctx.formattedValue; }", '(ctx) => ctx.label + " — " + ctx.raw']) } };
  if (type === 'bar' || type === 'line' || type === 'scatter' || type === 'bubble') {
    o.scales ??= {};
    o.scales.y = { ...(o.scales.y ?? {}), ticks: { callback: pick(r, ["function(value) { return '$' + value; }", '(v) => v + "%"', "function(v) { return (v / 1000).toFixed(1) + 'k'; }"]) } };
    if (type === 'bar' && chance(r, 0.5)) chart.data.datasets[0]!.backgroundColor = "(ctx) => ctx.raw > 50 ? '#EF4444' : '#3B82F6'";
    if (type === 'line' && chance(r, 0.5)) chart.data.datasets[0]!.pointBackgroundColor = "function(ctx) { return ctx.raw > 50 ? '#EF4444' : '#10B981'; }";
  } else if (type === 'radar') {
    o.scales = { r: { pointLabels: { callback: '(label) => label.toUpperCase()' } } };
  } else {
    o.plugins.legend = { ...(o.plugins.legend ?? {}), labels: { filter: 'function(item, data) { return item.index < 6; }' } };
  }
}

function build(r: () => number, type: string, cls: 'small' | 'medium' | 'large', unicode: boolean, callbacks: boolean): Body {
  const [width, height] = sizeOf(r, cls, type);
  const n = countOf(r, cls, type);
  const tiny = width <= 160 || height <= 120;
  const options: Record<string, any> = { plugins: {} };
  if (!tiny && chance(r, 0.5)) options.plugins.title = { display: true, text: unicode && chance(r, 0.6) ? pick(r, UNICODE_TITLES) : pick(r, TITLES) };
  if (tiny || chance(r, 0.15)) options.plugins.legend = { display: false };
  let datasets: Array<Record<string, unknown>>;
  let labels: string[] | undefined;
  const sets = tiny ? 1 : int(r, 1, cls === 'small' ? 2 : 3);
  if (type === 'bar') {
    labels = labelsFor(r, n, unicode);
    datasets = Array.from({ length: sets }, (_, k) => ({ label: `Series ${k + 1}`, data: series(r, n, 5, 95), backgroundColor: PALETTE[k], ...(chance(r, 0.2) ? { borderRadius: 4 } : {}) }));
    if (chance(r, 0.15)) options.indexAxis = 'y';
    if (sets > 1 && chance(r, 0.3)) options.scales = { x: { stacked: true }, y: { stacked: true } };
  } else if (type === 'line') {
    const long = cls === 'large' && chance(r, 0.35);
    if (long) {
      // a monitoring series: {x, y} on a linear axis, no points
      const points = int(r, 500, 3000);
      datasets = Array.from({ length: sets }, (_, k) => ({ label: `Sensor ${k + 1}`, data: series(r, points, 0, 1000).map((y, x) => ({ x, y })), borderColor: PALETTE[k], borderWidth: 1, pointRadius: 0 }));
      options.scales = { x: { type: 'linear' } };
    } else {
      labels = labelsFor(r, n, unicode);
      const fill = chance(r, 0.3);
      const tension = chance(r, 0.4) ? 0.35 : 0;
      const noPoints = chance(r, 0.3);
      datasets = Array.from({ length: sets }, (_, k) => ({
        label: `Metric ${k + 1}`, data: series(r, n, 0, 100), borderColor: PALETTE[k], backgroundColor: alpha(PALETTE[k]!, 0.2),
        ...(fill ? { fill: k === 0 ? 'origin' : '-1' } : {}), ...(tension ? { tension } : {}), ...(noPoints ? { pointRadius: 0 } : {}),
        ...(chance(r, 0.1) ? { borderDash: [6, 4] } : {}), ...(chance(r, 0.08) ? { stepped: true } : {}),
      }));
    }
  } else if (type === 'pie' || type === 'doughnut' || type === 'polarArea') {
    labels = labelsFor(r, n, unicode);
    const colours = labels.map((_, k) => (type === 'polarArea' ? alpha(PALETTE[k % PALETTE.length]!, 0.6) : PALETTE[k % PALETTE.length]));
    datasets = [{ data: series(r, n, 5, 60), backgroundColor: colours }];
    if (type === 'doughnut' && chance(r, 0.2)) Object.assign(options, { rotation: -90, circumference: 180 });
    if (!tiny && chance(r, 0.3)) options.plugins.legend = { position: 'right' };
  } else if (type === 'radar') {
    labels = labelsFor(r, Math.max(5, n), unicode);
    datasets = Array.from({ length: sets }, (_, k) => ({ label: `Team ${k + 1}`, data: series(r, labels!.length, 20, 100), borderColor: PALETTE[k], backgroundColor: alpha(PALETTE[k]!, 0.25) }));
  } else if (type === 'scatter') {
    datasets = Array.from({ length: sets }, (_, k) => ({ label: `Cluster ${k + 1}`, data: Array.from({ length: n }, () => ({ x: Math.round(r() * 1000) / 10, y: Math.round((r() + r() + k) * 1000) / 10 })), backgroundColor: alpha(PALETTE[k]!, 0.7), pointRadius: cls === 'large' ? 2 : 3 }));
  } else {
    datasets = Array.from({ length: sets }, (_, k) => ({ label: `Region ${k + 1}`, data: Array.from({ length: n }, () => ({ x: Math.round(r() * 100), y: Math.round(r() * 100), r: 2 + Math.round(r() * 12) })), backgroundColor: alpha(PALETTE[k]!, 0.5), borderColor: PALETTE[k] }));
  }
  const chart = { type, data: { ...(labels ? { labels } : {}), datasets }, options };
  if (callbacks) addCallbacks(r, type, chart as never);
  const bg = r();
  return { chart, width, height, backgroundColor: bg < 0.85 ? 'white' : bg < 0.95 ? 'transparent' : '#F8FAFC' };
}

/** The corpus for `seed`: 48 entries, in a seeded order. */
export function generateCorpus(seed = DEFAULT_SEED): CorpusEntry[] {
  const r = rng(seed);
  const types = shuffle(r, TYPE_SHARES.flatMap(([t, k]) => Array<string>(k).fill(t)));
  const sizes = shuffle(r, SIZE_SHARES.flatMap(([s, k]) => Array<'small' | 'medium' | 'large'>(k).fill(s)));
  // one in eight with callbacks, and some unicode, on entries drawn at random
  const withCallbacks = new Set(shuffle(r, types.map((_, i) => i)).slice(0, Math.round(types.length / 8)));
  return types.map((type, i) => {
    const cls = sizes[i]!;
    const unicode = chance(r, 0.2);
    const callbacks = withCallbacks.has(i);
    const body = build(r, type, cls, unicode, callbacks);
    return { name: `${type}-${body.width}x${body.height}-${i}`, type, sizeClass: cls, callbacks, unicode, body };
  });
}
