// Accounts, API keys and session tokens: creation (CLI) and authentication (HTTP).
import { PLANS, type Plan, type PlanName } from '../rules/plans.js';
import { forbidden, invalidInput, invalidSession, unauthorized } from '../errors.js';
import type { Account, ApiKey, KeyKind, Store } from '../store/types.js';
import { KEY_PREFIX, hashSecret, keyKindOf, newApiKey, newId, newSessionToken, signingSecretFor } from './credentials.js';
import { emailProblem } from '../rules/email.js';
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from '../clock.js';

export const TRIAL_DAYS = 30;
export const SESSION_DAYS = 30;
const DAY_MS = 86_400_000;

export interface AuthContext {
  account: Account;
  key: ApiKey;
  plan: Plan;
}

/**
 * How long an authenticated key's key and account rows are reused without reading them again.
 * Any change to accounts or keys made through this process's store, or any commit by another
 * process (the CLI revoking a key), drops them at once (Store.authVersion); without that signal
 * a revocation elsewhere takes effect within this bound.
 */
export const AUTH_CACHE_MS = 5_000;
const AUTH_CACHE_ENTRIES = 10_000;

interface CachedAuth {
  key: ApiKey;
  account: Account;
  version: number | undefined;
  at: number;
}

export class AccountService {
  /** Key and account rows of recently authenticated keys, by key hash ("h:") or key id ("i:"). */
  private readonly authCache = new LRUCache<string, CachedAuth>({ max: AUTH_CACHE_ENTRIES });

  constructor(
    private readonly store: Pick<Store, 'accounts' | 'keys' | 'sessions' | 'authVersion'>,
    private readonly masterKey: Buffer,
    private readonly clock: Clock = systemClock,
  ) {}

  async createAccount(plan: PlanName, email: string | null) {
    const emailWhy = email === null ? null : emailProblem(email);
    if (emailWhy) throw invalidInput(`the e-mail address ${emailWhy}`);
    const account: Account = { id: newId('acct_'), email, plan, status: 'active', createdAt: this.clock.now() };
    await this.store.accounts.create(account);
    const key = await this.createKey(account.id, plan === 'trial' ? 'trial' : 'live');
    const session = await this.createSession(account.id);
    return { account_id: account.id, ...key, session_token: session.session_token };
  }

  async createKey(accountId: string, kind?: KeyKind) {
    const account = await this.store.accounts.find(accountId);
    if (!account) throw invalidInput(`no account ${accountId}`);
    if (account.status !== 'active') throw forbidden(`account is ${account.status}: no new keys`);
    const k = kind ?? (account.plan === 'trial' ? 'trial' : 'live');
    if (k === 'trial' && account.plan !== 'trial') throw invalidInput('trial keys belong to trial accounts');
    if (k === 'live' && account.plan === 'trial') throw invalidInput('a trial account has trial keys only');
    const plan = PLANS[account.plan];
    if (plan.maxKeys !== null) {
      const active = (await this.store.keys.listByAccount(accountId)).filter((x) => x.revokedAt === null && x.kind !== 'test');
      if (k !== 'test' && active.length >= plan.maxKeys) throw forbidden(`the ${plan.name} plan allows ${plan.maxKeys} API keys`);
    }
    const apiKey = newApiKey(k);
    const now = this.clock.now();
    const record: ApiKey = {
      id: newId('key_'),
      accountId,
      kind: k,
      prefix: apiKey.slice(0, KEY_PREFIX[k].length + 4),
      createdAt: now,
      expiresAt: k === 'trial' ? now + TRIAL_DAYS * DAY_MS : null,
      revokedAt: null,
    };
    await this.store.keys.create(record, hashSecret(apiKey));
    return { api_key: apiKey, key_id: record.id, signing_secret: signingSecretFor(this.masterKey, record.id) };
  }

  async revokeKey(keyId: string): Promise<boolean> {
    const revoked = await this.store.keys.revoke(keyId, this.clock.now());
    // a store without authVersion would otherwise keep the key working for AUTH_CACHE_MS
    this.authCache.clear();
    return revoked;
  }

  async listKeys(accountId: string): Promise<ApiKey[]> {
    if (!(await this.store.accounts.find(accountId))) throw invalidInput(`no account ${accountId}`);
    return this.store.keys.listByAccount(accountId);
  }

  async createSession(accountId: string) {
    if (!(await this.store.accounts.find(accountId))) throw invalidInput(`no account ${accountId}`);
    const token = newSessionToken();
    const now = this.clock.now();
    const expiresAt = now + SESSION_DAYS * DAY_MS;
    await this.store.sessions.create(hashSecret(token), { accountId, createdAt: now, expiresAt });
    return { session_token: token, expires_at: new Date(expiresAt).toISOString() };
  }

  /** An API key as sent by a client -> its account, or 401 unauthorized. */
  async authenticateKey(apiKey: string | undefined): Promise<AuthContext> {
    if (!apiKey || apiKey.length > 200 || !keyKindOf(apiKey)) throw unauthorized();
    const hash = hashSecret(apiKey);
    return this.cachedContext(`h:${hash}`, () => this.store.keys.findByHash(hash));
  }

  /** A key named by its public id (signed URLs). */
  async authenticateKeyId(keyId: string): Promise<AuthContext & { signingSecret: string }> {
    if (keyId.length > 100) throw unauthorized();
    const ctx = await this.cachedContext(`i:${keyId}`, () => this.store.keys.find(keyId));
    return { ...ctx, signingSecret: signingSecretFor(this.masterKey, ctx.key.id) };
  }

  /**
   * contextFor() over the rows of a recent authentication of the same key when nothing may have
   * changed since (see AUTH_CACHE_MS). The checks themselves (revoked, expired, terminated) run
   * on every request; only the two reads are saved.
   */
  private async cachedContext(cacheKey: string, load: () => Promise<ApiKey | null>): Promise<AuthContext> {
    const now = this.clock.now();
    const version = this.store.authVersion?.();
    const hit = this.authCache.get(cacheKey);
    if (hit && hit.version === version && now - hit.at < AUTH_CACHE_MS && now >= hit.at) return this.check(hit.key, hit.account);
    const key = await load();
    const account = key && key.revokedAt === null ? await this.store.accounts.find(key.accountId) : null;
    const ctx = this.check(key, account);
    this.authCache.set(cacheKey, { key: ctx.key, account: ctx.account, version, at: now });
    return ctx;
  }

  private check(key: ApiKey | null, account: Account | null): AuthContext {
    if (!key || key.revokedAt !== null) throw unauthorized();
    if (key.expiresAt !== null && key.expiresAt <= this.clock.now()) throw unauthorized('trial key expired');
    if (!account || account.status === 'terminated') throw unauthorized();
    return { account, key, plan: PLANS[account.plan] };
  }

  async authenticateSession(token: string | undefined): Promise<Account> {
    if (!token || token.length > 200) throw invalidSession();
    const s = await this.store.sessions.findByHash(hashSecret(token));
    if (!s || s.expiresAt <= this.clock.now()) throw invalidSession();
    const account = await this.store.accounts.find(s.accountId);
    if (!account || account.status === 'terminated') throw invalidSession();
    return account;
  }
}
