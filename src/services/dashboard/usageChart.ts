// The usage page's chart, drawn by the service's own engine as SVG through the render pool;
// the same series is drawn once (an account reloading the page costs no render).
import { LRUCache } from 'lru-cache';
import { dailySeries, usageChartRequest } from '../../chart/usageChart.js';
import { renderDigest } from '../../chart/request.js';
import type { DailyUsageRow } from '../../store/dashboard.js';
import { renderOwner, type RenderService } from '../render.js';

export interface UsageChartImage {
  /** The SVG document, to be shown only as an image (an <img> runs no script of it). */
  svg: Buffer;
  totals: { generations: number; errors: number };
}

export class UsageChart {
  private readonly drawn = new LRUCache<string, Buffer>({ max: 500, maxSize: 64 * 1024 * 1024, sizeCalculation: (b) => b.length || 1 });

  constructor(private readonly renderer: Pick<RenderService, 'render'>) {}

  async draw(accountId: string, rows: readonly DailyUsageRow[], fromDay: number, toDay: number): Promise<UsageChartImage> {
    const series = dailySeries(rows, fromDay, toDay);
    const totals = { generations: sum(series.generations), errors: sum(series.errors) };
    const req = usageChartRequest(series);
    const digest = renderDigest(req);
    let svg = this.drawn.get(digest);
    if (!svg) {
      svg = (await this.renderer.render(req, renderOwner.account(accountId), digest)).body;
      this.drawn.set(digest, svg);
    }
    return { svg, totals };
  }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
