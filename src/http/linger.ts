// A request answered before its body was read whole (no route, no key, too large, over the
// bytes-in-flight budget): what the client still sends is read and thrown away for a bounded
// time and number of bytes; when it ends within them the connection goes on (discardRest),
// otherwise (a stalled body, one declared larger than the bound) the answer says Connection:
// close and the socket is destroyed after the drain (lingerClose). Closing a socket with unread bytes in its receive
// buffer sends a TCP reset, which makes the client's kernel discard the answer it had not read
// yet: a client that writes the whole body before reading (Python's urllib, curl -H 'Expect:',
// nginx's proxy_request_buffering off) would get a broken pipe or a reset instead of its 400.
import type { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/** A closing connection is drained while its body keeps arriving, and cut once nothing came for this long. */
export const LINGER_IDLE_MS = 5_000;
/** Longest a closing connection is drained after its answer, however slowly its body arrives. */
export const LINGER_MS = 30_000;
/**
 * Most bytes a closing connection may still send; past them it is cut. A proxy in front forwards
 * bodies up to its own limit before it reads the answer, and a cut while it still sends reaches it
 * as a reset, which discards the answer (a 502 instead of the 400): 64 MiB holds the limits
 * proxies are commonly given (nginx's client_max_body_size 50m among them).
 */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

const ARMED = Symbol('lingering');

/** The request carries a body that has not arrived whole. */
export function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Arms the lingering close of ctx's connection: from now on the rest of the body is read and
 * discarded (nothing is kept), the answer goes out with Connection: close, and once it is
 * written the write side is shut; the socket is destroyed when the body has ended (the receive
 * buffer is then empty: a clean close), after LINGER_IDLE_MS without a byte or LINGER_MS in all,
 * or past LINGER_MAX_BYTES.
 */
export function lingerClose(ctx: Context): void {
  ctx.set('Connection', 'close');
  lingerRequest(ctx.req);
}

/** lingerClose for a request answered outside Koa (the answer must say Connection: close). */
export function lingerRequest(req: IncomingMessage): void {
  const socket = req.socket as Socket & { [ARMED]?: true; destroySoon?: () => void };
  if (socket[ARMED]) return;
  socket[ARMED] = true;
  let drained = 0;
  let ended = req.complete;
  let answered = false;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  let idle = setTimeout(cut, LINGER_IDLE_MS);
  idle.unref();
  socket.once('close', () => {
    clearTimeout(timer);
    clearTimeout(idle);
  });
  // a listener of our own: Node then leaves the request to us instead of dumping it unbounded
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_MAX_BYTES) return cut();
    // still arriving: a slow sender is not a stalled one
    clearTimeout(idle);
    idle = setTimeout(cut, LINGER_IDLE_MS);
    idle.unref();
  });
  req.once('end', () => {
    ended = true;
    if (answered) cut();
  });
  req.on('error', () => {});
  req.resume();
  // Node calls destroySoon() once a Connection: close answer is written: end() then destroy(),
  // which would reset the connection while the body is still arriving. Shut the write side
  // (FIN after the answer) and leave the destroy to the drain above.
  socket.destroySoon = () => {
    answered = true;
    if (socket.writable) socket.end();
    if (ended) socket.once('finish', cut);
  };
}

/**
 * Reads and throws away the rest of a body answered before it arrived, keeping the connection:
 * once the body has ended the connection serves the next request (a proxy's keep-alive upstream
 * connection stays usable, and its client connection with it). Past LINGER_MAX_BYTES, or
 * LINGER_IDLE_MS without a byte, or LINGER_MS in all, the connection is cut.
 */
export function discardRest(req: IncomingMessage): void {
  const r = req as IncomingMessage & { [ARMED]?: true };
  if (r[ARMED] || (req.socket as Socket & { [ARMED]?: true })[ARMED]) return;
  r[ARMED] = true;
  const socket = req.socket;
  let drained = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  let idle = setTimeout(cut, LINGER_IDLE_MS);
  idle.unref();
  const stop = () => {
    clearTimeout(timer);
    clearTimeout(idle);
  };
  socket.once('close', stop);
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_MAX_BYTES) return cut();
    clearTimeout(idle);
    idle = setTimeout(cut, LINGER_IDLE_MS);
    idle.unref();
  });
  let ended = false;
  let answered = false;
  req.once('end', () => {
    ended = true;
    stop();
    socket.off('close', stop);
    if (answered) cut();
  });
  req.on('error', () => {});
  req.resume();
  // An answer that closes the connection (the request asked for it: HTTP/1.0, Connection: close,
  // as nginx sends upstream without proxy_http_version 1.1) makes Node end and destroy the socket
  // at once, a reset while the body still arrives: shut the write side and destroy once the body
  // has ended (or a bound is hit) instead.
  const s = socket as Socket & { destroySoon?: () => void };
  s.destroySoon = () => {
    answered = true;
    if (s.writable) s.end();
    if (ended) s.once('finish', cut);
  };
}

/**
 * The rest of an unread body, whatever answered it: a body declared within LINGER_MAX_BYTES (or
 * chunked) is read and thrown away while the connection stays open (discardRest), so a proxy
 * that forwards the whole body before it reads the answer gets the answer and keeps both its
 * connections; a larger declared body is answered with Connection: close (lingerClose).
 */
export function settleUnreadBody(ctx: Context): void {
  const req = ctx.req;
  if (!hasUnreadBody(req)) return;
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > LINGER_MAX_BYTES) lingerClose(ctx);
  else discardRest(req);
}

/**
 * After the answer is made, errors mapped included (envelope.ts): any answer to a request whose
 * body was not read whole settles it, whatever refused it (no route, no key, a limit) or did not read it.
 */
export function lingerIfUnread(ctx: Context): void {
  settleUnreadBody(ctx);
}
