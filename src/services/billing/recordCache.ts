// The billing record of recently active accounts, kept between requests while nothing can have
// changed it: a render then reads no billing row (the rate limits and the period come from here).
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import type { BillingRecord } from '../../store/metering.js';
import type { Store } from '../../store/types.js';
import { AUTH_CACHE_MS } from '../accounts.js';

/** How long a record is reused at most, even while no change is signalled. */
export const BILLING_CACHE_MS = AUTH_CACHE_MS;
const BILLING_CACHE_ENTRIES = 10_000;

interface Entry {
  record: BillingRecord | null;
  version: number;
  at: number;
}

/**
 * Why a cached record is as good as a read:
 * - Store.authVersion() changes with every billing write: this process's own at once (the store
 *   counts each committed write), another process's or instance's as soon as the store sees it
 *   (SQLite: data_version, on the next call; PostgreSQL: the billing trigger's notification).
 *   An entry is used only under the version read before it was loaded, so a write racing the
 *   load leaves an entry that never matches. A change elsewhere (set-limits, a period closed by
 *   hand, a plan change, dunning) is thus honoured once its notification is in: that delay is
 *   the whole window, as a read followed by a render already leaves one between read and count.
 * - Periods roll over by the clock (currentPeriod applies periodAt to the record), so a record
 *   cached before its period ended still gives the new period afterwards.
 * - A store without authVersion cannot tell of changes: nothing is cached. An entry is also
 *   dropped after BILLING_CACHE_MS, or when the clock went backwards.
 * Records are frozen: one object serves many requests.
 */
export class BillingRecordCache {
  private readonly entries = new LRUCache<string, Entry>({ max: BILLING_CACHE_ENTRIES });

  constructor(
    private readonly store: Pick<Store, 'billing' | 'authVersion'>,
    private readonly clock: Clock,
  ) {}

  async get(accountId: string): Promise<BillingRecord | null> {
    const version = this.store.authVersion?.();
    if (version === undefined) return this.store.billing.get(accountId);
    const now = this.clock.now();
    const hit = this.entries.get(accountId);
    if (hit && hit.version === version && now >= hit.at && now - hit.at < BILLING_CACHE_MS) return hit.record;
    const rec = await this.store.billing.get(accountId);
    const record = rec && Object.freeze(rec);
    this.entries.set(accountId, { record, version, at: now });
    return record;
  }
}
