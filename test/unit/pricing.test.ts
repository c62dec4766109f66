// Billing arithmetic, pure: fees, overage, proration, calendar months and the period a moment falls in.
import { expect } from 'chai';
import { addMonthsUtc, overagePence, periodAt, planFeePence, prorationPence } from '../../src/chart/pricing.js';
import { DAY } from '../helpers/clock.js';

describe('billing arithmetic', () => {
  it('annual = 10 monthly fees; Pro/Growth 150 GBP, Starter 30 GBP', () => {
    expect(planFeePence('starter', 'monthly')).to.equal(3000);
    expect(planFeePence('starter', 'annual')).to.equal(30000);
    expect(planFeePence('growth', 'monthly')).to.equal(15000);
    expect(planFeePence('growth', 'annual')).to.equal(150000);
    expect(planFeePence('enterprise', 'monthly')).to.equal(0);
    expect(planFeePence('enterprise', 'monthly', 99900)).to.equal(99900);
  });

  it('overage per started 1,000 charts', () => {
    expect(overagePence(100_000, 100_000, 300).pence).to.equal(0);
    expect(overagePence(100_001, 100_000, 300)).to.include({ over: 1, units: 1, pence: 300 });
    expect(overagePence(101_000, 100_000, 300)).to.include({ units: 1, pence: 300 });
    expect(overagePence(101_001, 100_000, 300)).to.include({ units: 2, pence: 600 });
    expect(overagePence(1_002_500, 1_000_000, 100)).to.include({ units: 3, pence: 300 });
    expect(overagePence(5, null, null).pence).to.equal(0);
  });

  it('proration by remaining (started) days', () => {
    const start = Date.UTC(2025, 3, 1);
    const end = addMonthsUtc(start, 1); // 30 days
    expect(prorationPence(12000, start, end, start + 15 * DAY)).to.deep.equal({ pence: 6000, remainingDays: 15, periodDays: 30 });
    expect(prorationPence(12000, start, end, start + 15 * DAY - 1000).remainingDays).to.equal(16); // a started day counts
    expect(prorationPence(12000, start, end, start + 15 * DAY + 1000).remainingDays).to.equal(15);
    expect(prorationPence(12000, start, end, start).pence).to.equal(12000);
    expect(prorationPence(12000, start, end, end).pence).to.equal(0);
  });

  it('calendar months in UTC, clamping the day', () => {
    expect(new Date(addMonthsUtc(Date.UTC(2025, 0, 31, 9), 1)).toISOString()).to.equal('2025-02-28T09:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2024, 0, 31), 1)).toISOString()).to.equal('2024-02-29T00:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2025, 11, 15), 1)).toISOString()).to.equal('2026-01-15T00:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2025, 5, 1), 12)).toISOString()).to.equal('2026-06-01T00:00:00.000Z');
  });

  describe('the period a moment falls in', () => {
    const start = Date.UTC(2025, 0, 31);
    const open = { start, end: addMonthsUtc(start, 1), nextCycle: 'monthly' as const, last: false };

    it('is the open period until its end, the next one from its end', () => {
      expect(periodAt(open, open.end - 1)).to.deep.equal({ start, end: open.end });
      expect(periodAt(open, open.end)).to.deep.equal({ start: open.end, end: addMonthsUtc(open.end, 1) });
    });

    it('walks missed periods one by one as closing does (31 Jan, 28 Feb, 28 Mar), not from the first start', () => {
      const p = periodAt(open, Date.UTC(2025, 2, 30));
      expect(new Date(p.start).toISOString()).to.equal('2025-03-28T00:00:00.000Z');
      expect(new Date(p.end).toISOString()).to.equal('2025-04-28T00:00:00.000Z');
    });

    it('uses the next cycle after the open period, and stops after a last period', () => {
      const annual = periodAt({ ...open, nextCycle: 'annual' }, open.end + DAY);
      expect(annual).to.deep.equal({ start: open.end, end: addMonthsUtc(open.end, 12) });
      const last = periodAt({ ...open, last: true }, Date.UTC(2025, 5, 1));
      expect(last).to.deep.equal({ start: open.end, end: addMonthsUtc(open.end, 1) });
    });
  });
});
