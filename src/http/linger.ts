// Lingering close: a request answered before its body was read whole (no route, no key, too
// large, over the bytes-in-flight budget, a stalled body) is answered with Connection: close,
// and what the client still sends is read and thrown away for a bounded time and number of
// bytes before the socket is destroyed. Closing a socket with unread bytes in its receive
// buffer sends a TCP reset, which makes the client's kernel discard the answer it had not read
// yet: a client that writes the whole body before reading (Python's urllib, curl -H 'Expect:',
// nginx's proxy_request_buffering off) would get a broken pipe or a reset instead of its 400.
import type { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/** Longest a closing connection is drained after its answer. */
export const LINGER_MS = 5_000;
/** Most bytes a closing connection may still send (an 8 MB body sent whole fits); past them it is cut. */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;

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
 * buffer is then empty: a clean close), after LINGER_MS, or past LINGER_MAX_BYTES.
 */
export function lingerClose(ctx: Context): void {
  ctx.set('Connection', 'close');
  const req = ctx.req;
  const socket = req.socket as Socket & { [ARMED]?: true; destroySoon?: () => void };
  if (socket[ARMED]) return;
  socket[ARMED] = true;
  let drained = 0;
  let ended = req.complete;
  let answered = false;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // a listener of our own: Node then leaves the request to us instead of dumping it unbounded
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_MAX_BYTES) cut();
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
 * After the answer is made, errors mapped included (envelope.ts): any answer to a request whose
 * body was not read whole lingers, whatever refused it (no route, no key, a limit) or did not read it.
 */
export function lingerIfUnread(ctx: Context): void {
  if (hasUnreadBody(ctx.req)) lingerClose(ctx);
}
