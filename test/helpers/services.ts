// Throwaway PostgreSQL and Redis servers for the tests, from Debian's packages: a temporary
// folder, a free loopback port, stopped and removed when the test run ends. TEST_DATABASE_URL /
// TEST_REDIS_URL point the tests at servers of your own instead (each test still gets its own
// database, or its own Redis key prefix, dropped afterwards).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Debian's PostgreSQL binaries (the newest installed major), or a clear error naming the package. */
function pgBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const m of majors) {
    const p = join(root, m, 'bin', name);
    if (existsSync(p)) return p;
  }
  throw new Error(`PostgreSQL's ${name} is missing: run "npm run setup" (installs Debian's postgresql)`);
}

interface Child {
  proc: ChildProcess;
  dir: string;
  output: string[];
}

/** Runs argv as the postgres user when root (initdb and postgres refuse to run as root).
 *  setpriv execs in place: the child is postgres itself, so signals reach it. */
function asPostgres(argv: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [argv[0]!, argv.slice(1)];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', ...argv]];
}

async function waitFor(what: string, child: Child, ok: () => Promise<boolean>, ms = 30000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`${what} exited at start: ${child.output.join('').slice(-2000)}`);
    if (await ok().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${ms} ms: ${child.output.join('').slice(-2000)}`);
    await sleep(50);
  }
}

function keepOutput(proc: ChildProcess): string[] {
  const out: string[] = [];
  const keep = (d: Buffer) => {
    out.push(d.toString());
    if (out.length > 200) out.shift();
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return out;
}

async function stopChild(c: Child): Promise<void> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) {
    const exited = new Promise<void>((r) => c.proc.once('exit', () => r()));
    c.proc.kill('SIGINT'); // postgres: fast shutdown; redis: save nothing (--save '') and exit
    await Promise.race([exited, sleep(10000)]);
    if (c.proc.exitCode === null && c.proc.signalCode === null) {
      c.proc.kill('SIGKILL');
      await exited;
    }
  }
  rmSync(c.dir, { recursive: true, force: true });
}

// ---- PostgreSQL -------------------------------------------------------------------------------

let pgServer: Promise<{ adminUrl: string; child: Child | null }> | null = null;

async function startPostgresServer(): Promise<{ adminUrl: string; child: Child | null }> {
  if (process.env.TEST_DATABASE_URL) return { adminUrl: process.env.TEST_DATABASE_URL, child: null };
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-pg-'));
  initPostgres(dir);
  const port = await freePort();
  return { adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, child: await launchPostgres(dir, port) };
}

/** initdb into dir/data, owned by the postgres user when root. */
function initPostgres(dir: string): void {
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    // the postgres user must own its folder; the temporary parent must let it in
    chmodSync(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const [cmd, args] = asPostgres([pgBin('initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  execFileSync(cmd, args, { stdio: 'pipe' });
}

/** Starts postgres on dir/data and the port; resolves once it answers a query. */
async function launchPostgres(dir: string, port: number): Promise<Child> {
  // Durability off: a test server's data is thrown away anyway, and fsyncs would dominate.
  const [pcmd, pargs] = asPostgres([
    pgBin('postgres'), '-D', join(dir, 'data'), '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
  ]);
  const proc = spawn(pcmd, pargs, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  const child: Child = { proc, dir, output: keepOutput(proc) };
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitFor('postgres', child, async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return true;
    } finally {
      await c.end().catch(() => {});
    }
  });
  return child;
}

/**
 * A PostgreSQL server of one test's own (never the run's shared one, never TEST_DATABASE_URL's):
 * the test may stop it under a running chartshot and start it again on the same data and port.
 */
export class OwnPostgres {
  private constructor(
    private readonly dir: string,
    private readonly port: number,
    private child: Child | null,
  ) {}

  /** postgres://... of its default database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(): Promise<OwnPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'chartshot-ownpg-'));
    initPostgres(dir);
    const own = new OwnPostgres(dir, await freePort(), null);
    await own.start();
    return own;
  }

  /** Starts it (again) on its data folder and port; resolves once it answers queries. */
  async start(): Promise<void> {
    this.child = await launchPostgres(this.dir, this.port);
  }

  /** A fast shutdown (SIGINT: connections are cut, as when the server goes away); the data stays. */
  async stop(): Promise<void> {
    const c = this.child;
    this.child = null;
    if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.proc.once('exit', () => r()));
    c.proc.kill('SIGINT');
    await exited;
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface TestDatabase {
  /** postgres://... of a database of its own. */
  url: string;
  /** Drops the database (the server stays for the rest of the run). */
  drop(): Promise<void>;
}

/** A fresh, empty database on the run's PostgreSQL server (started on first use). */
export async function testDatabase(): Promise<TestDatabase> {
  pgServer ??= startPostgresServer();
  const { adminUrl } = await pgServer;
  const name = `chartshot_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

// ---- Redis ------------------------------------------------------------------------------------

let redisServer: Promise<{ url: string; child: Child | null }> | null = null;

async function startRedisServer(): Promise<{ url: string; child: Child | null }> {
  if (process.env.TEST_REDIS_URL) return { url: process.env.TEST_REDIS_URL, child: null };
  const bin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
  if (!bin) throw new Error('redis-server is missing: run "npm run setup" (installs Debian\'s redis-server)');
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-redis-'));
  const port = await freePort();
  const proc = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child: Child = { proc, dir, output: keepOutput(proc) };
  await waitFor('redis-server', child, async () => child.output.join('').includes('Ready to accept connections'));
  return { url: `redis://127.0.0.1:${port}`, child };
}

export interface TestRedis {
  url: string;
  /** A key prefix of its own, so tests sharing the server never see each other's keys. */
  prefix: string;
}

/** The run's Redis server (started on first use) and a fresh key prefix. */
export async function testRedis(): Promise<TestRedis> {
  redisServer ??= startRedisServer();
  const { url } = await redisServer;
  return { url, prefix: `t${randomBytes(4).toString('hex')}:` };
}

/** Stops and removes the servers this run started (root hook, after every test). */
export async function stopTestServices(): Promise<void> {
  const servers = await Promise.all([pgServer?.catch(() => null), redisServer?.catch(() => null)]);
  pgServer = null;
  redisServer = null;
  await Promise.all(servers.map((s) => (s?.child ? stopChild(s.child) : undefined)));
}
