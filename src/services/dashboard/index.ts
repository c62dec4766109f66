// The dashboard's use cases: what each page shows and what its forms do, through the same
// account, key, usage, billing and outbox code as the CLI and the JSON endpoints.
import { PLANS, parsePlanName, type Plan, type PlanName } from '../../rules/plans.js';
import { checkDimensions, checkFormat, parseChartConfig } from '../../chart/request.js';
import { emailProblem } from '../../rules/email.js';
import { forbidden, invalidInput, notFound, rateLimitExceeded } from '../../errors.js';
import type { Clock } from '../../clock.js';
import type { BillingRecord } from '../../store/metering.js';
import type { TopChartRow } from '../../store/dashboard.js';
import type { Account, ApiKey, Store } from '../../store/types.js';
import type { AccountService } from '../accounts.js';
import type { BillingInfo, BillingService, InvoiceSummary } from '../billing/index.js';
import { DUNNING } from '../billing/dunning.js';
import { CANCELLED_READ_ONLY_DAYS } from '../billing/periods.js';
import type { BillingCycle } from '../../rules/pricing.js';
import { signingSecretFor } from '../credentials.js';
import { MAX_SIGNED_LIFETIME_S, signQuery } from '../signing.js';
import type { UsageAnalytics, UsageService } from '../usage.js';
import { TEST_EVENT_SUBJECT } from '../outbox.js';
import type { RateLimits } from '../../rules/rateLimit.js';
import { UsageChart, type UsageChartImage } from './usageChart.js';

export type AccountState =
  | { kind: 'active'; cancelAt: number | null }
  | { kind: 'past_due'; since: number; step: number; suspendsAt: number }
  | { kind: 'suspended'; since: number | null; terminatesAt: number | null }
  | { kind: 'cancelled'; readOnlyUntil: number | null }
  | { kind: 'trial'; endsAt: number };

export interface KeysView {
  keys: ApiKey[];
  /** When each key was last used (about to the minute), by key id. */
  lastUsed: Map<string, number>;
  plan: Plan;
  /** Keys that count against the plan's limit (live/trial, not revoked). */
  active: number;
  /** Why no key can be created now, or null. */
  blocked: string | null;
}

export interface UsageView {
  analytics: UsageAnalytics;
  windowDays: number;
  chart: UsageChartImage;
  top: TopChartRow[];
}

export interface BillingView {
  info: BillingInfo;
  invoices: InvoiceSummary[];
  record: BillingRecord | null;
  state: AccountState;
}

export interface SignUrlInput {
  keyId: string;
  config: string;
  width: string;
  height: string;
  format: string;
  expiresInDays: string;
}

const DAY_MS = 86_400_000;
/** Test events per account: five at once, then one each 12 minutes, at most five an hour. */
export const TEST_EVENTS: RateLimits = { burst: 5, perMinute: 5 / 60, perHour: 5 };
/** The window of a plan that keeps analytics without a set limit (enterprise). */
const DEFAULT_WINDOW_DAYS = 365;
const TOP_CHARTS = 10;

export class DashboardService {
  private readonly chart: UsageChart;

  constructor(
    private readonly d: {
      store: Pick<Store, 'dashboard' | 'accounts' | 'outbox' | 'rateLimits'>;
      accounts: Pick<AccountService, 'listKeys' | 'createKey' | 'revokeKey'>;
      usage: Pick<UsageService, 'analytics'>;
      billing: Pick<BillingService, 'info' | 'invoiceList' | 'record' | 'changePlan' | 'cancel' | 'restore' | 'setWebhook'>;
      renderer: ConstructorParameters<typeof UsageChart>[0];
      clock: Clock;
      masterKey: Buffer;
      publicBaseUrl: string;
      webhookAllowPrivate: boolean;
    },
  ) {
    this.chart = new UsageChart(d.renderer, d.clock);
  }

  // ---- keys -----------------------------------------------------------------------------

  async keys(account: Account): Promise<KeysView> {
    const keys = await this.d.accounts.listKeys(account.id);
    const plan = PLANS[account.plan];
    const now = this.d.clock.now();
    const active = keys.filter((k) => k.revokedAt === null && k.kind !== 'test' && (k.expiresAt === null || k.expiresAt > now)).length;
    let blocked: string | null = null;
    if (account.status !== 'active') blocked = `The account is ${account.status}: no new keys.`;
    else if (plan.maxKeys !== null && keys.filter((k) => k.revokedAt === null && k.kind !== 'test').length >= plan.maxKeys) {
      blocked = `The ${label(plan.name)} plan allows ${plan.maxKeys} API key${plan.maxKeys === 1 ? '' : 's'}: revoke one, or change plan, to create another.`;
    }
    return { keys, lastUsed: await this.d.store.dashboard.keysLastUsed(account.id), plan, active, blocked };
  }

  createKey(account: Account): Promise<{ api_key: string; key_id: string; signing_secret: string }> {
    return this.d.accounts.createKey(account.id);
  }

