// Store.authVersion for PostgreSQL: a number that changes whenever an account, a key or a billing
// record may have changed, in this instance (its own writes) or any other (LISTEN/NOTIFY).
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { PgDb } from './db.js';
import { withDeadline } from '../../settle.js';

/** Notified by triggers on accounts, api_keys and billing (migration 2). */
export const AUTH_CHANNEL = 'chartshot_auth';

export interface AuthChanges {
  /** Changes on every call while not listening: nothing may be cached on a stale signal. */
  version(): number;
  /** This instance committed a write to accounts, keys or billing. */
  wrote(): void;
  /** Resolves once every change committed before the call is counted in version(). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface AuthChangesOptions {
  /** How often the listening connection is checked (a dead peer may send nothing). */
  heartbeatMs?: number;
}

const MAX_RETRY_MS = 5000;
/** The listening connection's application_name (pg_stat_activity shows it). */
export const AUTH_LISTENER_NAME = 'chartshot-auth-listener';

export async function authChanges(db: PgDb, opts: AuthChangesOptions = {}): Promise<AuthChanges> {
  const heartbeatMs = opts.heartbeatMs ?? 5000;
  let n = 0;
  let listening = false;
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let retryMs = 100;
  // markers sent by settled(): notifications arrive in commit order, so once a marker is back
  // every change committed before it has been counted
  const waiting = new Map<string, () => void>();
  const releaseAll = () => {
    for (const done of waiting.values()) done();
    waiting.clear();
  };

  const drop = (c: pg.Client) => {
    c.end().catch(() => {});
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    listening = false;
    releaseAll(); // version() now changes on every call: nothing is left to wait for
    drop(c);
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };
  const connect = async () => {
    const c = new pg.Client({ ...db.pool.options, keepAlive: true, application_name: AUTH_LISTENER_NAME });
    client = c;
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    c.on('notification', (msg) => {
      const done = msg.payload ? waiting.get(msg.payload) : undefined;
      if (done) {
        waiting.delete(msg.payload!);
        done();
      } else {
        n++;
      }
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANNEL}`);
    } catch {
      lost(c);
      return;
    }
    if (closed || client !== c) {
      drop(c);
      return;
    }
    n++; // whatever changed while nobody listened
    listening = true;
    retryMs = 100;
  };

  const heartbeat = setInterval(() => {
    const c = client;
    if (!c || !listening) return;
    withDeadline(c.query('SELECT 1'), heartbeatMs, 'heartbeat').catch(() => lost(c));
  }, heartbeatMs);
  heartbeat.unref();

  await connect();

  return {
    version: () => (listening ? n : ++n),
    wrote: () => {
      n++;
    },
    async settled() {
      if (!listening) return;
      const marker = `settled:${randomBytes(8).toString('hex')}`;
      const back = new Promise<void>((resolve) => waiting.set(marker, resolve));
      try {
        await db.exec('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, marker]);
      } catch (err) {
        waiting.delete(marker);
        throw err;
      }
      await back;
    },
    async close() {
      closed = true;
      listening = false;
      releaseAll();
      clearInterval(heartbeat);
      if (retry) clearTimeout(retry);
      retry = null;
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
