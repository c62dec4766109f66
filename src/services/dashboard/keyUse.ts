// When each API key was last used, for the keys page: noted on every authenticated request,
// written to the store at most once a minute per key (a busy key costs no write per request).
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/types.js';

export const KEY_USE_WRITE_MS = 60_000;

export class KeyUse {
  private readonly written = new LRUCache<string, number>({ max: 100_000 });

  constructor(
    private readonly store: Pick<Store, 'dashboard'>,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Never waits for the store and never fails the request. */
  seen(keyId: string, accountId: string): void {
    const now = this.clock.now();
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < KEY_USE_WRITE_MS && now >= last) return;
    this.written.set(keyId, now);
    this.store.dashboard.touchKey(keyId, accountId, now).catch(this.onError);
  }
}
