// GET /v1/status (health, no auth) and GET /metrics (Prometheus text format; METRICS_TOKEN
// bearer, or loopback clients only when no token is set).
import type Router from '@koa/router';
import type { AppDeps } from '../../app.js';
import { forbidden, unauthorized } from '../../errors.js';
import { metricsAccess } from '../metricsAccess.js';

export function statusRoutes(router: Router, deps: Pick<AppDeps, 'status' | 'metrics' | 'config'>): void {
  router.get('/v1/status', async (ctx) => {
    // Always 200: a degraded service still answers, and says why in `reason`.
    ctx.body = await deps.status.report();
    ctx.set('Cache-Control', 'no-store');
  });
  router.get('/metrics', async (ctx) => {
    const access = metricsAccess({
      token: deps.config.metricsToken,
      authorization: ctx.get('authorization'),
      remoteAddress: ctx.req.socket.remoteAddress,
      forwarded: Boolean(ctx.get('x-forwarded-for') || ctx.get('forwarded') || ctx.get('x-real-ip')),
    });
    if (access === 'unauthorized') {
      const e = unauthorized('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
      (e.headers as Record<string, string>)['WWW-Authenticate'] = 'Bearer realm="metrics"';
      throw e;
    }
    if (access === 'forbidden') throw forbidden('/metrics is served to loopback clients only; set METRICS_TOKEN to read it remotely with a bearer token');
    ctx.body = await deps.metrics.text();
    ctx.type = deps.metrics.contentType;
    ctx.set('Cache-Control', 'no-store');
  });
}
