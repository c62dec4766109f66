// GET /metrics's guard: METRICS_TOKEN as a bearer token, or loopback clients only when unset.
import type { Middleware } from 'koa';
import { forbidden, unauthorized } from '../errors.js';
import { metricsAccess } from './metricsAccess.js';

export function metricsTokenAuth(token: string | null): Middleware {
  return async (ctx, next) => {
    const access = metricsAccess({
      token,
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
    await next();
  };
}
