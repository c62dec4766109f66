// The page-time budget of trial accounts and anonymous addresses (issue 25 item 5), on a clock
// moved by hand.
import { expect } from 'chai';
import { FakeClock } from '../helpers/clock.js';
import { PageBudget } from '../../src/services/pageBudget.js';
import { AppError, renderFailed, serviceUnavailable } from '../../src/errors.js';

const refusal = (f: () => void): AppError => {
  try {
    f();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('not refused');
};

describe('PageBudget', () => {
  it('spends page time, refuses once it is gone (address: 429 rate_limited, account: rate_limit_exceeded) and earns it back', () => {
    const clock = new FakeClock();
    const b = new PageBudget(clock, { budgetMs: 3000, refillMsPerMin: 600 });
    const ip = { address: '203.0.113.7' };
    b.admit(ip);
    b.charge(ip, 2000);
    b.admit(ip); // 1000 ms left
    b.charge(ip, 1500); // -500
    const e = refusal(() => b.admit(ip));
    expect(e.status).to.equal(429);
    expect(e.code).to.equal('rate_limited');
    // 501 ms to earn back at 10 ms a second: 51 s
    expect(e.headers['Retry-After']).to.equal('51');
    const acct = { account: 'a1' };
    b.charge(acct, 5000);
    expect(refusal(() => b.admit(acct)).code).to.equal('rate_limit_exceeded');
    // callers are apart: another address is untouched
    b.admit({ address: '198.51.100.1' });
    clock.advance(51_000);
    b.admit(ip);
    // never more than the budget is saved up
    clock.advance(3_600_000);
    b.charge(ip, 3000);
    expect(refusal(() => b.admit(ip)).code).to.equal('rate_limited');
  });

  it('run(): failed renders are charged the time they took, a busy pool is not; no refill means an hour\'s Retry-After', async () => {
    const clock = new FakeClock();
    const b = new PageBudget(clock, { budgetMs: 1, refillMsPerMin: 0 });
    const busy = { address: 'busy' };
    await b.run(busy, () => Promise.reject(serviceUnavailable(1)), () => 0).catch(() => {});
    b.admit(busy);
    const failing = { address: 'failing' };
    await b
      .run(failing, () => new Promise((_, reject) => setTimeout(() => reject(renderFailed('timeout')), 20)), () => 0)
      .catch(() => {});
    const e = refusal(() => b.admit(failing));
    expect(e.headers['Retry-After']).to.equal('3600');
    const ok = { account: 'ok' };
    expect(await b.run(ok, async () => 'image', () => 5)).to.equal('image');
    expect(refusal(() => b.admit(ok)).code).to.equal('rate_limit_exceeded');
  });

  it('run(): what the page spent after the answer (its reset, a stop, a replacement) is charged when it is known, whichever way the render ended', async () => {
    const clock = new FakeClock();
    const b = new PageBudget(clock, { budgetMs: 1000, refillMsPerMin: 0 });
    let release: (ms: number) => void = () => {};
    const trial = { account: 'slow-neighbour' };
    // the render answers at once (charged 5 ms) and its page is back 2 s later
    expect(await b.run(trial, async (later) => ((release = later), 'image'), () => 5)).to.equal('image');
    b.admit(trial);
    release(2000);
    expect(refusal(() => b.admit(trial)).code).to.equal('rate_limit_exceeded');
    const failed = { address: 'failed' };
    await b.run(failed, (later) => ((release = later), Promise.reject(renderFailed('a callback threw'))), () => 0).catch(() => {});
    b.admit(failed);
    release(1500);
    expect(refusal(() => b.admit(failed)).code).to.equal('rate_limited');
  });
});
