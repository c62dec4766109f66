// Test scaffolding: a config builder and real servers (real Chromium, real SQLite file).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startServer, type Running, type StartOptions } from '../../src/main.js';
import type { Clock } from '../../src/clock.js';
import type { PlanName } from '../../src/rules/plans.js';
import { Client } from './client.js';

export type Credentials = { account_id: string; api_key: string; key_id: string; signing_secret: string; session_token: string };

export function testConfig(overrides: Partial<Config> = {}): Config {
  // anonymous and trial renders get RENDER_TIMEOUT_MS here: a test about something else must not
  // depend on how fast this machine draws (tests of the deadlines set them)
  const base = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', POOL_SIZE: '1', ANONYMOUS_RENDER_TIMEOUT_MS: '10000', TRIAL_RENDER_TIMEOUT_MS: '10000' });
  return Object.freeze({ ...base, dataDir: overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'chartshot-test-')), ...overrides });
}

/** A client bound to a new account's key, with the account's credentials. */
export interface AccountClient {
  api: Client;
  account: Credentials;
  key: string;
}

export interface TestServer extends Running {
  config: Config;
  /** Creates an account and returns its credentials (as the CLI prints them). */
  account(plan?: PlanName): Promise<Credentials>;
  /** A new account and a client holding its API key. */
  client(plan?: PlanName): Promise<AccountClient>;
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
    async client(plan: PlanName = 'starter'): Promise<AccountClient> {
      const account = await running.deps.accounts.createAccount(plan, null);
      return { api: new Client(running.url, account.api_key), account, key: account.api_key };
    },
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

/** The shared server and a new account on it (for a `before` hook). */
export async function sharedAccount(plan: PlanName = 'starter'): Promise<AccountClient & { s: TestServer }> {
  const s = await sharedServer();
  return { s, ...(await s.client(plan)) };
}

export async function closeSharedServer(): Promise<void> {
  if (shared) await (await shared).stop();
  shared = null;
}

export { post } from './client.js';

export const BAR = {
  type: 'bar',
  data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], datasets: [{ label: 'Revenue', data: [12, 19, 3, 5] }] },
};
