// GET /v1/status (health, no auth), GET /v1/pressure (load and readiness, no auth) and GET /metrics (Prometheus text format; METRICS_TOKEN
// bearer, or loopback clients only when no token is set).
import type { Metrics } from '../../services/metrics.js';
import type { StatusService } from '../../services/status.js';
import type { PressureService } from '../../services/pressure.js';
import { route, type RouteDescriptor } from '../route.js';
import { headerRef, json, schemaRef } from '../routeDocs.js';

export interface StatusRouteDeps {
  status: Pick<StatusService, 'report'>;
  metrics: Pick<Metrics, 'text' | 'contentType'>;
  pressure: Pick<PressureService, 'report'>;
}

export function statusRoutes(deps: StatusRouteDeps): RouteDescriptor[] {
  return [
    route({
      method: 'GET',
      path: '/v1/status',
      auth: 'none',
      doc: {
        tags: ['Operations'],
        operationId: 'getStatus',
        summary: 'Health: healthy only when the page pool can render (degraded otherwise, still 200)',
      },
      responses: { '200': json(schemaRef('Status'), 'Health status.', { 'Cache-Control': headerRef('Cache-Control') }) },
      errors: {},
      handler: async (ctx) => {
        // Always 200: a degraded service still answers, and says why in `reason`.
        ctx.body = await deps.status.report();
        ctx.set('Cache-Control', 'no-store');
      },
    }),
    route({
      method: 'GET',
      path: '/v1/pressure',
      auth: 'none',
      doc: {
        tags: ['Operations'],
        operationId: 'getPressure',
        summary: 'Load and readiness: 200 while this instance takes work, 503 while it does not (draining, no usable page, heap nearly full)',
        description:
          'For load balancers, readiness probes and autoscalers: pages, busy pages, queued requests, the queue limit, `load` ((busy + queued) / pages) and heap headroom. The same figures are Prometheus gauges on /metrics. No credentials, no account data; answered while the instance drains.',
      },
      responses: {
        '200': json(schemaRef('Pressure'), 'This instance takes work.', { 'Cache-Control': headerRef('Cache-Control') }),
        '503': json(schemaRef('Pressure'), 'This instance takes no new work now; `reason` says why.', { 'Cache-Control': headerRef('Cache-Control') }),
      },
      errors: {},
      handler: (ctx) => {
        const report = deps.pressure.report();
        ctx.status = report.accepting ? 200 : 503;
        ctx.body = report;
        ctx.set('Cache-Control', 'no-store');
      },
    }),
    route({
      method: 'GET',
      path: '/metrics',
      auth: 'metricsToken',
      doc: {
        tags: ['Operations'],
        operationId: 'getPrometheusMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        description: 'With METRICS_TOKEN set: Authorization: Bearer <METRICS_TOKEN>. Without it: loopback clients only.',
      },
      responses: { '200': { description: 'Metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
      errors: {
        '401': { description: 'METRICS_TOKEN is set and the bearer token is missing or wrong.', codes: ['unauthorized'] },
        '403': { description: 'METRICS_TOKEN is unset and the client is not on loopback.', codes: ['forbidden'] },
      },
      handler: async (ctx) => {
        ctx.body = await deps.metrics.text();
        ctx.type = deps.metrics.contentType;
        ctx.set('Cache-Control', 'no-store');
      },
    }),
  ];
}
