// Dashboard sign-in: a session token (as `sessions create` prints) or a verified Google e-mail
// becomes a new dashboard session (a random cookie token, stored as its hash, with a CSRF token);
// failed attempts are limited per client address.
import { randomBytes } from 'node:crypto';
import { clientKey } from '../../rules/clientAddress.js';
import type { RateLimits } from '../../rules/rateLimit.js';
import type { Clock } from '../../clock.js';
import { invalidInput, invalidSession, rateLimitExceeded } from '../../errors.js';
import type { Account, Store } from '../../store/types.js';
import type { AccountService } from '../accounts.js';
import { addressHash, hashSecret, safeEqualHex } from '../credentials.js';

/** A dashboard session lasts a working day; signing in again is cheap. */
export const DASHBOARD_SESSION_MS = 12 * 3_600_000;

/** Failed sign-ins per client address: 10 at once, then one a minute, 30 an hour. */
export const LOGIN_FAILURES: RateLimits = { burst: 10, perMinute: 1, perHour: 30 };

export interface SignedIn {
  account: Account;
  csrf: string;
  expiresAt: number;
}

/** A new random token, URL-safe. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** Live dashboard sessions per account; a new sign-in beyond this ends the oldest. */
export const MAX_SESSIONS_PER_ACCOUNT = 20;
/** Expired sessions are swept by a sign-in at most this often (per instance). */
const PURGE_EVERY_MS = 10 * 60_000;

export class DashboardSessions {
  private lastPurge = Number.NEGATIVE_INFINITY;
  /** Sign-ins in progress per address: one at a time, so parallel guesses cannot all pass the check before any failure is counted. */
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Pick<Store, 'dashboard' | 'accounts' | 'rateLimits'>,
    private readonly accounts: Pick<AccountService, 'authenticateSession'>,
    private readonly clock: Clock,
    private readonly masterKey: Buffer,
  ) {}

  /** A session token -> a new dashboard session; 429 once the address failed too often, 401 on a bad token. */
  async signInWithToken(token: string, ip: string): Promise<{ token: string; session: SignedIn }> {
    const subject = `dashboard-login:${addressHash(this.masterKey, 'dashboard-login', clientKey(ip))}`;
    const before = this.pending.get(subject) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(() => this.attempt(subject, token));
    this.pending.set(subject, mine);
    try {
      return await mine;
    } finally {
      if (this.pending.get(subject) === mine) this.pending.delete(subject);
    }
  }

  private async attempt(subject: string, token: string): Promise<{ token: string; session: SignedIn }> {
    const now = this.clock.now();
    const room = await this.store.rateLimits.peek(subject, LOGIN_FAILURES, now);
    if (!room.allowed) throw rateLimitExceeded(room.retryAfterS, `too many failed sign-ins from this address; try again in ${room.retryAfterS} s`);
    let account: Account;
    try {
      account = await this.accounts.authenticateSession(token.trim());
    } catch (err) {
      await this.store.rateLimits.hit(subject, LOGIN_FAILURES, now);
      throw err;
    }
    return this.open(account);
  }

  /**
   * Google sign-in: the one live account whose sign-in address (given by the operator when the
   * account was created) is this verified one; the warning-mail address edited in the dashboard never counts.
   */
  async signInWithEmail(email: string): Promise<{ token: string; session: SignedIn }> {
    const ids = await this.store.dashboard.accountsByEmail(email);
    if (ids.length === 0) throw invalidSession(`no account uses ${email}; sign in with a session token`);
    if (ids.length > 1) throw invalidInput(`several accounts use ${email}; sign in with a session token of the one you want`);
    const account = await this.store.accounts.find(ids[0]!);
    if (!account || account.status === 'terminated') throw invalidSession();
    return this.open(account);
  }

  private async open(account: Account): Promise<{ token: string; session: SignedIn }> {
    const token = randomToken();
    const now = this.clock.now();
    const session = { accountId: account.id, csrf: randomToken(24), createdAt: now, expiresAt: now + DASHBOARD_SESSION_MS };
    await this.store.dashboard.createSession(hashSecret(token), session);
    // bounded: the oldest sessions of the account go first; expired ones of any account now and then
    await this.store.dashboard.trimSessions(account.id, MAX_SESSIONS_PER_ACCOUNT);
    if (now - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = now;
      await this.store.dashboard.purgeExpiredSessions(now);
    }
    return { token, session: { account, csrf: session.csrf, expiresAt: session.expiresAt } };
  }

  /** The cookie's session, or null when absent, unknown, expired or its account terminated. */
  async resolve(token: string | undefined): Promise<SignedIn | null> {
    if (!token || token.length > 100) return null;
    const s = await this.store.dashboard.findSession(hashSecret(token));
    if (!s || s.expiresAt <= this.clock.now()) return null;
    const account = await this.store.accounts.find(s.accountId);
    if (!account || account.status === 'terminated') return null;
    return { account, csrf: s.csrf, expiresAt: s.expiresAt };
  }

  /** "Sign out everywhere": every dashboard session of the account ends; returns how many. */
  signOutEverywhere(accountId: string): Promise<number> {
    return this.store.dashboard.deleteAccountSessions(accountId);
  }

  async signOut(token: string | undefined): Promise<void> {
    if (!token || token.length > 100) return;
    await this.store.dashboard.deleteSession(hashSecret(token));
  }

  /** Drops expired sessions (housekeeping). */
  purgeExpired(): Promise<number> {
    return this.store.dashboard.purgeExpiredSessions(this.clock.now());
  }
}

/** Constant-time comparison of a form's CSRF token with the session's. */
export function csrfMatches(expected: string, sent: unknown): boolean {
  return typeof sent === 'string' && sent.length > 0 && safeEqualHex(expected, sent);
}
