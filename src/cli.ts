#!/usr/bin/env node
// The `chartshot` command: serve, accounts, keys, sessions, render, sign (and billing, migrate-to-postgres).
import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
// Only what every command needs is imported here; the server, the renderer, PostgreSQL, the
// billing engine and the golden-image runner are imported by the commands that use them, so a
// command that only touches the store (accounts, keys, sign, bad usage) starts in a fraction of
// the time (loading all of them costs more CPU than most commands do).
import { ConfigError, loadCiEnv, loadConfig, type Config } from './config.js';
import { masterKeyOf, newStoreNotice, openStoreNoting } from './store/open.js';
import { AccountService } from './services/accounts.js';
import { parsePlanName, PLANS } from './rules/plans.js';
import { checkColor, checkDimensions, checkFormat, parseChartConfig } from './chart/request.js';
import { MAX_SIGNED_LIFETIME_S, signQuery } from './services/signing.js';
import { AppError } from './errors.js';
import { checkLocale, checkTimezone } from './chart/zoneLocale.js';
import { BILLING_USAGE, BillingUsageError } from './cli-billing-usage.js';
import { MIGRATE_USAGE, MigrateUsageError } from './cli-migrate-usage.js';
import { emailProblem } from './rules/email.js';
import { systemClock } from './clock.js';
import { TEST_USAGE, TestUsageError } from './cli-test-usage.js';
import { heapStatus, runWithHeapLimit, stopOnParentExit } from './heapLimit.js';

class UsageError extends Error {}

const USAGE = `usage: chartshot <command>
  serve                                            start the HTTP server
  accounts create --plan <trial|starter|growth|enterprise> [--email E] [--json]
  keys create --account <id> [--test] [--json] | keys revoke <key_id> | keys list --account <id> [--json]
  sessions create --account <id> [--json]
  render <config.json> -o <out> [--format png|svg|pdf] [--width W] [--height H] [--background CSS] [--timezone IANA] [--locale BCP47]
  mcp                                              an MCP server on stdio (tools render_chart, validate_config, list_chart_types)
  sign --key-id <id> --secret <secret> --expires-in <seconds> <config.json> [--width W] [--height H] [--format F] [--timezone IANA] [--locale BCP47] [--base-url URL]
${TEST_USAGE}
  --version                                        the version and what renders (Chart.js, Chromium, fonts, TIMEZONE, LOCALE)
${BILLING_USAGE}
${MIGRATE_USAGE}`;

function out(json: boolean, value: unknown, text: string): void {
  process.stdout.write((json ? JSON.stringify(value) : text) + '\n');
}

function need(v: string | undefined, flag: string): string {
  if (!v) throw new UsageError(`${flag} is required`);
  return v;
}

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
}

async function withAccounts<T>(config: Config, fn: (svc: AccountService) => Promise<T>, keyWarning = false): Promise<T> {
  const { store, created } = await openStoreNoting(config);
  if (created) process.stderr.write(newStoreNotice(config, keyWarning));
  try {
    return await fn(new AccountService(store, masterKeyOf(config)));
  } finally {
    await store.close();
  }
}

async function serve(config: Config): Promise<void> {
  const { startServer, drainBoundMs } = await import('./main.js');
  const running = await startServer(config);
  const log = running.deps.log;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // SIGTERM (a service manager, Kubernetes): drain with the grace; SIGINT (a terminal): no grace
    const graceMs = signal === 'SIGTERM' ? config.drainGraceMs : 0;
    log.info({ signal, graceMs }, 'shutting down');
    // the exit is bounded whatever hangs
    setTimeout(() => {
      log.error('shutdown took longer than its bound; exiting');
      process.exit(1);
    }, drainBoundMs(config, graceMs) + 15_000).unref();
    running.close({ graceMs }).then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // started by runWithHeapLimit: that process was killed outright, so no signal will come
  stopOnParentExit(() => stop('parent process gone'));
  log.info({ heap: heapStatus(config.heapLimit) }, 'node heap limit');
  // Last resort: every background task catches its own errors; one that slips through is a bug
  // to log, not a reason to stop serving (and to crash again on every restart).
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled promise rejection (logged, still serving)'));
}

/** `chartshot --version`: this build and the renderer fingerprint image responses carry. */
async function printVersion(config: Config): Promise<void> {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const { RendererFingerprint, chromiumVersionOf } = await import('./render/fingerprint.js');
  const fp = await RendererFingerprint.detect(await chromiumVersionOf(config.chromiumPath), config.fontsDir, { timezone: config.timezone, locale: config.locale });
  process.stdout.write(`chartshot ${pkg.version} (build ${config.buildHash})\n${fp.header()}\n`);
}

