// The dashboard's usage chart (pure): generations and errors per day (or per week over long
// windows) as a Chart.js config the service's own engine draws.
import type { DailyUsageRow } from '../store/dashboard.js';
import type { RenderRequest } from './request.js';

export interface UsageSeries {
  /** ISO date (YYYY-MM-DD) of each bucket's first day, oldest first. */
  days: string[];
  generations: number[];
  errors: number[];
  /** Days per bucket: 1, or 7 over windows longer than a year. */
  bucketDays: number;
}

const DAY_MS = 86_400_000;
/** Up to this many days the chart has a bar per day; longer windows get a bar per week. */
export const DAILY_BARS_MAX = 366;

/** One bucket per day (or week) of [fromDay, toDay], zero where the store has no row; the last bucket ends on toDay. */
export function usageSeries(rows: readonly DailyUsageRow[], fromDay: number, toDay: number): UsageSeries {
  const bucketDays = toDay - fromDay + 1 > DAILY_BARS_MAX ? 7 : 1;
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: UsageSeries = { days: [], generations: [], errors: [], bucketDays };
  // buckets are counted back from toDay, so the newest one is whole; the oldest may be cut short
  const first = toDay - Math.ceil((toDay - fromDay + 1) / bucketDays) * bucketDays + 1;
  for (let start = first; start <= toDay; start += bucketDays) {
    let g = 0;
    let e = 0;
    for (let d = Math.max(start, fromDay); d < start + bucketDays; d++) {
      const r = byDay.get(d);
      if (!r) continue;
      g += r.renders + r.cacheHits;
      e += Math.max(0, r.requests - r.succeeded);
    }
    out.days.push(new Date(Math.max(start, fromDay) * DAY_MS).toISOString().slice(0, 10));
    out.generations.push(g);
    out.errors.push(e);
  }
  return out;
}

/** An SVG render request of the series: bars of generations, a line of errors on its own scale. */
export function usageChartRequest(s: UsageSeries, width = 960, height = 280): RenderRequest {
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
          y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: s.bucketDays === 7 ? 'generations per week' : 'generations' } },
          errors: { position: 'right', beginAtZero: true, ticks: { precision: 0, color: '#d0342c' }, grid: { display: false }, title: { display: true, text: 'errors', color: '#d0342c' } },
        },
      },
    },
  };
}
