// Test scaffolding: a config builder and real servers (real Chromium, real SQLite file).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startServer, type Running, type StartOptions } from '../../src/main.js';
import type { Clock } from '../../src/clock.js';
import type { PlanName } from '../../src/chart/plans.js';

export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', POOL_SIZE: '1' });
  return Object.freeze({ ...base, dataDir: overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'chartshot-test-')), ...overrides });
}

export interface TestServer extends Running {
  config: Config;
  /** Creates an account and returns its credentials (as the CLI prints them). */
  account(plan?: PlanName): Promise<{ account_id: string; api_key: string; key_id: string; signing_secret: string; session_token: string }>;
  /** Closes the server and removes its data directory (unless keepData). */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export async function startTestServer(overrides: Partial<Config> = {}, opts: { clock?: Clock } & Omit<StartOptions, 'log' | 'clock'> = {}): Promise<TestServer> {
  const config = testConfig(overrides);
  const log = createLogger(process.env.TEST_LOG_LEVEL ? (process.env.TEST_LOG_LEVEL as Config['logLevel']) : 'silent', process.stderr);
  const running = await startServer(config, { ...opts, log, clock: opts.clock });
  return Object.assign(running, {
    config,
    account: (plan: PlanName = 'starter') => running.deps.accounts.createAccount(plan, null),
    async stop(o: { keepData?: boolean } = {}) {
      await running.close();
      if (!o.keepData) rmSync(config.dataDir, { recursive: true, force: true });
    },
  });
}

let shared: Promise<TestServer> | null = null;

/** One server shared by the test files that need nothing special (closed by the root hook). */
export function sharedServer(): Promise<TestServer> {
  shared ??= startTestServer({ poolSize: 2 });
  return shared;
}

export async function closeSharedServer(): Promise<void> {
  if (shared) await (await shared).stop();
  shared = null;
}

export async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const BAR = {
  type: 'bar',
  data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], datasets: [{ label: 'Revenue', data: [12, 19, 3, 5] }] },
};
