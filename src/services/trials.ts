// POST /signup/anon: a trial account and its trial_ key, one per client address (an IPv6 /64)
// per 30 days; the address is stored only as an HMAC keyed with the master key.
import { rateLimitExceeded, serviceUnavailable } from '../errors.js';
import { StorageError } from '../store/errors.js';
import type { Store } from '../store/types.js';
import type { AccountService } from './accounts.js';
import type { Clock } from '../clock.js';
import { TRIAL_DAYS } from './accounts.js';
import { addressHash } from './credentials.js';
import { clientKey } from '../rules/clientAddress.js';

const DAY_MS = 86_400_000;

export class TrialService {
  constructor(
    private readonly store: Pick<Store, 'trials'>,
    private readonly accounts: AccountService,
    private readonly clock: Clock,
    private readonly masterKey: Buffer,
  ) {}

  async signup(ip: string): Promise<{ api_key: string }> {
    const now = this.clock.now();
    const claim = await this.store.trials
      .claim(addressHash(this.masterKey, 'trial-ip', clientKey(ip)), now, TRIAL_DAYS * DAY_MS)
      .catch((err: unknown) => {
        // the shared claims are away (Redis down): try again soon rather than guess
        if (err instanceof StorageError && err.failure === 'unavailable') throw serviceUnavailable(5, 'trial sign-up is briefly unavailable, try again');
        throw err;
      });
    if (!claim.ok) {
      throw rateLimitExceeded((claim.retryAt - now) / 1000, `one trial key per IP address per ${TRIAL_DAYS} days`);
    }
    try {
      const created = await this.accounts.createAccount('trial', null);
      await this.store.trials.attach(claim.claimId, created.account_id);
      return { api_key: created.api_key };
    } catch (err) {
      await this.store.trials.drop(claim.claimId);
      throw err;
    }
  }
}
