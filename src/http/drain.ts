// The drain at the HTTP server (in front of the fast path and Koa): every request is counted
// while it is answered, so the shutdown waits for it; while draining every answer says
// Connection: close, so keep-alive clients reconnect through the load balancer (elsewhere, once
// the endpoint is gone); once refusing, a request the process did not already hold gets 503 with
// Retry-After, after its body was read and thrown away (a proxy that is still sending it would
// otherwise see a reset instead of the answer). The probes are always answered.
// Why: docs/decisions/0035-drain.md.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Lifecycle } from '../services/lifecycle.js';
import { hasUnreadBody, lingerRequest } from './linger.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Seconds a refused client is told to wait: another instance takes the request meanwhile. */
export const DRAIN_RETRY_AFTER_S = 1;

/** What load balancers, probes and scrapers ask while the process drains: always answered. */
const PROBES = new Set(['/v1/pressure', '/v1/status', '/metrics']);

const ACCEPTED = Symbol('acceptedAt');
const SERVED = Symbol('served');
type Tracked = Socket & { [ACCEPTED]?: number; [SERVED]?: boolean };

/** Notes when each connection was accepted (a request on one accepted after the refusal began is new). */
export function trackConnections(server: Server): void {
  server.on('connection', (s: Tracked) => {
    s[ACCEPTED] = Date.now();
  });
}

/** Whether a request arriving while refusing is one the process already held: the first request
 *  of a connection accepted before the refusal (it may have been arriving for a while). A
 *  keep-alive connection's next request, or a new connection's, is new. */
function held(req: IncomingMessage, refusingSince: number): boolean {
  const s = req.socket as Tracked;
  return !s[SERVED] && (s[ACCEPTED] ?? 0) < refusingSince;
}

export function withDrain(life: Lifecycle, app: Handler): Handler {
  // answers being made when the drain begins close their connection too
  const answering = new Set<ServerResponse>();
  life.onDraining(() => {
    for (const res of answering) if (!res.headersSent) res.shouldKeepAlive = false;
  });
  return (req, res) => {
    const ended = life.begin();
    const socket = req.socket as Tracked;
    answering.add(res);
    res.once('close', () => {
      answering.delete(res);
      socket[SERVED] = true;
      ended();
    });
    if (life.phase !== 'serving') res.setHeader('Connection', 'close');
    if (life.phase === 'refusing' && !held(req, life.refusingSince) && !PROBES.has((req.url ?? '').split('?')[0]!)) {
      refuse(req, res);
      return;
    }
    app(req, res);
  };
}

function refuse(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({ error: 'service_unavailable', detail: 'this instance is shutting down; retry' });
  if (hasUnreadBody(req)) lingerRequest(req);
  res.writeHead(503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': String(DRAIN_RETRY_AFTER_S),
    'Cache-Control': 'no-store',
    Connection: 'close',
  });
  res.end(body);
}