async function main(argv: string[]): Promise<void> {
  // `test` parses its own flags (--update takes an optional value, which parseArgs cannot say)
  if (argv[0] === 'test' && !argv.includes('--help') && !argv.includes('-h')) {
    process.exitCode = await (await import('./cli-test.js')).runTestCommand(loadConfig(), loadCiEnv(), argv.slice(1));
    return;
  }
  const { values: o, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      plan: { type: 'string' },
      email: { type: 'string' },
      json: { type: 'boolean', default: false },
      account: { type: 'string' },
      test: { type: 'boolean', default: false },
      output: { type: 'string', short: 'o' },
      format: { type: 'string' },
      width: { type: 'string' },
      height: { type: 'string' },
      background: { type: 'string' },
      timezone: { type: 'string' },
      locale: { type: 'string' },
      'key-id': { type: 'string' },
      secret: { type: 'string' },
      'expires-in': { type: 'string' },
      'base-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      cycle: { type: 'string' },
      url: { type: 'string' },
      now: { type: 'string' },
      charts: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-hour': { type: 'string' },
      burst: { type: 'string' },
      'price-pence': { type: 'string' },
      'retention-days': { type: 'string' },
      'discount-percent': { type: 'string' },
      force: { type: 'boolean', default: false },
      version: { type: 'boolean', default: false },
    },
  });
  const [cmd, sub, ...rest] = positionals;
  if (o.version && !cmd) return printVersion(loadConfig());
  if (o.help || !cmd) {
    process.stdout.write(USAGE + '\n');
    if (!cmd && !o.help) process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  const json = o.json ?? false;
  switch (`${cmd} ${sub ?? ''}`.trim()) {
    case 'serve':
      // V8's heap limit is fixed at start: without the flag, start again once with it
      if (!config.heapLimit.applied) return runWithHeapLimit(config.heapLimit.mb);
      return serve(config);
    case 'accounts create': {
      const plan = parsePlanName(need(o.plan, '--plan'));
      if (!plan) throw new UsageError(`--plan must be one of ${Object.keys(PLANS).join(', ')}`);
      const emailWhy = o.email !== undefined ? emailProblem(o.email) : null;
      if (emailWhy) throw new UsageError(`--email ${emailWhy}`);
      const r = await withAccounts(config, (s) => s.createAccount(plan, o.email ?? null), true);
      return out(json, r, `account ${r.account_id}\napi_key ${r.api_key}\nkey_id ${r.key_id}\nsigning_secret ${r.signing_secret}\nsession_token ${r.session_token}`);
    }
    case 'keys create': {
      const account = need(o.account, '--account');
      const r = await withAccounts(config, (s) => s.createKey(account, o.test ? 'test' : undefined));
      return out(json, r, `api_key ${r.api_key}\nkey_id ${r.key_id}\nsigning_secret ${r.signing_secret}`);
    }
    case 'keys revoke': {
      const keyId = rest[0] ?? positionals[2];
      if (!keyId) throw new UsageError('keys revoke <key_id>');
      const ok = await withAccounts(config, (s) => s.revokeKey(keyId));
      if (!ok) throw new UsageError(`no active key ${keyId}`);
      return out(json, { key_id: keyId, revoked: true }, `revoked ${keyId}`);
    }
    case 'keys list': {
      const account = need(o.account, '--account');
      const keys = await withAccounts(config, (s) => s.listKeys(account));
      const rows = keys.map((k) => ({
        key_id: k.id, kind: k.kind, prefix: k.prefix,
        created_at: new Date(k.createdAt).toISOString(),
        expires_at: k.expiresAt ? new Date(k.expiresAt).toISOString() : null,
        revoked_at: k.revokedAt ? new Date(k.revokedAt).toISOString() : null,
      }));
      return out(json, rows, rows.map((r) => `${r.key_id}\t${r.kind}\t${r.prefix}…\t${r.revoked_at ? 'revoked' : 'active'}`).join('\n') || '(no keys)');
    }
    case 'sessions create': {
      const account = need(o.account, '--account');
      const r = await withAccounts(config, (s) => s.createSession(account));
      return out(json, r, `session_token ${r.session_token}\nexpires_at ${r.expires_at}`);
    }
    default:
      break;
  }
  if (cmd === 'billing') return (await import('./cli-billing.js')).runBilling(config, sub, { ...o, json });
  if (cmd === 'migrate-to-postgres' && !sub) return (await import('./cli-migrate.js')).runMigrate(config, { force: o.force, json });
  if (cmd === 'mcp' && !sub) return (await import('./mcp/stdio.js')).runMcpStdio(config);
  if (cmd === 'render') {
    const file = need(sub, 'render <config.json>');
    const output = need(o.output, '-o');
    const config0 = parseChartConfig(readJsonFile(file) as unknown, file);
    const plan = PLANS.enterprise;
    const { width, height } = checkDimensions(o.width ?? '800', o.height ?? '400', plan);
    const format = checkFormat(o.format ?? (output.endsWith('.svg') ? 'svg' : output.endsWith('.pdf') ? 'pdf' : 'png'), plan);
    // absent: TIMEZONE and LOCALE (UTC and en-US), never the shell's TZ or LANG
    const timezone = checkTimezone(o.timezone, '--timezone');
    const locale = checkLocale(o.locale, '--locale');
    const [{ createLogger }, { startPool }, { RenderService }] = await Promise.all([import('./log.js'), import('./render/renderer.js'), import('./services/render.js')]);
    const log = createLogger(process.env.LOG_LEVEL ? config.logLevel : 'warn', process.stderr);
    const pool = await startPool({ ...config, poolSize: 1 }, log);
    try {
      const img = await new RenderService(pool).render({
        config: config0, width, height, format, backgroundColor: checkColor(o.background), allowFunctions: true, watermark: null,
        ...(timezone !== undefined ? { timezone } : {}),
        ...(locale !== undefined ? { locale } : {}),
      });
      writeFileSync(output, img.body);
      process.stderr.write(`wrote ${output} (${format}, ${width}x${height}, ${img.body.length} bytes, ${img.renderMs.toFixed(1)} ms)\n`);
    } finally {
      await pool.close();
    }
    return;
  }
  if (cmd === 'sign') {
    const file = need(sub, 'sign <config.json>');
    const keyId = need(o['key-id'], '--key-id');
    const secret = need(o.secret, '--secret');
    const expiresIn = need(o['expires-in'], '--expires-in');
    if (!/^\d+$/.test(expiresIn) || Number(expiresIn) < 1) throw new UsageError('--expires-in must be a positive number of seconds');
    if (Number(expiresIn) > MAX_SIGNED_LIFETIME_S) throw new UsageError(`--expires-in must be at most ${MAX_SIGNED_LIFETIME_S} seconds (one year)`);
    const chart = JSON.stringify(parseChartConfig(readJsonFile(file) as unknown, file));
    // Checked here as the server would (largest plan: the key's plan is not known offline), so a
    // bad value fails now instead of printing a URL that can only answer 400.
    checkDimensions(o.width ?? '800', o.height ?? '400', PLANS.enterprise);
    if (o.format !== undefined) checkFormat(o.format, PLANS.enterprise);
    checkColor(o.background, '--background');
    const timezone = checkTimezone(o.timezone, '--timezone');
    const locale = checkLocale(o.locale, '--locale');
    const params: Record<string, string> = { chart, width: o.width ?? '800', height: o.height ?? '400' };
    if (o.format) params.format = o.format;
    if (o.background) params.backgroundColor = o.background;
    if (timezone) params.timezone = timezone;
    if (locale) params.locale = locale;
    const exp = Math.floor(systemClock.now() / 1000) + Number(expiresIn);
    const base = (o['base-url'] ?? config.publicBaseUrl).replace(/\/+$/, '');
    process.stdout.write(`${base}/v1/chart?${signQuery(params, keyId, secret, exp)}\n`);
    return;
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}\n${USAGE}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const msg =
    err instanceof ConfigError || err instanceof UsageError || err instanceof BillingUsageError || err instanceof MigrateUsageError || err instanceof TestUsageError
      ? err.message
      : err instanceof AppError
        ? `${err.code}: ${err.detail ?? ''}`
        : (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
          ? (err as Error).message
          : `error: ${(err as Error).message ?? String(err)}`;
  process.stderr.write(`chartshot: ${msg.split('\n')[0]}\n`);
  const usage = err instanceof UsageError || err instanceof BillingUsageError || err instanceof MigrateUsageError || err instanceof ConfigError || err instanceof TestUsageError;
  // an unknown flag or a flag without its value is bad usage too
  process.exit(usage || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1);
});
