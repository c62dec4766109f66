// GET /v1/status (health, no auth) and GET /metrics (Prometheus text format).
import type Router from '@koa/router';
import type { AppDeps } from '../../app.js';

export function statusRoutes(router: Router, deps: Pick<AppDeps, 'status' | 'metrics'>): void {
  router.get('/v1/status', async (ctx) => {
    // Always 200: a degraded service still answers, and says why in `reason`.
    ctx.body = await deps.status.report();
    ctx.set('Cache-Control', 'no-store');
  });
  router.get('/metrics', async (ctx) => {
    ctx.body = await deps.metrics.text();
    ctx.type = deps.metrics.contentType;
    ctx.set('Cache-Control', 'no-store');
  });
}
