// Store interface of the web dashboard: its sign-in sessions (kept apart from API session tokens)
// and the per-day and per-chart reads its pages show.

export interface DashboardSession {
  accountId: string;
  /** Random per-session token every form of the session carries. */
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

export interface DailyUsageRow {
  /** Days since the epoch (UTC). */
  day: number;
  requests: number;
  succeeded: number;
  renders: number;
  cacheHits: number;
}

export interface TopChartRow {
  chartId: string;
  hitCount: number;
  errorCount: number;
  renderCount: number;
  renderMsTotal: number;
  lastAccessed: number | null;
  createdAt: number;
}

export interface DashboardStore {
  createSession(tokenHash: string, s: DashboardSession): Promise<void>;
  /** The session, expired or not (the caller judges expiry with its clock). */
  findSession(tokenHash: string): Promise<DashboardSession | null>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Deletes every session of the account ("sign out everywhere"); returns how many. */
  deleteAccountSessions(accountId: string): Promise<number>;
  /** Keeps the account's `keep` newest sessions (by creation) and deletes the rest; returns how many went. */
  trimSessions(accountId: string, keep: number): Promise<number>;
  /** Removes sessions expired at or before `now`; returns how many. */
  purgeExpiredSessions(now: number): Promise<number>;
  /** The account's usage_daily rows in [fromDay, toDay], oldest first (days without a row are absent). */
  dailyUsage(accountId: string, fromDay: number, toDay: number): Promise<DailyUsageRow[]>;
  /** Records that a key was used at `at` (a later time wins). */
  touchKey(keyId: string, accountId: string, at: number): Promise<void>;
  /** When each of the account's keys was last used, by key id (keys never used are absent). */
  keysLastUsed(accountId: string): Promise<Map<string, number>>;
  /** Ids of the live accounts whose sign-in address (the one given at creation, not the editable warning-mail address) is `email`, case-insensitively; at most 2. */
  accountsByEmail(email: string): Promise<string[]>;
  /** The account's short charts with the most hits, most first, at most `limit`. */
  topCharts(accountId: string, limit: number): Promise<TopChartRow[]>;
}