  /** Revokes one of the account's own keys (another account's key id is "not found"). */
  async revokeKey(account: Account, keyId: string): Promise<ApiKey> {
    const key = (await this.d.accounts.listKeys(account.id)).find((k) => k.id === keyId);
    if (!key) throw notFound('no such key on this account');
    if (key.revokedAt === null) await this.d.accounts.revokeKey(key.id);
    return key;
  }

  /** A signed GET /v1/chart URL for one of the account's active keys, as the CLI's `sign` builds it. */
  async signUrl(account: Account, input: SignUrlInput): Promise<{ url: string; expiresAt: number }> {
    const key = (await this.d.accounts.listKeys(account.id)).find((k) => k.id === input.keyId);
    if (!key || key.revokedAt !== null) throw invalidInput('choose one of your active keys');
    const plan = PLANS[account.plan];
    if (input.config.length > 6000) throw invalidInput('the config is longer than 6,000 characters: use POST /v1/chart/create for large charts');
    const chart = JSON.stringify(parseChartConfig(input.config, 'config'));
    const { width, height } = checkDimensions(input.width || '800', input.height || '400', plan);
    const format = checkFormat(input.format || 'png', plan);
    if (format === 'pdf') throw invalidInput('signed URLs serve png or svg');
    const days = Number(input.expiresInDays || '7');
    if (!/^\d{1,3}$/.test(input.expiresInDays || '7') || days < 1 || days * 86400 > MAX_SIGNED_LIFETIME_S) throw invalidInput('expiry must be 1 to 366 days');
    const expiresAt = this.d.clock.now() + days * DAY_MS;
    const params = { chart, width: String(width), height: String(height), format };
    const secret = signingSecretFor(this.d.masterKey, key.id);
    return { url: `${this.d.publicBaseUrl}/v1/chart?${signQuery(params, key.id, secret, Math.floor(expiresAt / 1000))}`, expiresAt };
  }

  // ---- usage ----------------------------------------------------------------------------

  overview(account: Account): Promise<UsageAnalytics> {
    return this.d.usage.analytics(account, 30);
  }

  async usageView(account: Account): Promise<UsageView> {
    const windowDays = PLANS[account.plan].analyticsRetentionDays ?? DEFAULT_WINDOW_DAYS;
    const today = Math.floor(this.d.clock.now() / DAY_MS);
    const from = today - windowDays + 1;
    const [analytics, rows, top] = await Promise.all([
      this.d.usage.analytics(account, windowDays),
      this.d.store.dashboard.dailyUsage(account.id, from, today),
      this.d.store.dashboard.topCharts(account.id, TOP_CHARTS),
    ]);
    const chart = await this.chart.draw(account.id, rows, from, today);
    return { analytics, windowDays, chart, top };
  }

  // ---- billing --------------------------------------------------------------------------

  /** Where the account stands (the overview's badge), without closing periods or reading invoices. */
  async state(account: Account): Promise<AccountState> {
    return stateOf(account, account.plan === 'trial' ? null : await this.d.billing.record(account));
  }

  async billingView(account: Account): Promise<BillingView> {
    const info = await this.d.billing.info(account);
    const invoices = await this.d.billing.invoiceList(account);
    // info() may have closed periods: read the account again for its state
    const fresh = (await this.d.store.accounts.find(account.id)) ?? account;
    const record = fresh.plan === 'trial' ? null : await this.d.billing.record(fresh);
    return { info, invoices, record, state: stateOf(fresh, record) };
  }

  /** Plan changes are for an active account (past due included: it is active until suspended); a suspended or cancelled one is read-only here (the operator's CLI can still change it). */
  async changePlan(account: Account, planRaw: string, cycleRaw: string) {
    const state = await this.state(account);
    if (state.kind !== 'active' && state.kind !== 'past_due' && state.kind !== 'trial') throw forbidden(refusal(state, 'the plan cannot be changed here'));
    const plan: PlanName | null = parsePlanName(planRaw);
    if (!plan || plan === 'trial') throw invalidInput('choose starter, growth or enterprise');
    if (cycleRaw !== '' && cycleRaw !== 'monthly' && cycleRaw !== 'annual') throw invalidInput('the cycle is monthly or annual');
    return this.d.billing.changePlan(account.id, plan, (cycleRaw || undefined) as BillingCycle | undefined);
  }

  cancel(account: Account): Promise<BillingRecord> {
    return this.d.billing.cancel(account.id);
  }

