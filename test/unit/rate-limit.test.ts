// The pure rate-limit step: a token bucket of burst size refilled per minute, and a clock-hour cap.
import { expect } from 'chai';
import { rateStep } from '../../src/rules/rateLimit.js';

describe('rate-limit step: token bucket and hour window', () => {
  const L = { perMinute: 10, perHour: 100, burst: 20 };
  it('token bucket of burst size refilled at the per-minute rate', () => {
    let st = null;
    const t0 = Date.UTC(2025, 0, 1, 10, 0, 0);
    for (let i = 0; i < 20; i++) {
      const r = rateStep(st, L, t0, true);
      expect(r.decision.allowed, `#${i + 1}`).to.equal(true);
      expect(r.decision.remaining).to.equal(19 - i);
      st = r.state;
    }
    const refused = rateStep(st, L, t0, true);
    expect(refused.decision).to.include({ allowed: false, remaining: 0, retryAfterS: 6, limit: 20 });
    expect(rateStep(st, L, t0 + 6000, true).decision.allowed).to.equal(true);
    // Reset: when the bucket is full again (20 tokens at 10/min = 120 s).
    expect(rateStep(st, L, t0, false).decision.resetAt).to.equal(t0 / 1000 + 120);
  });

  it('hour window: at most perHour per clock hour, reset at the next hour', () => {
    const t0 = Date.UTC(2025, 0, 1, 10, 0, 0);
    let st = { tokens: 20, refilledAt: t0, hourStart: t0, hourCount: 100 };
    const r = rateStep(st, L, t0 + 600_000, true);
    expect(r.decision.allowed).to.equal(false);
    expect(r.decision.retryAfterS).to.equal(3000);
    expect(r.decision.resetAt).to.equal(t0 / 1000 + 3600);
    st = r.state;
    expect(rateStep(st, L, t0 + 3_600_000, true).decision.allowed).to.equal(true);
  });

  it('a smaller plan after a downgrade caps the stored bucket at once', () => {
    const t0 = Date.UTC(2025, 0, 1, 10, 0, 0);
    const big = { tokens: 600, refilledAt: t0, hourStart: t0, hourCount: 0 };
    expect(rateStep(big, L, t0, false).decision.remaining).to.equal(20);
  });
});
