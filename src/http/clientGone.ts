// An AbortSignal that aborts when the client goes away before its response was sent, so a
// request still queued for a renderer leaves the queue instead of holding a place in it.
import type { Context } from 'koa';

export function clientSignal(ctx: Context): AbortSignal {
  const ac = new AbortController();
  const gone = () => {
    if (!ctx.res.writableEnded) ac.abort();
  };
  // 'close' on the response fires when the connection closes, answered or not
  ctx.res.once('close', gone);
  ctx.req.once('aborted', gone);
  if (ctx.req.socket?.destroyed) gone();
  return ac.signal;
}