  /**
   * Undoes a pending cancellation, or restores a cancelled account within its read-only window.
   * Never a way out of suspension: that takes a payment (or the operator).
   */
  async restore(account: Account): Promise<Account> {
    const record = account.plan === 'trial' ? null : await this.d.billing.record(account);
    const state = stateOf(account, record);
    const now = this.d.clock.now();
    // withdrawing a pending cancellation (past due or not) only clears it: it never touches a failed payment
    const pending = account.status === 'active' && record?.cancelAtPeriodEnd === true;
    const inWindow = state.kind === 'cancelled' && state.readOnlyUntil !== null && now < state.readOnlyUntil;
    if (!pending && !inWindow) {
      if (state.kind === 'cancelled') throw forbidden(`the ${CANCELLED_READ_ONLY_DAYS}-day restoration window has passed`);
      if (state.kind === 'active' || state.kind === 'past_due' || state.kind === 'trial') throw forbidden('there is no cancellation to withdraw');
      throw forbidden(refusal(state, 'it cannot be restored from here'));
    }
    return this.d.billing.restore(account.id);
  }

  // ---- settings -------------------------------------------------------------------------

  async settings(account: Account): Promise<{ webhookUrl: string | null; email: string | null }> {
    const record = account.plan === 'trial' ? null : await this.d.billing.record(account);
    return { webhookUrl: record?.webhookUrl ?? null, email: account.email };
  }

  async setWebhook(account: Account, url: string): Promise<void> {
    if (account.plan === 'trial') throw invalidInput('usage webhooks are for paid plans');
    const state = await this.state(account);
    if (state.kind === 'suspended' || state.kind === 'cancelled') throw forbidden(refusal(state, 'its settings are read-only'));
    return this.d.billing.setWebhook(account.id, url.trim() === '' ? null : url.trim(), { allowPrivate: this.d.webhookAllowPrivate });
  }

  /** Queues a signed sample usage_threshold event to the saved webhook URL (the outbox delivers and signs it). */
  // Test events go to a URL the account chose: one waiting at a time, a few an hour (counted in
  // the store, so across instances), and one delivery attempt each; never a way to flood a host.
  async sendTestEvent(account: Account): Promise<void> {
    const state = await this.state(account);
    if (state.kind !== 'active') throw forbidden(refusal(state, 'test events are for active accounts'));
    const { webhookUrl } = await this.settings(account);
    if (!webhookUrl) throw invalidInput('save a webhook URL first');
    if ((await this.d.store.outbox.pendingCount(account.id, TEST_EVENT_SUBJECT)) > 0) {
      throw rateLimitExceeded(60, 'a test event is already on its way; wait for it before sending another');
    }
    const now = this.d.clock.now();
    const room = await this.d.store.rateLimits.hit(`dashboard-test-event:${account.id}`, TEST_EVENTS, now);
    if (!room.allowed) throw rateLimitExceeded(room.retryAfterS, `at most ${TEST_EVENTS.perHour} test events an hour; try again in ${Math.ceil(room.retryAfterS / 60)} min`);
    const limit = (await this.d.usage.analytics(account, 1)).currentUsage.limit;
    const body = { event: 'usage_threshold', threshold: 80, current_usage: Math.ceil(limit * 0.8), limit, account_id: account.id, test: true };
    await this.d.store.outbox.enqueue({ kind: 'webhook', accountId: account.id, target: webhookUrl, subject: TEST_EVENT_SUBJECT, body: JSON.stringify(body) }, now);
  }

  async setEmail(account: Account, raw: string): Promise<void> {
    const email = raw.trim() === '' ? null : raw.trim();
    const why = email === null ? null : emailProblem(email);
    if (why) throw invalidInput(`the e-mail address ${why}`);
    await this.d.store.accounts.update(account.id, { email });
  }
}

const label = (p: PlanName) => p.charAt(0).toUpperCase() + p.slice(1);

/** Why a read-only account is refused a change, in the page's words. */
function refusal(state: AccountState, what: string): string {
  switch (state.kind) {
    case 'past_due':
      return `A payment has failed: ${what} until it is settled.`;
    case 'suspended':
      return `The account is suspended (read-only) for a failed payment: ${what}. Settle the payment to reactivate it.`;
    case 'cancelled':
      return `The account is cancelled (read-only): ${what}.`;
    default:
      return `The account is ${state.kind}: ${what}.`;
  }
}

/** Where the account stands, as the billing page explains it. */
export function stateOf(account: Account, rec: BillingRecord | null): AccountState {
  if (account.plan === 'trial') return { kind: 'trial', endsAt: account.createdAt + 30 * DAY_MS };
  if (account.status === 'suspended') {
    const since = rec?.paymentFailedAt ?? null;
    return { kind: 'suspended', since, terminatesAt: since === null ? null : since + (DUNNING.terminateDay - 1) * DAY_MS };
  }
  if (account.status === 'cancelled') return { kind: 'cancelled', readOnlyUntil: rec?.readOnlyUntil ?? null };
  if (rec?.paymentFailedAt != null) {
    return { kind: 'past_due', since: rec.paymentFailedAt, step: rec.dunningStage, suspendsAt: rec.paymentFailedAt + (DUNNING.suspendDay - 1) * DAY_MS };
  }
  return { kind: 'active', cancelAt: rec?.cancelAtPeriodEnd ? rec.periodEnd : null };
}

export { CANCELLED_READ_ONLY_DAYS };
