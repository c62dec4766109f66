// Test probes on a running server: count the renders that reach the page pool, count the
// generations a UsageRecorder is told about, and fail renders on purpose.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { RenderError, type PagePool } from '../../src/render/pool.js';
import type { AuthContext } from '../../src/services/accounts.js';
import { ChartService, type UsageRecorder } from '../../src/services/charts.js';
import { ChartMetricsRecorder } from '../../src/services/chartMetrics.js';
import { ShortChartService } from '../../src/services/shortCharts.js';
import type { Running } from '../../src/main.js';

export interface RenderProbe {
  /** Renders that reached the pool since the probe was installed. */
  readonly count: number;
  restore(): void;
}

/**
 * Wraps deps.pool.render: counts every render, optionally holds it `delayMs` first (so that
 * concurrent requests surely overlap) or fails it (`fail`: a crashed page).
 */
export function probeRenders(s: Running, opts: { delayMs?: number; fail?: boolean } = {}): RenderProbe {
  const pool = s.deps.pool as PagePool & { render: PagePool['render'] };
  const original = pool.render;
  let count = 0;
  pool.render = async (req) => {
    count++;
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    if (opts.fail) throw new RenderError('crash', 'page crashed (test)');
    return original.call(pool, req);
  };
  return {
    get count() {
      return count;
    },
    restore() {
      delete (pool as { render?: unknown }).render;
    },
  };
}

export interface CountedGeneration {
  accountId: string;
  keyId: string;
}

export interface CountingApp {
  url: string;
  /** Generations recorded (successful, counted renders), in order. */
  generations: CountedGeneration[];
  close(): Promise<void>;
}

/**
 * The server's own app and services, with a UsageRecorder that records every generation:
 * proves which requests count and against which account.
 */
export async function countingApp(s: Running): Promise<CountingApp> {
  const generations: CountedGeneration[] = [];
  const usage: UsageRecorder = {
    admit: async (auth: AuthContext) => ({
      commit: async () => {
        generations.push({ accountId: auth.account.id, keyId: auth.key.id });
      },
      commitWith: async (_outcome, write) => {
        await write(null);
        generations.push({ accountId: auth.account.id, keyId: auth.key.id });
      },
      release: async () => {},
    }),
  };
  const d = s.deps;
  const charts = new ChartService(d.renderer, usage);
  const shortCharts = new ShortChartService({
    charts,
    renderer: d.renderer,
    store: d.store,
    cache: d.imageCache,
    clock: d.clock,
    publicBaseUrl: d.config.publicBaseUrl,
    metrics: new ChartMetricsRecorder(d.store.chartMetrics),
  });
  const server = createServer(createApp({ ...d, charts, shortCharts }).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    generations,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await shortCharts.close();
    },
  };
}
