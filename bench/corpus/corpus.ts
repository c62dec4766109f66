// The benchmark corpus: 40 realistic Chart.js 4 configs as POST /v1/chart bodies, from a seeded
// generator so every run renders the same bytes; callback entries carry `plain` (no callbacks).
import { bodies as callbackBodies } from './callbacks.js';
import { rng, series, labelsOf, type Body, type Entry } from './gen.js';

const PALETTE = ['#3B82F6', '#EF4444', '#10B981', '#F59E0B', '#8B5CF6', '#EC4899', '#14B8A6', '#64748B'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const alpha = (hex: string, a: number) => hex + Math.round(a * 255).toString(16).padStart(2, '0');
const title = (text: string) => ({ title: { display: true, text } });
const body = (chart: Record<string, unknown>, width: number, height: number, backgroundColor = 'white'): Body => ({ chart, width, height, backgroundColor });

function bar(seed: number, n: number, sets: number, opts: Record<string, unknown> = {}, labels = labelsOf(n, MONTHS)) {
  const r = rng(seed);
  return {
    type: 'bar',
    data: { labels, datasets: Array.from({ length: sets }, (_, k) => ({ label: `Series ${k + 1}`, data: series(r, n, 10, 90), backgroundColor: PALETTE[k % 8] })) },
    options: opts,
  };
}

function line(seed: number, n: number, sets: number, opts: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const r = rng(seed);
  return {
    type: 'line',
    data: {
      labels: labelsOf(n, MONTHS),
      datasets: Array.from({ length: sets }, (_, k) => ({ label: `Metric ${k + 1}`, data: series(r, n, 0, 100), borderColor: PALETTE[k % 8], backgroundColor: alpha(PALETTE[k % 8]!, 0.2), ...extra })),
    },
    options: opts,
  };
}

/** A long {x, y} series on a linear axis: how monitoring data is usually fed. */
function xyLine(seed: number, n: number, sets = 1) {
  const r = rng(seed);
  return {
    type: 'line',
    data: {
      datasets: Array.from({ length: sets }, (_, k) => ({
        label: `Sensor ${k + 1}`,
        data: series(r, n, 0, 1000).map((y, x) => ({ x, y })),
        borderColor: PALETTE[k % 8],
        borderWidth: 1,
        pointRadius: 0,
      })),
    },
    options: { scales: { x: { type: 'linear' } }, plugins: title(`${n.toLocaleString('en')} samples`) },
  };
}

function pie(type: 'pie' | 'doughnut', seed: number, labels: string[], opts: Record<string, unknown> = {}) {
  const r = rng(seed);
  return { type, data: { labels, datasets: [{ data: series(r, labels.length, 5, 60), backgroundColor: labels.map((_, k) => PALETTE[k % 8]) }] }, options: opts };
}

function radar(seed: number, axes: string[], sets: number, opts: Record<string, unknown> = {}) {
  const r = rng(seed);
  return {
    type: 'radar',
    data: { labels: axes, datasets: Array.from({ length: sets }, (_, k) => ({ label: `Team ${String.fromCharCode(65 + k)}`, data: series(r, axes.length, 20, 100), borderColor: PALETTE[k], backgroundColor: alpha(PALETTE[k]!, 0.25) })) },
    options: opts,
  };
}

function polar(seed: number, labels: string[], opts: Record<string, unknown> = {}) {
  const r = rng(seed);
  return { type: 'polarArea', data: { labels, datasets: [{ data: series(r, labels.length, 10, 100), backgroundColor: labels.map((_, k) => alpha(PALETTE[k % 8]!, 0.6)) }] }, options: opts };
}

function scatter(seed: number, n: number, sets: number, opts: Record<string, unknown> = {}) {
  const r = rng(seed);
  return {
    type: 'scatter',
    data: { datasets: Array.from({ length: sets }, (_, k) => ({ label: `Cluster ${k + 1}`, data: Array.from({ length: n }, () => ({ x: Math.round(r() * 1000) / 10, y: Math.round((r() + r() + k) * 1000) / 10 })), backgroundColor: alpha(PALETTE[k % 8]!, 0.7), pointRadius: 2 })) },
    options: opts,
  };
}

function bubble(seed: number, n: number, sets: number, opts: Record<string, unknown> = {}) {
  const r = rng(seed);
  return {
    type: 'bubble',
    data: { datasets: Array.from({ length: sets }, (_, k) => ({ label: `Region ${k + 1}`, data: Array.from({ length: n }, () => ({ x: Math.round(r() * 100), y: Math.round(r() * 100), r: 2 + Math.round(r() * 12) })), backgroundColor: alpha(PALETTE[k % 8]!, 0.5), borderColor: PALETTE[k % 8] })) },
    options: opts,
  };
}

function mixed(seed: number, n: number, opts: Record<string, unknown> = {}) {
  const r = rng(seed);
  return {
    type: 'bar',
    data: {
      labels: labelsOf(n, MONTHS),
      datasets: [
        { type: 'bar', label: 'Orders', data: series(r, n, 100, 400), backgroundColor: PALETTE[0], yAxisID: 'y' },
        { type: 'line', label: 'Conversion %', data: series(r, n, 1, 9), borderColor: PALETTE[1], backgroundColor: PALETTE[1], yAxisID: 'y1', tension: 0.3 },
      ],
    },
    options: { scales: { y: { position: 'left' }, y1: { position: 'right', grid: { drawOnChartArea: false } } }, ...opts },
  };
}

const CJK_CITIES = ['東京', '大阪', '北京', '上海', '서울', '부산', '台北', '香港'];
const EMOJI_FRUIT = ['🍎 Apple', '🍌 Banana', '🍇 Grape', '🍊 Orange', '🍓 Strawberry'];
const ACCENTED = ['Café', 'Crème brûlée', 'Façade', 'Naïve', 'Über', 'Señor', 'Smørrebrød'];
const SKILLS = ['Speed', 'Power', 'Stamina', 'Technique', 'Tactics', 'Teamwork'];
const stacked = { scales: { x: { stacked: true }, y: { stacked: true } } };

/** The 35 configs without callbacks. */
const plainBodies: Array<[string, Body]> = [
  ['bar-tiny', body(bar(1, 4, 1, { plugins: { legend: { display: false } } }), 100, 100)],
  ['bar-small', body(bar(2, 6, 2), 300, 200)],
  ['bar-monthly', body(bar(3, 12, 2, { plugins: title('Monthly revenue 2024') }), 800, 400)],
  ['bar-horizontal', body(bar(4, 8, 1, { indexAxis: 'y', plugins: title('Top regions') }, CJK_CITIES), 600, 400)],
  ['bar-stacked', body(bar(5, 12, 4, { ...stacked, plugins: title('Stacked by channel') }), 1000, 500)],
  ['bar-emoji', body(bar(6, 5, 1, { plugins: title('Fruit sales 🍉 per week') }, EMOJI_FRUIT), 500, 300, '#FFFFFF')],
  ['bar-1000', body(bar(7, 1000, 1, { plugins: { legend: { display: false }, ...title('1,000 daily values') } }, labelsOf(1000, ['d'])), 2000, 1000)],
  ['bar-transparent', body(bar(8, 7, 3), 640, 360, 'transparent')],
  ['line-tiny', body(line(9, 8, 1, { plugins: { legend: { display: false } }, scales: { x: { display: false }, y: { display: false } } }, { pointRadius: 0 }), 160, 100)],
  ['line-monthly', body(line(10, 12, 2, { plugins: title('Active users') }), 800, 400)],
  ['line-fill', body(line(11, 24, 3, { plugins: title('Área cubierta — año fiscal') }, { fill: true, tension: 0.4 }), 1000, 500)],
  ['line-stepped', body(line(12, 30, 1, {}, { stepped: true }), 600, 300)],
  ['line-2k', body(xyLine(13, 2000), 1200, 600)],
  ['line-5k-3sets', body(xyLine(14, 5000, 3), 2000, 1000)],
  ['line-dashed', body(line(15, 12, 2, { plugins: title('Forecast vs actual') }, { borderDash: [6, 4] }), 700, 350)],
  ['pie-small', body(pie('pie', 16, ['Yes', 'No', 'Maybe']), 200, 200)],
  ['pie-cities', body(pie('pie', 17, CJK_CITIES, { plugins: title('Users by city 都市別') }), 600, 600)],
  ['pie-accents', body(pie('pie', 18, ACCENTED, { plugins: { legend: { position: 'right' } } }), 700, 400)],
  ['doughnut-tiny', body(pie('doughnut', 19, ['A', 'B']), 100, 100)],
  ['doughnut-budget', body(pie('doughnut', 20, ['Rent', 'Food', 'Travel', 'Savings', 'Other'], { plugins: title('Budget 2025 💰') }), 500, 500)],
  ['doughnut-half', body(pie('doughnut', 21, ['Done', 'Left'], { rotation: -90, circumference: 180, cutout: '70%' }), 400, 250)],
  ['radar-skills', body(radar(22, SKILLS, 2, { plugins: title('Player comparison') }), 500, 500)],
  ['radar-cjk', body(radar(23, ['速度', '力量', '耐力', '技術', '戦術'], 3), 600, 600)],
  ['polar-small', body(polar(24, ['N', 'E', 'S', 'W']), 300, 300)],
  ['polar-accents', body(polar(25, ACCENTED, { plugins: title('Préférences') }), 600, 500)],
  ['scatter-small', body(scatter(26, 50, 2), 500, 400)],
  ['scatter-3k', body(scatter(27, 1000, 3, { plugins: title('3,000 observations') }), 1600, 900)],
  ['scatter-tiny', body(scatter(28, 20, 1, { plugins: { legend: { display: false } } }), 150, 100)],
  ['bubble-markets', body(bubble(29, 15, 3, { plugins: title('Market size by region') }), 800, 500)],
  ['bubble-1500', body(bubble(30, 500, 3), 1400, 800)],
  ['bubble-small', body(bubble(31, 8, 1), 300, 300)],
  ['mixed-orders', body(mixed(32, 12, { plugins: title('Orders and conversion') }), 900, 450)],
  ['mixed-weekly', body(mixed(33, 52, { plugins: title('Semaine par semaine — 52 weeks') }), 1200, 600)],
  ['mixed-small', body(mixed(34, 6), 400, 250)],
  ['line-multi-axis', body(line(35, 48, 4, { interaction: { mode: 'index', intersect: false }, plugins: title('Four metrics, 48 hours') }, { pointRadius: 1 }), 1600, 800)],
];

// All eight types plus mixed bar+line, from 100x100 to 2000x1000, a few with thousands of
// points, some unicode, and 5 (one in eight) with function-string callbacks.
export const corpus: Entry[] = [
  ...plainBodies.map(([name, b]) => ({ name, body: b })),
  ...callbackBodies().map(({ name, withCallbacks, without }) => ({ name, body: withCallbacks, plain: without })),
];
