// The usage page's chart, drawn by the service's own engine as SVG through the render pool.
// An account's chart is redrawn in the background while its last one (at most REDRAW_MS old) is
// shown, so only an account's first view waits for a render.
import { LRUCache } from 'lru-cache';
import { usageSeries, usageChartRequest } from '../../chart/usageChart.js';
import { renderDigest, withConfigJson } from '../../chart/request.js';
import type { Clock } from '../../clock.js';
import type { DailyUsageRow } from '../../store/dashboard.js';
import { renderOwner, type RenderService } from '../render.js';

export interface UsageChartImage {
  /** The SVG document, to be shown only as an image (an <img> runs no script of it). */
  svg: Buffer;
  totals: { generations: number; errors: number };
  /** Days per bar: 1, or 7 over windows longer than a year. */
  bucketDays: number;
}

/** How old a shown chart may be while its successor is drawn. */
export const REDRAW_MS = 5 * 60_000;

interface Drawn {
  digest: string;
  svg: Buffer;
  at: number;
}

export class UsageChart {
  private readonly latest = new LRUCache<string, Drawn>({ max: 2000, maxSize: 64 * 1024 * 1024, sizeCalculation: (d) => d.svg.length || 1 });
  private readonly drawing = new Map<string, Promise<Drawn>>();

  constructor(
    private readonly renderer: Pick<RenderService, 'render'>,
    private readonly clock: Clock,
  ) {}

  async draw(accountId: string, rows: readonly DailyUsageRow[], fromDay: number, toDay: number): Promise<UsageChartImage> {
    const series = usageSeries(rows, fromDay, toDay);
    const meta = { totals: { generations: sum(series.generations), errors: sum(series.errors) }, bucketDays: series.bucketDays };
    const req = withConfigJson(usageChartRequest(series));
    const digest = renderDigest(req);
    const last = this.latest.get(accountId);
    const now = this.clock.now();
    if (last && last.digest === digest) return { svg: last.svg, ...meta };
    const fresh = this.redraw(accountId, req, digest);
    if (last && now - last.at < REDRAW_MS && now >= last.at) {
      // a failed background redraw leaves the last chart; the next view after REDRAW_MS waits for one and sees its error
      fresh.catch(() => {});
      return { svg: last.svg, ...meta };
    }
    return { svg: (await fresh).svg, ...meta };
  }

  /** One redraw per account at a time. */
  private redraw(accountId: string, req: ReturnType<typeof usageChartRequest>, digest: string): Promise<Drawn> {
    const running = this.drawing.get(accountId);
    if (running) return running;
    const job = this.renderer
      .render(req, renderOwner.account(accountId), digest)
      .then((img) => {
        const d = { digest, svg: img.body, at: this.clock.now() };
        this.latest.set(accountId, d);
        return d;
      })
      .finally(() => this.drawing.delete(accountId));
    this.drawing.set(accountId, job);
    return job;
  }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
