// One "request" log line per answered request, with its final status (errors already mapped).
import type { Context } from 'koa';
import { redactUrl, type Logger } from '../log.js';
import { durationOf } from './timing.js';

export interface RequestLine {
  requestId: string;
  method: string;
  /** As received: credentials in it are redacted here. */
  url: string;
  status: number;
  ms: number;
  ip: string;
}

/** Writes the line; shared with the cache-hit short path in front of Koa, so both log the same fields. */
export function logRequest(log: Logger, line: RequestLine): void {
  log.info({ ...line, url: redactUrl(line.url), ms: Math.round(line.ms * 10) / 10 }, 'request');
}

/** The answered request's line, last thing in the envelope (envelope.ts): its final status, errors already mapped. */
export function logAnswer(log: Logger, ctx: Context): void {
  if (log.isLevelEnabled('info')) logRequest(log, { requestId: String(ctx.state.requestId), method: ctx.method, url: ctx.url, status: ctx.status, ms: durationOf(ctx), ip: ctx.ip });
}
