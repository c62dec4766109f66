// The dashboard's usage chart (pure): daily generations and errors over a window of days, as a
// Chart.js config the service's own engine draws.
import type { DailyUsageRow } from '../store/dashboard.js';
import type { RenderRequest } from './request.js';

export interface DailySeries {
  /** ISO dates (YYYY-MM-DD), one per day of the window, oldest first. */
  days: string[];
  generations: number[];
  errors: number[];
}

const DAY_MS = 86_400_000;

/** One entry per day of [fromDay, toDay], zero where the store has no row. */
export function dailySeries(rows: readonly DailyUsageRow[], fromDay: number, toDay: number): DailySeries {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: DailySeries = { days: [], generations: [], errors: [] };
  for (let d = fromDay; d <= toDay; d++) {
    const r = byDay.get(d);
    out.days.push(new Date(d * DAY_MS).toISOString().slice(0, 10));
    out.generations.push(r ? r.renders + r.cacheHits : 0);
    out.errors.push(r ? Math.max(0, r.requests - r.succeeded) : 0);
  }
  return out;
}

/** An SVG render request of the series: bars of generations, a line of errors, no animation. */
export function usageChartRequest(s: DailySeries, width = 960, height = 280): RenderRequest {
  const many = s.days.length > 62;
  return {
    width,
    height,
    format: 'svg',
    backgroundColor: '#ffffff',
    allowFunctions: false,
    watermark: null,
    config: {
      type: 'bar',
      data: {
        labels: s.days,
        datasets: [
          { type: 'bar', label: 'Generations', data: s.generations, backgroundColor: '#3b6fd8', barPercentage: 1, categoryPercentage: many ? 1 : 0.8, order: 2, yAxisID: 'y' },
          // errors are few beside generations: their own scale on the right, drawn on top
          { type: 'line', label: 'Errors', data: s.errors, borderColor: '#d0342c', backgroundColor: '#d0342c', borderWidth: 1.5, pointRadius: many ? 0 : 2, order: 1, yAxisID: 'errors' },
        ],
      },
      options: {
        plugins: { legend: { position: 'top', align: 'end' } },
        scales: {
          x: { ticks: { maxTicksLimit: 12, maxRotation: 0 }, grid: { display: false } },
          y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'generations' } },
          errors: { position: 'right', beginAtZero: true, ticks: { precision: 0, color: '#d0342c' }, grid: { display: false }, title: { display: true, text: 'errors', color: '#d0342c' } },
        },
      },
    },
  };
}
