// Store.authVersion for PostgreSQL: a number that changes whenever an account, a key or a billing
// record may have changed, in this instance (its own writes) or any other (LISTEN/NOTIFY).
import pg from 'pg';
import type { PgDb } from './db.js';

/** Notified by triggers on accounts, api_keys and billing (migration 2). */
export const AUTH_CHANNEL = 'chartshot_auth';

export interface AuthChanges {
  /** Changes on every call while not listening: nothing may be cached on a stale signal. */
  version(): number;
  /** This instance committed a write to accounts, keys or billing. */
  wrote(): void;
  close(): Promise<void>;
}

export interface AuthChangesOptions {
  /** How often the listening connection is checked (a dead peer may send nothing). */
  heartbeatMs?: number;
}

const MAX_RETRY_MS = 5000;

export async function authChanges(db: PgDb, opts: AuthChangesOptions = {}): Promise<AuthChanges> {
  const heartbeatMs = opts.heartbeatMs ?? 5000;
  let n = 0;
  let listening = false;
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let retryMs = 100;

  const drop = (c: pg.Client) => {
    c.end().catch(() => {});
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    listening = false;
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
    const c = new pg.Client({ ...db.pool.options, keepAlive: true });
    client = c;
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    c.on('notification', () => {
      n++;
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
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('heartbeat timed out')), heartbeatMs);
    });
    Promise.race([c.query('SELECT 1'), late])
      .catch(() => lost(c))
      .finally(() => clearTimeout(timer));
  }, heartbeatMs);
  heartbeat.unref();

  await connect();

  return {
    version: () => (listening ? n : ++n),
    wrote: () => {
      n++;
    },
    async close() {
      closed = true;
      listening = false;
      clearInterval(heartbeat);
      if (retry) clearTimeout(retry);
      retry = null;
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
