// The corpus entries with function-string callbacks, each built twice (with its callbacks and as
// the same chart without them), so the benchmark can price the callbacks alone.
import { rng, series, type Body } from './gen.js';

interface Pair {
  name: string;
  withCallbacks: Body;
  without: Body;
}

type Build = (cb: boolean) => { chart: Record<string, unknown>; width: number; height: number };

const QUARTERS = ['Q1 2024', 'Q2 2024', 'Q3 2024', 'Q4 2024', 'Q1 2025', 'Q2 2025', 'Q3 2025', 'Q4 2025'];

const builds: Array<[string, Build]> = [
  // Currency tick formatter and a tooltip label callback.
  ['cb-bar-currency', (cb) => ({
    width: 800,
    height: 400,
    chart: {
      type: 'bar',
      data: { labels: QUARTERS, datasets: [{ label: 'Revenue (€)', data: series(rng(101), 8, 20000, 90000), backgroundColor: '#3B82F6' }] },
      options: {
        plugins: {
          title: { display: true, text: 'Revenue per quarter' },
          ...(cb ? { tooltip: { callbacks: { label: "function(ctx) { return ctx.dataset.label + ': €' + ctx.parsed.y.toLocaleString('en'); }" } } } : {}),
        },
        scales: { y: { ticks: cb ? { callback: "function(value) { return '€' + (value / 1000) + 'k'; }" } : {} } },
      },
    },
  })],
  // Scriptable point colours (an arrow) on a line with a percentage axis.
  ['cb-line-scriptable', (cb) => ({
    width: 1000,
    height: 500,
    chart: {
      type: 'line',
      data: {
        labels: Array.from({ length: 60 }, (_, i) => `Day ${i + 1}`),
        datasets: [{
          label: 'CPU load',
          data: series(rng(102), 60, 5, 95),
          borderColor: '#64748B',
          pointRadius: 3,
          pointBackgroundColor: cb ? "(ctx) => ctx.raw > 70 ? '#EF4444' : ctx.raw > 40 ? '#F59E0B' : '#10B981'" : '#10B981',
        }],
      },
      options: {
        plugins: { title: { display: true, text: 'Load per day — alert above 70%' } },
        scales: { y: { min: 0, max: 100, ticks: cb ? { callback: '(v) => v + "%"' } : {} } },
      },
    },
  })],
  // A legend filter that hides the small slices, unicode labels.
  ['cb-pie-legend-filter', (cb) => ({
    width: 600,
    height: 400,
    chart: {
      type: 'pie',
      data: {
        labels: ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera', 'Other ✱'],
        datasets: [{ data: [64, 19, 7, 5, 3, 2], backgroundColor: ['#3B82F6', '#10B981', '#F59E0B', '#8B5CF6', '#EF4444', '#64748B'] }],
      },
      options: {
        plugins: {
          title: { display: true, text: 'Navigateurs — part de marché' },
          legend: { position: 'right', labels: cb ? { filter: 'function(item, data) { return data.datasets[0].data[item.index] >= 5; }' } : {} },
        },
      },
    },
  })],
  // Scriptable bar colours by sign, a signed tick formatter, a tooltip title callback.
  ['cb-bar-signed', (cb) => ({
    width: 900,
    height: 450,
    chart: {
      type: 'bar',
      data: {
        labels: ['東京', '大阪', '名古屋', '札幌', '福岡', '神戸', '京都', '横浜', '仙台', '広島'],
        datasets: [{
          label: 'Δ vs last year',
          data: [12.5, -8.2, 23.1, -15.4, 4.7, -2.3, 31, -27.6, 9.8, -5.1],
          backgroundColor: cb ? "function(context) { var v = context.raw; return v < 0 ? 'rgba(239,68,68,0.8)' : 'rgba(16,185,129,0.8)'; }" : 'rgba(16,185,129,0.8)',
        }],
      },
      options: {
        plugins: {
          title: { display: true, text: '前年比 (year on year)' },
          ...(cb ? { tooltip: { callbacks: { title: '(items) => items[0].label + " 📍"' } } } : {}),
        },
        scales: { y: { ticks: cb ? { callback: "(v) => (v > 0 ? '+' : '') + v + '%'" } : {} } },
      },
    },
  })],
  // Radar with a radial tick formatter and point-label callback.
  ['cb-radar-ticks', (cb) => ({
    width: 500,
    height: 500,
    chart: {
      type: 'radar',
      data: {
        labels: ['Speed', 'Power', 'Stamina', 'Technique', 'Tactics'],
        datasets: [
          { label: 'Ana', data: series(rng(105), 5, 30, 100), borderColor: '#EC4899', backgroundColor: '#EC489940' },
          { label: 'José', data: series(rng(106), 5, 30, 100), borderColor: '#14B8A6', backgroundColor: '#14B8A640' },
        ],
      },
      options: {
        scales: {
          r: {
            min: 0,
            max: 100,
            ticks: cb ? { callback: "function(v) { return v + ' pts'; }" } : {},
            pointLabels: cb ? { callback: '(label, i) => label.toUpperCase()' } : {},
          },
        },
      },
    },
  })],
];

export function bodies(): Pair[] {
  return builds.map(([name, build]) => {
    const a = build(true);
    const b = build(false);
    return { name, withCallbacks: { ...a, backgroundColor: 'white' }, without: { ...b, backgroundColor: 'white' } };
  });
}
