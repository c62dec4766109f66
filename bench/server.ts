// Starting the real server for a benchmark: an account with its limits lifted, `chartshot serve`
// as a child process (dist/cli.js: run npm run build first), and stopping it.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { cpus } from 'node:os';
import { request } from './lib.js';

export function cli(dataDir: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('node', ['dist/cli.js', ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env }, encoding: 'utf8' });
}

/** 'K=v K2=v2' (AB_ENV_A / AB_ENV_B of ab.ts) as environment variables. */
export function envSpec(spec: string | undefined): Record<string, string> {
  return Object.fromEntries((spec ?? '').split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/** An enterprise key with limits lifted, so the load is measured, not throttled. */
export function benchAccount(dataDir: string, env: Record<string, string> = {}): { api_key: string; account_id: string } {
  const acct = JSON.parse(cli(dataDir, ['accounts', 'create', '--plan', 'enterprise', '--json'], env)) as { api_key: string; account_id: string };
  cli(dataDir, ['billing', 'set-limits', '--account', acct.account_id, '--per-minute', '10000000', '--per-hour', '1000000000', '--burst', '10000000'], env);
  return acct;
}

/**
 * `node --no-memory-reducer [nodeArgs] dist/cli.js serve` (as npm start runs it) on 127.0.0.1:port with POOL_SIZE = the cores, once it
 * answers. `env` adds to (and overrides) the server's environment; `entry` replaces `dist/cli.js serve`
 * (a wrapper of the real server).
 */
export async function startServer(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  entry: string[] = ['dist/cli.js', 'serve'],
  /** an IPC channel to the server (bench/soak-serve.mjs answers on it) */
  ipc = false,
): Promise<ChildProcess> {
  const BASE = `http://127.0.0.1:${port}`;
  // A server left over from an aborted run would answer in place of this one (with other keys).
  const probe = new http.Agent();
  const taken = await request(probe, BASE, 'GET', '/v1/status').then(() => true, () => false);
  probe.destroy();
  if (taken) throw new Error(`something already listens on ${BASE}: stop it or set BENCH_PORT`);
  // BENCH_NODE_MEMORY_REDUCER=1: without the flag npm start adds (to measure what the flag saves)
  const flags = process.env.BENCH_NODE_MEMORY_REDUCER === '1' ? [] : ['--no-memory-reducer'];
  const child = spawn('node', [...flags, ...nodeArgs, ...entry], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', POOL_SIZE: String(cpus().length), PUBLIC_BASE_URL: BASE, ...env },
    stdio: ipc ? ['ignore', 'ignore', 'inherit', 'ipc'] : ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 120000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited during start');
    try {
      const agent = new http.Agent();
      const r = await request(agent, BASE, 'GET', '/v1/status');
      agent.destroy();
      if (r.status > 0) return child;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('server did not start in 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/**
 * A fresh server of the checkout in `dir` (its own dist/cli.js, run from there) on its own data
 * folder with a bench key, for `use`; stopped and its folder removed afterwards, whatever `use`
 * did. For comparing two checkouts (ab.ts).
 */
export async function withCheckoutServer<T>(
  dir: string,
  port: number,
  env: Record<string, string>,
  nodeArgs: string[],
  use: (server: ChildProcess, apiKey: string) => Promise<T>,
): Promise<T> {
  const cwd = process.cwd();
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-checkout-'));
  process.chdir(dir); // cli() and startServer() run dist/cli.js of the current directory
  try {
    const acct = benchAccount(dataDir);
    const server = await startServer(dataDir, port, env, nodeArgs);
    try {
      return await use(server, acct.api_key);
    } finally {
      await stopServer(server);
    }
  } finally {
    process.chdir(cwd);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
