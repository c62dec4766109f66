// What every request passes through outside its route, in one frame instead of nine nested
// middlewares (each an async function, a promise and a closure per request): its id, its
// duration, the access log line and the request metrics with its final status, the lingering
// close of an unread body, the one error mapper, "no route", request analytics, the query
// parse, and (tracing on) the route on the request's span. Each step is its own file's
// function; here is only their order, which is the order they always had, outermost first:
// id -> log -> metrics -> timing -> linger -> error mapper -> no route -> analytics -> query -> (route on span) -> router.
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import type { UsageService } from '../services/usage.js';
import { assignRequestId } from './requestId.js';
import { logAnswer } from './accessLog.js';
import { reportRequest, type RequestObserver } from './requestMetrics.js';
import { noteDuration } from './timing.js';
import { lingerIfUnread } from './linger.js';
import type { ErrorAnswer } from './errors.js';
import { throwIfUnrouted } from './noRoute.js';
import { recordAnalytics } from './requestAnalytics.js';
import { parseRequestQuery } from './query.js';
import { traceRouteOf } from './tracing.js';

export interface EnvelopeDeps {
  log: Logger;
  observer: RequestObserver | undefined;
  usage: Pick<UsageService, 'recordRequest'>;
  /** The one error mapper (errors.ts), with the routes' formats. */
  answerError: ErrorAnswer;
  /** Put the matched route on the request's span (tracing on). */
  traceRoute: boolean;
}

export function envelope(d: EnvelopeDeps): Middleware {
  const { log, observer, usage, answerError, traceRoute } = d;
  return async (ctx, next) => {
    assignRequestId(ctx);
    const started = performance.now();
    try {
      try {
        let ok = false;
        try {
          // before auth and routing: every reader of ctx.query gets one bounded, linear parse
          parseRequestQuery(ctx);
          try {
            await next();
          } finally {
            if (traceRoute) traceRouteOf(ctx);
          }
          ok = ctx.status < 400;
        } finally {
          await recordAnalytics(usage, log, ctx, ok);
        }
        throwIfUnrouted(ctx);
      } catch (err) {
        // one error path: each route's errors in the format it declares (QuickChart's: an image)
        await answerError(ctx, err);
      } finally {
        // an answer to a request whose body was not read whole closes the connection after a
        // bounded drain, so the client still reads it
        lingerIfUnread(ctx);
      }
    } finally {
      // the log line and metrics see the final status of every answer, errors mapped included
      noteDuration(ctx, started);
      reportRequest(observer, ctx);
      logAnswer(log, ctx);
    }
  };
}
